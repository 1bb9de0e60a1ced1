package native

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// Tolerances (NMSE) of the element-wise ops against the Go twin: the same
// float32 formulas, with libm's expf/tanhf/cos/sin instead of Go's math.
const (
	tolNorm = 1e-12
	tolRoPE = 1e-12
	tolAct  = 1e-11
	tolAttn = 1e-10
)

func TestCPURMSNormMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range cpuKernelSets(t, 2) {
		for n := 1; n < 40; n++ {
			for _, rows := range []int{1, 3} {
				x := randFloats(r, rows*n, 3)
				for _, weight := range [][]float32{nil, randFloats(r, n, 1)} {
					want := make([]float32, len(x))
					ref.RMSNorm(want, x, weight, n, 1e-6)
					got := make([]float32, len(x))
					c.RMSNorm(got, misalignF(x), weight, n, 1e-6)
					require.LessOrEqual(t, nmse(got, want), tolNorm, "%s n=%d rows=%d weight=%v", c.ISA(), n, rows, weight != nil)
					// in place
					in := slices.Clone(x)
					c.RMSNorm(in, in, weight, n, 1e-6)
					require.Equal(t, got, in, "in place")
				}
			}
		}
	}
	// wide rows of many tokens split over threads
	c := cpuKernelSets(t, 2)[0]
	x := randFloats(r, 64*896, 2)
	want, got := make([]float32, len(x)), make([]float32, len(x))
	w := randFloats(r, 896, 1)
	ref.RMSNorm(want, x, w, 896, 1e-5)
	c.RMSNorm(got, x, w, 896, 1e-5)
	require.LessOrEqual(t, nmse(got, want), tolNorm)
}

func TestCPURoPEMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range cpuKernelSets(t, 2) {
		for _, neox := range []bool{false, true} {
			for _, hd := range []int{2, 8, 32, 64, 128} {
				for _, dim := range []int{hd, hd / 2} {
					if dim%2 != 0 || dim == 0 {
						continue
					}
					rope := NewRoPE(dim, 10000, 1, nil, neox)
					for _, pos0 := range []int{0, 7, 100000} {
						x := randFloats(r, 5*3*hd, 1)
						want, got := slices.Clone(x), misalignF(x)
						ref.RoPE(want, 3, hd, pos0, 5, rope)
						c.RoPE(got, 3, hd, pos0, 5, rope)
						require.LessOrEqual(t, nmse(got, want), tolRoPE, "%s neox=%v hd=%d dim=%d pos0=%d", c.ISA(), neox, hd, dim, pos0)
					}
				}
			}
		}
	}
}

func TestCPUGatesAndSoftmaxMatchGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range cpuKernelSets(t, 2) {
		for _, n := range []int{0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 40000} {
			// odd sizes take gates far out, where e^-gate overflows
			// (the SIMD exp's clamps) or underflows
			gateScale := float32(6)
			if n%2 == 1 {
				gateScale = 120
			}
			gate, up := randFloats(r, n, gateScale), randFloats(r, n, 2)
			for _, op := range []struct {
				name   string
				native func(g, u []float32)
				twin   func(g, u []float32)
			}{
				{"SwiGLU", c.SwiGLU, ref.SwiGLU},
				{"GeGLU", c.GeGLU, ref.GeGLU},
			} {
				want, got := slices.Clone(gate), misalignF(gate)
				op.twin(want, up)
				op.native(got, up)
				require.LessOrEqual(t, nmse(got, want), tolAct, "%s %s n=%d", c.ISA(), op.name, n)
			}
			x := randFloats(r, n, 20)
			want, got := slices.Clone(x), misalignF(x)
			ref.Softmax(want)
			c.Softmax(got)
			require.LessOrEqual(t, nmse(got, want), tolAct, "%s Softmax n=%d", c.ISA(), n)
		}
	}
}

func TestCPUAttendMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(17, 18))
	cases := []Attention{
		{NHeads: 1, NKVHeads: 1, HeadDim: 8},
		{NHeads: 4, NKVHeads: 2, HeadDim: 16},
		{NHeads: 9, NKVHeads: 3, HeadDim: 64},
		// the AVX-512 value sums take 64 elements a pass, then 16 (and 8)
		{NHeads: 6, NKVHeads: 2, HeadDim: 96},
		{NHeads: 2, NKVHeads: 1, HeadDim: 136},
		// groups past four (Qwen2.5's 7, and 5): the AVX-512 scores take
		// a group's heads four at a time, then the rest
		{NHeads: 14, NKVHeads: 2, HeadDim: 64},
		{NHeads: 5, NKVHeads: 1, HeadDim: 32},
		{NHeads: 4, NKVHeads: 1, HeadDim: 33, Window: 5},
		{NHeads: 2, NKVHeads: 2, HeadDim: 24, SoftCap: 5},
		// gpt-oss's attention sinks, around the scores' size and far
		// above them, with and without a window
		{NHeads: 4, NKVHeads: 2, HeadDim: 32, Sinks: []float32{-1, 0.5, 3, 12}},
		{NHeads: 8, NKVHeads: 1, HeadDim: 64, Window: 16, Sinks: []float32{0, 1, 2, -3, 4, 0.25, 20, -20}},
		// a non-causal media batch, with windows shorter and longer than
		// the batch
		{NHeads: 4, NKVHeads: 2, HeadDim: 32, NonCausal: true},
		{NHeads: 4, NKVHeads: 1, HeadDim: 33, Window: 5, NonCausal: true},
		{NHeads: 8, NKVHeads: 2, HeadDim: 64, Window: 120, SoftCap: 5, NonCausal: true},
	}
	for _, c := range cpuKernelSets(t, 2) {
		for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.Q8_0, ggml.Q4_0} {
			for _, a := range cases {
				if CheckKVType(typ, a.HeadDim) != nil {
					continue // heads that are not whole blocks
				}
				a.Scale = float32(1 / math.Sqrt(float64(a.HeadDim)))
				width := a.NKVHeads * a.HeadDim
				cache, err := NewKVCache(typ, 300, width)
				require.NoError(t, err)
				// fill 290 positions, then attend with batches ending there
				ref.StoreKV(cache, 0, randFloats(r, 290*width, 2), randFloats(r, 290*width, 1), 290)
				for _, b := range [][2]int{{0, 1}, {0, 7}, {12, 1}, {200, 90}, {289, 1}} {
					pos0, ntok := b[0], b[1]
					q := randFloats(r, ntok*a.NHeads*a.HeadDim, 2)
					want := make([]float32, len(q))
					got := make([]float32, len(q))
					ref.Attend(want, q, cache, pos0, ntok, a)
					c.Attend(got, misalignF(q), cache, pos0, ntok, a)
					require.True(t, finite(got))
					require.LessOrEqual(t, nmse(got, want), tolAttn, "%s %s %+v pos0=%d ntok=%d", c.ISA(), typ, a, pos0, ntok)
				}
			}
		}
	}
}

// TestCPUEltwiseMatchesGo checks the residual add, bias add and scale of
// the C kernels against the Go twin bit for bit (one float32 operation per
// element, no reassociation), and the twin against the formula, on sizes
// below and above the threshold where the pool splits the work.
func TestCPUEltwiseMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(19, 20))
	for _, c := range cpuKernelSets(t, 2) {
		for _, n := range []int{0, 1, 7, 8, 33, 896, 70000} {
			x, y := randFloats(r, n, 3), randFloats(r, n, 3)
			want, got := slices.Clone(y), misalignF(y)
			ref.Add(want, x)
			c.Add(got, misalignF(x))
			require.Equal(t, want, got, "%s Add n=%d", c.ISA(), n)
			for i := range want {
				require.Equal(t, y[i]+x[i], want[i], "Go Add n=%d i=%d", n, i)
			}

			k := 0.125 + r.Float32()
			want, got = slices.Clone(y), misalignF(y)
			ref.Scale(want, k)
			c.Scale(got, k)
			require.Equal(t, want, got, "%s Scale n=%d", c.ISA(), n)
			for i := range want {
				require.Equal(t, y[i]*k, want[i], "Go Scale n=%d i=%d", n, i)
			}
		}
		for _, shape := range [][2]int{{1, 1}, {3, 7}, {64, 896}, {200, 1000}} {
			rows, n := shape[0], shape[1]
			x, bias := randFloats(r, rows*n, 3), randFloats(r, n, 1)
			want, got := slices.Clone(x), misalignF(x)
			ref.AddRows(want, bias)
			c.AddRows(got, misalignF(bias))
			require.Equal(t, want, got, "%s AddRows %d×%d", c.ISA(), rows, n)
			for i := range want {
				require.Equal(t, x[i]+bias[i%n], want[i], "Go AddRows %d×%d i=%d", rows, n, i)
			}
		}
		require.Panics(t, func() { c.AddRows(make([]float32, 10), make([]float32, 3)) }, "rows of 3 do not tile 10")
		require.Panics(t, func() { c.Add(make([]float32, 10), make([]float32, 3)) })
	}
}

// TestEmbedMatchesDequantize checks the embedding lookup of both backends
// against ggml.Dequantize of the whole matrix, for float and quantized
// rows.
func TestEmbedMatchesDequantize(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	backends := []Backend{ref}
	if c, err := LoadCPU(1); err == nil {
		defer c.Close()
		backends = append(backends, c)
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_K, ggml.Q6_K} {
		w := randWeight(t, r, typ, 50, 256)
		all := make([]float32, 50*256)
		require.NoError(t, ggml.Dequantize(typ, w.Data, all))
		ids := []int32{49, 0, 7, 7, 31}
		for _, b := range backends {
			out := make([]float32, len(ids)*256)
			b.Embed(out, w, ids)
			odd := w
			odd.Data = misalign(w.Data, 1)
			outOdd := make([]float32, len(out))
			b.Embed(outOdd, odd, ids)
			require.Equal(t, out, outOdd, "%s %s rows at an odd address", b.Name(), typ)
			for i, id := range ids {
				require.Equal(t, all[int(id)*256:int(id+1)*256], out[i*256:(i+1)*256], "%s %s row %d", b.Name(), typ, id)
			}
			require.Panics(t, func() { b.Embed(out, w, []int32{50}) }, "row out of range")
		}
	}
}
