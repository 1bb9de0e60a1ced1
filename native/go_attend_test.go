package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestAttendHeadDims runs Attend over the head sizes that take each path
// of the score and weighted-sum kernels (blocks of 64, 32, 16 and 8
// elements, and sizes that are not a multiple of 8, which take the
// generic code), against the plain float64 attention.
func TestAttendHeadDims(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	g := NewGo(2)
	defer g.Close()
	for _, kv := range []ggml.DType{ggml.F32, ggml.F16} {
		for _, hd := range []int{4, 8, 24, 40, 64, 72, 128} {
			t.Run(fmt.Sprintf("%s/hd%d", kv, hd), func(t *testing.T) {
				a := Attention{NHeads: 4, NKVHeads: 2, HeadDim: hd, Scale: 0.2}
				const ctxLen, pos0, n = 80, 61, 7
				kvw := a.NKVHeads * hd
				c, err := NewKVCache(kv, ctxLen, kvw)
				require.NoError(t, err)
				k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
				if kv == ggml.F16 { // the reference sees the rounded values
					for i := range k {
						k[i] = ggml.F16ToF32(ggml.F32ToF16(k[i]))
						v[i] = ggml.F16ToF32(ggml.F32ToF16(v[i]))
					}
				}
				g.StoreKV(c, 0, k, v, pos0+n)
				q := randVec(r, n*a.NHeads*hd)
				got := make([]float32, len(q))
				g.Attend(got, q, c, pos0, n, a)
				assertClose(t, naiveAttention(q, k, v, pos0, n, a), got, 1e-5, "attention")
			})
		}
	}
}

// TestAttendGroups runs Attend over an F16 cache for GQA groups of 2 to 8
// query heads (the four-head kernels pad groups that are not a multiple
// of 4) and a group of one, on one thread and on split decode spans, for
// decode rows past several attention blocks (tails of 1-3 rows) and a
// batch, with a window, a soft cap and sinks, against the float64
// reference.
func TestAttendGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, threads := range []int{1, 2} {
		g := NewGo(threads)
		defer g.Close()
		for _, a := range []Attention{
			{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125},
			{NHeads: 8, NKVHeads: 2, HeadDim: 80, Scale: 0.1},
			{NHeads: 10, NKVHeads: 2, HeadDim: 16, Scale: 0.25, SoftCap: 4},
			{NHeads: 8, NKVHeads: 1, HeadDim: 128, Scale: 0.09, Window: 100},
			{NHeads: 4, NKVHeads: 2, HeadDim: 64, Scale: 0.125, Sinks: []float32{-1, 0.5, 3, 12}},
			{NHeads: 3, NKVHeads: 3, HeadDim: 64, Scale: 0.125},
		} {
			for _, b := range [][2]int{{601, 1}, {130, 1}, {62, 5}, {0, 1}} {
				pos0, n := b[0], b[1]
				t.Run(fmt.Sprintf("t%d/%d-%d/hd%d/pos%d+%d", threads, a.NHeads, a.NKVHeads, a.HeadDim, pos0, n), func(t *testing.T) {
					kvw := a.NKVHeads * a.HeadDim
					c, err := NewKVCache(ggml.F16, pos0+n, kvw)
					require.NoError(t, err)
					k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
					for i := range k { // the reference sees the rounded values
						k[i] = ggml.F16ToF32(ggml.F32ToF16(k[i]))
						v[i] = ggml.F16ToF32(ggml.F32ToF16(v[i]))
					}
					g.StoreKV(c, 0, k, v, pos0+n)
					q := randVec(r, n*a.NHeads*a.HeadDim)
					got := make([]float32, len(q))
					g.Attend(got, q, c, pos0, n, a)
					assertClose(t, naiveAttention(q, k, v, pos0, n, a), got, 1e-4, "attention")
				})
			}
		}
	}
}

// TestAttendSinks checks attention sinks (gpt-oss): each head's sink
// logit joins the softmax's denominator, on both backends, with and
// without a sliding window, against the float64 reference.
func TestAttendSinks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	g := NewGo(2)
	defer g.Close()
	bs := []Backend{g}
	// every kernel set: the quantized-cache kernels of each ISA
	for _, c := range loadCPUsOrNil(t, 2) {
		bs = append(bs, c)
	}
	for _, b := range bs {
		for _, window := range []int{0, 16} {
			t.Run(fmt.Sprintf("%s/window%d", b.Name(), window), func(t *testing.T) {
				// sinks around the scores' size and far above them
				a := Attention{NHeads: 4, NKVHeads: 2, HeadDim: 32, Scale: 0.2, Window: window, Sinks: []float32{-1, 0.5, 3, 12}}
				const ctxLen, pos0, n = 80, 41, 7
				kvw := a.NKVHeads * a.HeadDim
				c, err := NewKVCache(ggml.F32, ctxLen, kvw)
				require.NoError(t, err)
				k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
				b.StoreKV(c, 0, k, v, pos0+n)
				q := randVec(r, n*a.NHeads*a.HeadDim)
				got := make([]float32, len(q))
				b.Attend(got, q, c, pos0, n, a)
				want := naiveAttention(q, k, v, pos0, n, a)
				assertClose(t, want, got, 1e-5, "attention with sinks")
				a.Sinks = nil
				assert.Greater(t, maxAbsDiff(naiveAttention(q, k, v, pos0, n, a), want), 0.01, "the sinks matter")
			})
		}
	}
}

// maxAbsDiff is the largest |a[i]-b[i]|.
func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestSoftmaxScores checks the SIMD softmax of scores against math.Exp.
func TestSoftmaxScores(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 7, 8, 9, 16, 24, 41, 100, 513} {
		for _, spread := range []float32{0.1, 5, 100} {
			s := randFloats(r, n, spread)
			want := append([]float32(nil), s...)
			wantSum, _ := softmaxScores(want, 0.7, 0, false)
			got := append([]float32(nil), s...)
			gotSum, _ := softmaxScores(got, 0.7, 0, haveSIMD)
			require.InEpsilon(t, wantSum, gotSum, 1e-6, "n=%d spread %g: sum", n, spread)
			for i := range want {
				require.InDelta(t, want[i], got[i], 2e-7*float64(want[i])+1e-37, "n=%d spread %g: element %d", n, spread, i)
			}
		}
	}
}

// TestSwiGLUKernel checks SwiGLU on every length to 40 and over a wide
// range of inputs (where e^-x overflows or vanishes) against math.Exp.
func TestSwiGLUKernel(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(15, 16))
	for n := 1; n <= 40; n++ {
		gate := randFloats(r, n, 8)
		gate[0] = -100
		if n > 1 {
			gate[1] = 100
		}
		up := randFloats(r, n, 2)
		want := make([]float32, n)
		for i, x := range gate {
			want[i] = float32(float64(x) / (1 + math.Exp(-float64(x))) * float64(up[i]))
		}
		g.SwiGLU(gate, up)
		for i := range want {
			require.InDelta(t, want[i], gate[i], 3e-7*math.Abs(float64(want[i]))+1e-30, "n=%d element %d", n, i)
		}
	}
}

// TestAttendQuantizedKV checks attention over a Q8_0 or Q4_0 cache, causal
// and not, with and without a window, on both backends, against the plain
// float64 attention computed as llama.cpp's CPU flash attention does with
// -ctk/-ctv q8_0 (q4_0): keys and values rounded to their blocks
// (quantize_row_*_ref), the query rounded to Q8_0 (K's vec_dot_type).
func TestAttendQuantizedKV(t *testing.T) {
	g := NewGo(2)
	defer g.Close()
	bs := []Backend{g}
	// every kernel set: the quantized-cache kernels of each ISA
	for _, c := range loadCPUsOrNil(t, 2) {
		bs = append(bs, c)
	}
	// round sets x to the values of its t blocks
	round := func(t *testing.T, typ ggml.DType, x []float32) []float32 {
		n, err := typ.RowSize(len(x))
		require.NoError(t, err)
		b := make([]byte, n)
		require.NoError(t, ggml.Quantize(typ, x, b))
		out := make([]float32, len(x))
		require.NoError(t, ggml.DequantizeRow(typ, b, out))
		return out
	}
	for _, b := range bs {
		for _, kv := range []ggml.DType{ggml.Q8_0, ggml.Q4_0} {
			for i, a := range []Attention{
				{NHeads: 4, NKVHeads: 2, HeadDim: 64, Scale: 0.125},
				{NHeads: 6, NKVHeads: 2, HeadDim: 32, Scale: 0.2, Window: 9, SoftCap: 3},
				{NHeads: 4, NKVHeads: 1, HeadDim: 128, Scale: 0.09, Window: 5, NonCausal: true},
				// SmolLM2's groups of 3, and groups wider than the kernels' 4
				// rows with sinks and a head of three blocks
				{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125},
				{NHeads: 12, NKVHeads: 2, HeadDim: 96, Scale: 0.1, Sinks: []float32{0, 1, -2, 3, 0.5, 2, -1, 4, 0, 0.25, 1, 2}},
			} {
				t.Run(fmt.Sprintf("%s/%s/%d/hd%d/w%d/nc%v", b.Name(), kv, i, a.HeadDim, a.Window, a.NonCausal), func(t *testing.T) {
					r := rand.New(rand.NewPCG(23, uint64(i))) // the same data on every backend
					const ctxLen, pos0, n = 48, 29, 11
					kvw := a.NKVHeads * a.HeadDim
					c, err := NewKVCache(kv, ctxLen, kvw)
					require.NoError(t, err)
					k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
					b.StoreKV(c, 0, k[:pos0*kvw], v[:pos0*kvw], pos0)
					b.StoreKV(c, pos0, k[pos0*kvw:], v[pos0*kvw:], n)
					q := randVec(r, n*a.NHeads*a.HeadDim)
					got := make([]float32, len(q))
					b.Attend(got, q, c, pos0, n, a)

					kr, vr, qr := make([]float32, len(k)), make([]float32, len(v)), make([]float32, len(q))
					for p := range pos0 + n { // rows are quantized whole, as ggml's set_rows does
						copy(kr[p*kvw:], round(t, kv, k[p*kvw:(p+1)*kvw]))
						copy(vr[p*kvw:], round(t, kv, v[p*kvw:(p+1)*kvw]))
					}
					for h := range n * a.NHeads {
						copy(qr[h*a.HeadDim:], round(t, ggml.Q8_0, q[h*a.HeadDim:(h+1)*a.HeadDim]))
					}
					want := naiveAttention(qr, kr, vr, pos0, n, a)
					assertClose(t, want, got, 2e-5, "attention over the rounded cache")
					// and the blocks are close to the floats they round
					exact := naiveAttention(q, k, v, pos0, n, a)
					tol := map[ggml.DType]float64{ggml.Q8_0: 0.03, ggml.Q4_0: 0.5}[kv]
					assert.Less(t, maxAbsDiff(exact, got), tol, "%s against F32", kv)
					assert.Greater(t, maxAbsDiff(exact, got), 1e-5, "the rounding shows")
				})
			}
		}
	}
}

// TestAttendSpans checks decode at depth on several threads, where each
// (row, cache head) pair's keys are split into spans whose partial
// softmax results are combined: against the same call on one thread
// (one span) and against the float64 attention, for every cache type,
// with a window, soft-capping and sinks.
func TestAttendSpans(t *testing.T) {
	const ctxLen, pos0 = 1500, 1400
	// the C backend splits by the same rule (attention.c's att_spans)
	var cOne, cFour Backend
	if c, err := LoadCPU(1); err == nil {
		c4, err := LoadCPU(4)
		require.NoError(t, err)
		cOne, cFour = c, c4
		defer c.Close()
		defer c4.Close()
	} else {
		t.Logf("native library not loaded, checking the Go backend only: %v", err)
	}
	for _, n := range []int{1, 2} {
		for i, a := range []Attention{
			{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125},
			{NHeads: 4, NKVHeads: 2, HeadDim: 32, Scale: 0.2, Window: 700, SoftCap: 3},
			{NHeads: 6, NKVHeads: 1, HeadDim: 96, Scale: 0.1, Sinks: []float32{0, 1, -2, 3, 0.5, 2}},
		} {
			first, last := max(0, pos0-a.Window+1), pos0
			if a.Window == 0 {
				first = 0
			}
			require.Greater(t, attendSpans(4, n*a.NKVHeads, last-first+1), 1, "the test must split the keys")
			for _, kv := range KVTypes {
				t.Run(fmt.Sprintf("n%d/%d/%s", n, i, kv), func(t *testing.T) {
					r := rand.New(rand.NewPCG(31, uint64(i)))
					kvw := a.NKVHeads * a.HeadDim
					one, four := NewGo(1), NewGo(4)
					defer one.Close()
					defer four.Close()
					c, err := NewKVCache(kv, ctxLen, kvw)
					require.NoError(t, err)
					k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
					one.StoreKV(c, 0, k, v, pos0+n)
					q := randVec(r, n*a.NHeads*a.HeadDim)
					want, got := make([]float32, len(q)), make([]float32, len(q))
					one.Attend(want, q, c, pos0, n, a)
					four.Attend(got, q, c, pos0, n, a)
					assertClose(t, want, got, 1e-5, "spans against one span")
					if kv == ggml.F32 {
						assertClose(t, naiveAttention(q, k, v, pos0, n, a), got, 1e-5, "spans against float64")
					}
					if cOne == nil {
						return
					}
					cOne.Attend(want, q, c, pos0, n, a)
					cFour.Attend(got, q, c, pos0, n, a)
					assertClose(t, want, got, 1e-5, "C: spans against one span")
					if kv == ggml.F32 {
						assertClose(t, naiveAttention(q, k, v, pos0, n, a), got, 1e-5, "C: spans against float64")
					}
				})
			}
		}
	}
}

// TestAttentionKernels checks the score and weighted-sum kernels against
// the portable loops, for row counts around the 8-row blocks of the score
// kernels and head sizes that take each of their column steps.
func TestAttentionKernels(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, hd := range []int{8, 16, 24, 48, 64, 72, 128, 256} {
		for _, nrows := range []int{1, 7, 8, 9, 16, 23, 33, 64} {
			const width = 300 // elements a cache row, the keys at an offset
			k32, v32 := randVec(r, nrows*width), randVec(r, nrows*width)
			k16, v16 := make([]uint16, len(k32)), make([]uint16, len(v32))
			for i := range k32 {
				k16[i], v16[i] = ggml.F32ToF16(k32[i]), ggml.F32ToF16(v32[i])
			}
			q, w := randVec(r, hd), randVec(r, nrows)
			const off = 5
			want16, want32 := make([]float32, nrows), make([]float32, nrows)
			for j := range nrows {
				want32[j] = dot(k32[j*width+off:][:hd], q)
				want16[j] = dotF16(k16[j*width+off:][:hd], q)
			}
			got := make([]float32, nrows)
			dotsF32SIMD(&got[0], &q[0], &k32[off], 4*width, nrows, hd)
			assertClose(t, want32, got, 1e-5, fmt.Sprintf("dotsF32SIMD hd %d rows %d", hd, nrows))
			dotsF16SIMD(&got[0], &q[0], (*byte)(unsafe.Pointer(&k16[off])), 2*width, nrows, hd)
			assertClose(t, want16, got, 1e-5, fmt.Sprintf("dotsF16SIMD hd %d rows %d", hd, nrows))
			if haveAVX512 && hd%16 == 0 {
				clear(got)
				dotsF16AVX512(&got[0], &q[0], (*byte)(unsafe.Pointer(&k16[off])), 2*width, nrows, hd)
				assertClose(t, want16, got, 1e-5, fmt.Sprintf("dotsF16AVX512 hd %d rows %d", hd, nrows))
			}

			// the kernels add to o: start the sums from the same values
			base := randVec(r, hd)
			sum32, sum16 := append([]float32(nil), base...), append([]float32(nil), base...)
			o := append([]float32(nil), base...)
			for j, x := range w {
				axpy(sum32, x, v32[j*width+off:][:hd])
				axpyF16(sum16, x, v16[j*width+off:][:hd])
			}
			wsumF32SIMD(&o[0], &w[0], &v32[off], 4*width, nrows, hd)
			assertClose(t, sum32, o, 1e-5, fmt.Sprintf("wsumF32SIMD hd %d rows %d", hd, nrows))
			copy(o, base)
			wsumF16SIMD(&o[0], &w[0], (*byte)(unsafe.Pointer(&v16[off])), 2*width, nrows, hd)
			assertClose(t, sum16, o, 1e-5, fmt.Sprintf("wsumF16SIMD hd %d rows %d", hd, nrows))
			if haveAVX512 && hd%16 == 0 {
				copy(o, base)
				wsumF16AVX512(&o[0], &w[0], (*byte)(unsafe.Pointer(&v16[off])), 2*width, nrows, hd)
				assertClose(t, sum16, o, 1e-5, fmt.Sprintf("wsumF16AVX512 hd %d rows %d", hd, nrows))
			}
		}
	}
}

// TestGroupAttentionKernels checks the four- and three-head GQA kernels of
// every set this CPU runs against the portable loops for each head: head
// sizes that take each column step, row counts up to a block's and
// beyond; nothing past a call's heads and rows is written.
func TestGroupAttentionKernels(t *testing.T) {
	sets := []struct {
		name  string
		ok    bool
		hdOf  int // the head sizes it takes: multiples of hdOf
		kern  groupKernels
		heads int
	}{
		{"AVX512", haveAVX512, 16, groupKernels{dots: dotsF16G4AVX512, wsum: wsumF16G4AVX512, rows: 4}, 4},
		{"AVX512 three heads", haveAVX512, 16, groupKernels{dots: dotsF16G3AVX512, wsum: wsumF16G3AVX512, rows: 4}, 3},
		{"AVX2", haveX86SIMD, 8, groupKernels{dots: dotsF16G4AVX2, wsum: wsumF16G4AVX2, rows: 2}, 4},
		{"AVX2 three heads", haveX86SIMD, 8, groupKernels{dots: dotsF16G3AVX2, wsum: wsumF16G3AVX2, rows: 2}, 3},
	}
	ran := 0
	r := rand.New(rand.NewPCG(43, 44))
	for _, set := range sets {
		if !set.ok {
			continue
		}
		ran++
		for _, hd := range []int{8, 16, 24, 48, 64, 80, 128, 136, 256} {
			if hd%set.hdOf != 0 {
				continue
			}
			for _, nrows := range []int{1, 2, 3, 4, 8, 20, 64, 68} {
				const width, off = 300, 5
				k16, v16 := make([]uint16, nrows*width), make([]uint16, nrows*width)
				for i := range k16 {
					k16[i], v16[i] = ggml.F32ToF16(r.Float32()*2-1), ggml.F32ToF16(r.Float32()*2-1)
				}
				q := randVec(r, set.heads*hd)
				const sstride = 70 // floats between the heads' scores
				if nrows%set.kern.rows == 0 {
					got := make([]float32, 4*sstride+1)
					set.kern.dots(&got[0], &q[0], (*byte)(unsafe.Pointer(&k16[off])), 2*width, nrows, hd, 4*sstride)
					require.Zero(t, got[set.heads*sstride], "%s dots hd %d rows %d: a score past the heads", set.name, hd, nrows)
					for h := range set.heads {
						want := make([]float32, nrows)
						for j := range nrows {
							want[j] = dotF16(k16[j*width+off:][:hd], q[h*hd:(h+1)*hd])
						}
						assertClose(t, want, got[h*sstride:][:nrows], 1e-5, fmt.Sprintf("%s dots head %d hd %d rows %d", set.name, h, hd, nrows))
						// nothing past the rows is written
						require.Zero(t, got[h*sstride+nrows], "%s dots head %d hd %d rows %d", set.name, h, hd, nrows)
					}
				}
				w := randVec(r, 4*sstride)
				base := randVec(r, 4*hd)
				o := append([]float32(nil), base...)
				set.kern.wsum(&o[0], &w[0], (*byte)(unsafe.Pointer(&v16[off])), 2*width, nrows, hd, 4*sstride)
				require.Equal(t, base[set.heads*hd:], o[set.heads*hd:], "%s wsum hd %d rows %d: an output past the heads", set.name, hd, nrows)
				for h := range set.heads {
					want := append([]float32(nil), base[h*hd:(h+1)*hd]...)
					for j := range nrows {
						axpyF16(want, w[h*sstride+j], v16[j*width+off:][:hd])
					}
					assertClose(t, want, o[h*hd:(h+1)*hd], 1e-5, fmt.Sprintf("%s wsum head %d hd %d rows %d", set.name, h, hd, nrows))
				}
			}
		}
	}
	if ran == 0 {
		t.Skip("no group kernels on this CPU (AVX-512 or AVX2)")
	}
}

// TestWsumQuantized checks the quantized weighted sums of value rows,
// added to the outputs' values, against dequantized rows summed in
// float64, over row counts and block counts.
func TestWsumQuantized(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0} {
		for _, nb := range []int{1, 2, 4} {
			for _, nrows := range []int{1, 3, 17} {
				cols := nb * qk
				v, vstride := cacheRows(t, r, typ, nrows, nb, 5)
				s := randFloats(r, nrows, 1)
				base := randFloats(r, cols, 1) // the kernels add to o
				want := make([]float64, cols)
				for i, x := range base {
					want[i] = float64(x)
				}
				var mag float64
				row := make([]float32, cols)
				for j := range nrows {
					require.NoError(t, ggml.DequantizeRow(typ, v[j*vstride:], row))
					for i, x := range row {
						want[i] += float64(s[j]) * float64(x)
						mag = max(mag, math.Abs(float64(s[j])*float64(x)))
					}
				}
				got := append([]float32(nil), base...)
				if typ == ggml.Q8_0 {
					wsumQ8_0SIMD(&got[0], &s[0], &v[0], vstride, nrows, nb)
				} else {
					wsumQ4_0SIMD(&got[0], &s[0], &v[0], vstride, nrows, nb)
				}
				for i := range got {
					require.InDelta(t, want[i], got[i], 1e-6*mag*float64(nrows), "%s nb=%d rows=%d element %d", typ, nb, nrows, i)
				}
			}
		}
	}
}

// TestGroupQuantizedKernels checks the AVX-512 group kernels over Q8_0
// and Q4_0 caches, three and four heads. The value sums, against each
// head's dequantized rows summed in float64 onto its outputs, for block
// counts that take each column step (one and two blocks) and row counts
// past a block's; outputs past the call's heads are left as they were.
// With VNNI, the scores (queries packed by packGroupQuery), against the
// float64 products of each head's Q8_0 query values with the dequantized
// keys, for head sizes of one to four chunks and row counts in fours;
// nothing past the call's heads and rows is written.
func TestGroupQuantizedKernels(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 group kernels on this CPU or build")
	}
	sets := []struct {
		typ   ggml.DType
		heads int
		wsum  func(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
		dots  func(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
	}{
		{ggml.Q8_0, 4, wsumQ8_0G4AVX512, dotsQ8_0G4VNNI}, {ggml.Q8_0, 3, wsumQ8_0G3AVX512, dotsQ8_0G3VNNI},
		{ggml.Q4_0, 4, wsumQ4_0G4AVX512, dotsQ4_0G4VNNI}, {ggml.Q4_0, 3, wsumQ4_0G3AVX512, dotsQ4_0G3VNNI},
	}
	r := rand.New(rand.NewPCG(45, 46))
	for _, set := range sets {
		for _, nb := range []int{1, 2, 3, 4, 8} {
			for _, nrows := range []int{1, 3, 17, 64} {
				hd := nb * qk
				v, vstride := cacheRows(t, r, set.typ, nrows, nb, 5)
				const wstride = 70 // floats between the heads' weights
				w := randFloats(r, 4*wstride, 1)
				base := randFloats(r, 4*hd, 1) // the kernels add to o
				got := append([]float32(nil), base...)
				set.wsum(&got[0], &w[0], &v[0], vstride, nrows, hd, 4*wstride)
				require.Equal(t, base[set.heads*hd:], got[set.heads*hd:], "%s G%d nb=%d rows=%d: an output past the heads", set.typ, set.heads, nb, nrows)
				row := make([]float32, hd)
				for h := range set.heads {
					var mag float64
					want := make([]float64, hd)
					for i, x := range base[h*hd : (h+1)*hd] {
						want[i] = float64(x)
					}
					for j := range nrows {
						require.NoError(t, ggml.DequantizeRow(set.typ, v[j*vstride:], row))
						for i, x := range row {
							p := float64(w[h*wstride+j]) * float64(x)
							want[i] += p
							mag = max(mag, math.Abs(p))
						}
					}
					for i := range hd {
						require.InDelta(t, want[i], got[h*hd+i], 1e-6*mag*float64(nrows)+1e-6, "%s G%d head %d nb=%d rows=%d element %d", set.typ, set.heads, h, nb, nrows, i)
					}
				}
			}
		}
	}
	if !haveVNNI {
		t.Log("no VNNI: the group scores are not checked")
		return
	}
	r = rand.New(rand.NewPCG(47, 48))
	for _, set := range sets {
		for _, hd := range []int{64, 128, 192, 256} {
			for _, nrows := range []int{4, 8, 16, 68} {
				nb := hd / qk
				k, kstride := cacheRows(t, r, set.typ, nrows, nb, 7)
				qbytes := groupQueryBytes(hd)
				qg := make([]byte, 4*qbytes)
				qv := make([][]float32, set.heads) // the queries' Q8_0 values
				for h := range set.heads {
					qb := make([]byte, nb*ggml.Q8_0.TypeSize())
					require.NoError(t, ggml.Quantize(ggml.Q8_0, randFloats(r, hd, 1), qb))
					packGroupQuery(qg[h*qbytes:][:qbytes], qb, set.typ)
					qv[h] = make([]float32, hd)
					require.NoError(t, ggml.DequantizeRow(ggml.Q8_0, qb, qv[h]))
				}
				const sstride = 70 // floats between the heads' scores
				got := make([]float32, 4*sstride+1)
				set.dots(&got[0], &qg[0], &k[0], kstride, nrows, hd, 4*sstride)
				require.Zero(t, got[set.heads*sstride], "%s G%d hd %d rows %d: a score past the heads", set.typ, set.heads, hd, nrows)
				row := make([]float32, hd)
				for h := range set.heads {
					for j := range nrows {
						require.NoError(t, ggml.DequantizeRow(set.typ, k[j*kstride:], row))
						var want, mag float64
						for i, x := range row {
							p := float64(x) * float64(qv[h][i])
							want += p
							mag += math.Abs(p)
						}
						require.InDelta(t, want, got[h*sstride+j], 1e-6*mag+1e-6, "%s G%d head %d hd %d rows %d: row %d", set.typ, set.heads, h, hd, nrows, j)
					}
					require.Zero(t, got[h*sstride+nrows], "%s G%d head %d hd %d rows %d: a score past the rows", set.typ, set.heads, h, hd, nrows)
				}
			}
		}
	}
}

// TestDotsQuantized checks the attention score kernels over a quantized
// cache (four rows reduced together, then single rows) against the float64
// products of the dequantized keys and the query's Q8_0 values, for row
// counts around the four-row step and block counts of head sizes 32-128.
func TestDotsQuantized(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0} {
		for _, nb := range []int{1, 2, 4} {
			for _, nrows := range []int{1, 3, 4, 5, 8, 11} {
				cols := nb * qk
				k, kstride := cacheRows(t, r, typ, nrows, nb, 7)
				q := randFloats(r, cols, 1)
				qb := make([]byte, nb*ggml.Q8_0.TypeSize())
				require.NoError(t, ggml.Quantize(ggml.Q8_0, q, qb))
				qa := make([]byte, nb*sizeQ8a)
				q8aFromQ8_0(qa, qb)
				qv := make([]float32, cols)
				require.NoError(t, ggml.DequantizeRow(ggml.Q8_0, qb, qv))
				got := make([]float32, nrows)
				if typ == ggml.Q8_0 {
					dotsQ8_0SIMD(&got[0], &qa[0], &k[0], kstride, nrows, nb)
				} else {
					dotsQ4_0SIMD(&got[0], &qa[0], &k[0], kstride, nrows, nb)
				}
				row := make([]float32, cols)
				for j := range nrows {
					require.NoError(t, ggml.DequantizeRow(typ, k[j*kstride:], row))
					var want, mag float64
					for i, x := range row {
						want += float64(x) * float64(qv[i])
						mag += math.Abs(float64(x) * float64(qv[i]))
					}
					require.InDelta(t, want, got[j], 1e-5*mag+1e-6, "%s nb=%d rows=%d row %d", typ, nb, nrows, j)
				}
			}
		}
	}
}

// cacheRows returns nrows random rows of nb blocks of typ, pad bytes apart
// beyond their blocks (a cache's rows hold every head, so a head's rows
// are not packed), and the stride.
func cacheRows(t *testing.T, r *rand.Rand, typ ggml.DType, nrows, nb, pad int) ([]byte, int) {
	rb := nb * typ.TypeSize()
	stride := rb + pad
	buf := make([]byte, nrows*stride)
	w := randWeight(t, r, typ, nrows, nb*qk)
	for j := range nrows {
		copy(buf[j*stride:], w.Data[j*rb:(j+1)*rb])
	}
	return buf, stride
}
