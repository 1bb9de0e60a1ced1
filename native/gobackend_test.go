package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func assertClose(t *testing.T, want, got []float32, tol float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		if math.Abs(float64(want[i]-got[i])) > tol*(1+math.Abs(float64(want[i]))) {
			t.Fatalf("%s: element %d: want %g, got %g", msg, i, want[i], got[i])
		}
	}
}

// TestMatMul compares MatMul with dequantize-then-dot for each type, batch
// size and thread count (in float64, of the activations as the kernels
// see them: rounded to 8 bits for the types with 8-bit kernels).
func TestMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.Q8_0, ggml.Q4_0, ggml.Q4_K, ggml.Q6_K} {
		rows, cols := 37, 256
		wf := randVec(r, rows*cols)
		rs, err := typ.RowSize(cols)
		require.NoError(t, err)
		data := make([]byte, rows*rs)
		if typ == ggml.F32 {
			copy(f32s(data), wf)
		} else {
			require.NoError(t, ggml.Quantize(typ, wf, data))
		}
		deq := make([]float32, rows*cols)
		require.NoError(t, ggml.Dequantize(typ, data, deq))
		w := Weight{Type: typ, Rows: rows, Cols: cols, Data: data}
		require.NoError(t, w.Check())
		for _, threads := range []int{1, 3} {
			g := NewGo(threads)
			for _, n := range []int{1, 5} {
				x := randVec(r, n*cols)
				xref := kernelActs(g, typ, cols, n, x)
				want := make([]float32, n*rows)
				for tk := range n {
					for i := range rows {
						var s float64
						for j := range cols {
							s += float64(deq[i*cols+j]) * float64(xref[tk*cols+j])
						}
						want[tk*rows+i] = float32(s)
					}
				}
				got := make([]float32, n*rows)
				g.MatMul(got, w, x, n)
				assertClose(t, want, got, 1e-3, typ.String())
			}
			g.Close()
		}
	}
}

// naiveAttention is softmax(scale·q·Kᵀ + mask)·V written out plainly,
// with llama.cpp's KQ mask (llama_kv_cache::set_input_kq_mask): key j is
// masked for the query at pos if j > pos (causal only) or if
// pos-j >= Window (is_masked_swa, LLAMA_SWA_TYPE_STANDARD).
func naiveAttention(q, k, v []float32, pos0, nTokens int, a Attention) []float32 {
	hd, kvw := a.HeadDim, a.NKVHeads*a.HeadDim
	out := make([]float32, nTokens*a.NHeads*hd)
	for t := range nTokens {
		pos := pos0 + t
		last := pos
		if a.NonCausal {
			last = pos0 + nTokens - 1
		}
		for h := range a.NHeads {
			kh := h / (a.NHeads / a.NKVHeads)
			qh := q[(t*a.NHeads+h)*hd:][:hd]
			scores := make([]float64, last+1)
			m := math.Inf(-1)
			for j := 0; j <= last; j++ {
				if a.Window > 0 && pos-j >= a.Window {
					scores[j] = math.Inf(-1)
					continue
				}
				var s float64
				for i := range hd {
					s += float64(qh[i]) * float64(k[j*kvw+kh*hd+i])
				}
				s *= float64(a.Scale)
				if a.SoftCap > 0 {
					s = float64(a.SoftCap) * math.Tanh(s/float64(a.SoftCap))
				}
				scores[j] = s
				m = math.Max(m, s)
			}
			var sum float64
			for j := range scores {
				scores[j] = math.Exp(scores[j] - m)
				sum += scores[j]
			}
			if a.Sinks != nil {
				sum += math.Exp(float64(a.Sinks[h]) - m)
			}
			o := out[(t*a.NHeads+h)*hd:][:hd]
			for j := range scores {
				for i := range hd {
					o[i] += float32(scores[j] / sum * float64(v[j*kvw+kh*hd+i]))
				}
			}
		}
	}
	return out
}

func TestAttend(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := NewGo(3)
	defer g.Close()
	for _, tc := range []struct {
		name string
		a    Attention
		kv   ggml.DType
		tol  float64
	}{
		{"MHA", Attention{NHeads: 2, NKVHeads: 2, HeadDim: 16, Scale: 0.25}, ggml.F32, 1e-5},
		{"GQA", Attention{NHeads: 6, NKVHeads: 2, HeadDim: 8, Scale: 0.35}, ggml.F32, 1e-5},
		{"window", Attention{NHeads: 4, NKVHeads: 1, HeadDim: 8, Scale: 0.35, Window: 5}, ggml.F32, 1e-5},
		{"softcap", Attention{NHeads: 2, NKVHeads: 1, HeadDim: 8, Scale: 1, SoftCap: 2}, ggml.F32, 1e-5},
		{"F16 cache", Attention{NHeads: 6, NKVHeads: 2, HeadDim: 8, Scale: 0.35, Window: 7}, ggml.F16, 3e-3},
		// a media chunk (mtmd's non-causal batch), with and without a
		// window shorter than the batch
		{"non-causal", Attention{NHeads: 6, NKVHeads: 2, HeadDim: 8, Scale: 0.35, NonCausal: true}, ggml.F32, 1e-5},
		{"non-causal window", Attention{NHeads: 4, NKVHeads: 1, HeadDim: 8, Scale: 0.35, Window: 5, NonCausal: true}, ggml.F32, 1e-5},
		{"non-causal F16 softcap", Attention{NHeads: 2, NKVHeads: 1, HeadDim: 8, Scale: 1, SoftCap: 2, Window: 7, NonCausal: true}, ggml.F16, 3e-3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const ctxLen, pos0, n = 32, 9, 11
			kvw := tc.a.NKVHeads * tc.a.HeadDim
			c, err := NewKVCache(tc.kv, ctxLen, kvw)
			require.NoError(t, err)
			k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
			g.StoreKV(c, 0, k[:pos0*kvw], v[:pos0*kvw], pos0)
			g.StoreKV(c, pos0, k[pos0*kvw:], v[pos0*kvw:], n)
			q := randVec(r, n*tc.a.NHeads*tc.a.HeadDim)
			got := make([]float32, len(q))
			g.Attend(got, q, c, pos0, n, tc.a)
			want := naiveAttention(q, k, v, pos0, n, tc.a)
			assertClose(t, want, got, tc.tol, tc.name)
			if tc.a.NonCausal { // the later keys matter: the test bites
				causal := tc.a
				causal.NonCausal = false
				assert.Greater(t, maxAbsDiff(naiveAttention(q, k, v, pos0, n, causal), want), 0.01, "non-causal differs from causal")
			}
		})
	}
}

func TestRoPE(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	const heads, hd, pos0, n = 2, 8, 5, 3
	for _, neox := range []bool{false, true} {
		r := NewRoPE(6, 10000, 0.5, []float32{1, 2, 4}, neox)
		x := randVec(rand.New(rand.NewPCG(5, 6)), n*heads*hd)
		got := append([]float32(nil), x...)
		g.RoPE(got, heads, hd, pos0, n, r)
		for tk := range n {
			for h := range heads {
				v := x[(tk*heads+h)*hd:][:hd]
				o := got[(tk*heads+h)*hd:][:hd]
				for i := range 3 {
					theta := float64(pos0+tk) * 0.5 / math.Pow(10000, float64(2*i)/6) / float64([]float32{1, 2, 4}[i])
					a, b := 2*i, 2*i+1
					if neox {
						a, b = i, i+3
					}
					assert.InDelta(t, float64(v[a])*math.Cos(theta)-float64(v[b])*math.Sin(theta), o[a], 1e-5)
					assert.InDelta(t, float64(v[a])*math.Sin(theta)+float64(v[b])*math.Cos(theta), o[b], 1e-5)
				}
				assert.Equal(t, v[6:], o[6:], "elements past the rotary dimension are unchanged")
			}
		}
	}
}

func TestNormAndGates(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	x := []float32{1, -2, 3, 4, 0, 0}
	w := []float32{1, 2, 0.5}
	out := make([]float32, 6)
	g.RMSNorm(out, x, w, 3, 0)
	s := float32(1 / math.Sqrt(14.0/3))
	assertClose(t, []float32{s, -4 * s, 1.5 * s, 4 / float32(math.Sqrt(16.0/3)), 0, 0}, out, 1e-6, "rmsnorm")

	gate, up := []float32{-1, 0, 2}, []float32{2, 3, 0.5}
	g.SwiGLU(gate, up)
	assertClose(t, []float32{-2 / (1 + float32(math.E)), 0, 0.5 * 2 / (1 + float32(math.Exp(-2)))}, gate, 1e-6, "swiglu")
	gate = []float32{-1, 0, 2}
	g.GeGLU(gate, []float32{1, 1, 1})
	assertClose(t, []float32{-0.15880801, 0, 1.9545977}, gate, 1e-5, "geglu")

	p := []float32{1, 2, float32(math.Inf(-1))}
	g.Softmax(p)
	assertClose(t, []float32{1 / (1 + float32(math.E)), float32(math.E) / (1 + float32(math.E)), 0}, p, 1e-6, "softmax")
}

func TestKVCacheErrors(t *testing.T) {
	_, err := NewKVCache(ggml.Q8_0, 4, 4)
	require.ErrorContains(t, err, "Q8_0")
	_, err = NewKVCache(ggml.F32, 0, 4)
	require.Error(t, err)
}

// TestGoSharedRowOps checks the batch ops the Go backend shares over its
// pool (activation quantization, RMSNorm, RoPE, cache stores, Add,
// SwiGLU): on 4 goroutines they must give exactly what one gives, with
// sizes past the sharing threshold and element counts that end in a
// partial chunk.
func TestGoSharedRowOps(t *testing.T) {
	one, four := NewGo(1), NewGo(4)
	defer one.Close()
	defer four.Close()
	r := rand.New(rand.NewPCG(41, 42))
	const rows, n = 70, 1152 // 9 heads of 128
	x := randFloats(r, rows*n, 2)
	weight := randFloats(r, n, 1)
	run := func(name string, op func(g *Go, out []float32)) {
		want, got := make([]float32, rows*n+5), make([]float32, rows*n+5)
		op(one, want)
		op(four, got)
		require.Equal(t, want, got, name)
	}
	run("RMSNorm", func(g *Go, out []float32) { g.RMSNorm(out, x, weight, n, 1e-5) })
	for _, neox := range []bool{false, true} {
		rope := NewRoPE(128, 10000, 1, nil, neox)
		run("RoPE", func(g *Go, out []float32) { copy(out, x); g.RoPE(out, 9, 128, 17, rows, rope) })
	}
	y := randFloats(r, rows*n+5, 1)
	run("Add", func(g *Go, out []float32) { copy(out, x); g.Add(out, y) })
	run("SwiGLU", func(g *Go, out []float32) { copy(out, x); out[rows*n+4] = 3; g.SwiGLU(out, y) })
	w := randWeight(t, r, ggml.Q8_0, 33, n)
	run("MatMul Q8_0", func(g *Go, out []float32) { g.MatMul(out, w, x, rows) })
	for _, typ := range []ggml.DType{ggml.F16, ggml.Q8_0, ggml.Q4_0} {
		caches := [2]*KVCache{}
		for i, g := range []*Go{one, four} {
			c, err := NewKVCache(typ, rows+3, n)
			require.NoError(t, err)
			g.StoreKV(c, 3, x, y, rows)
			caches[i] = c
		}
		require.Equal(t, caches[0], caches[1], "StoreKV %s", typ)
	}
}

// TestAddKernel checks add (the residual sums; SIMD on x86) against the
// plain loop, bit for bit, over lengths that end in every tail and
// misaligned rows.
func TestAddKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for n := range 75 {
		x, y := randFloats(r, n, 2), misalignF(randFloats(r, n, 2))
		want := make([]float32, n)
		for i := range want {
			want[i] = x[i] + y[i]
		}
		add(x, y)
		require.Equal(t, want, x, "%d elements", n)
	}
}

// TestGoScale checks Scale bit for bit against x*c on every length to 40
// (the SIMD prefix and the scalar tail).
func TestGoScale(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(73, 74))
	for n := 1; n <= 40; n++ {
		x := randFloats(r, n, 10)
		got := append([]float32(nil), x...)
		g.Scale(got, 0.3)
		for i, v := range x {
			require.Equal(t, v*0.3, got[i], "n=%d element %d", n, i)
		}
	}
}
