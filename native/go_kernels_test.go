package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// kernelTypes are the weight types with SIMD kernels, plus one without
// (which take the generic path) to check the dispatch.
var kernelTypes = []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q4_1,
	ggml.Q5_1, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_K, ggml.Q2_K, ggml.Q3_K, ggml.IQ4_NL, ggml.IQ4_XS}

// kernelLens are row lengths for a type: every length up to 40 and a few
// odd ones for float types (the kernels take 32, then 8 at a time, then a
// scalar tail), 1 to 5 and 17 blocks and for quantized ones (17 K-quant
// super-blocks span two scale chunks).
func kernelLens(t ggml.DType) []int {
	bs := t.BlockSize()
	if bs == 1 {
		var n []int
		for i := 1; i <= 40; i++ {
			n = append(n, i)
		}
		return append(n, 63, 64, 65, 576, 1000)
	}
	return []int{bs, 2 * bs, 3 * bs, 4 * bs, 5 * bs, 17 * bs}
}

// TestDotRowMatchesGgml checks the kernels against ggml.Dot, the pure-Go
// reference, over lengths and misaligned rows and activations: the sums
// may differ only by float32 rounding in another order.
func TestDotRowMatchesGgml(t *testing.T) {
	t.Logf("SIMD kernels: %v", haveSIMD)
	r := rand.New(rand.NewPCG(9, 9))
	for _, typ := range kernelTypes {
		for _, n := range kernelLens(typ) {
			w := randWeight(t, r, typ, 1, n)
			x := randFloats(r, n, 2)
			deq := make([]float32, n)
			require.NoError(t, ggml.DequantizeRow(typ, w.Data, deq))
			var mag float64
			for i := range x {
				mag += math.Abs(float64(deq[i]) * float64(x[i]))
			}
			want := ggml.Dot(typ, w.Data, x)
			for off := range 3 {
				xm := x
				if off > 0 {
					xm = misalignF(x)
				}
				got := dotRow(typ, misalign(w.Data, off), xm)
				require.InDelta(t, want, got, 1e-6*mag+1e-7, "%s n=%d offset %d", typ, n, off)
			}
			got := make([]float32, n)
			require.NoError(t, dequantRow(typ, misalign(w.Data, 1), got))
			require.Equal(t, deq, got, "%s n=%d: dequantRow", typ, n)
		}
	}
}

// TestDotF32x4 checks the 4-token tile against four single dot products.
func TestDotF32x4(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 7, 8, 9, 16, 17, 31, 32, 33, 576, 1000} {
		for _, stride := range []int{n, n + 3} {
			w := randFloats(r, n, 1)
			x := misalignF(randFloats(r, 3*stride+n, 1))
			var got [4]float32
			dotF32x4(w, x, stride, &got)
			for i := range 4 {
				var want, mag float64
				for k := range n {
					want += float64(w[k]) * float64(x[i*stride+k])
					mag += math.Abs(float64(w[k]) * float64(x[i*stride+k]))
				}
				require.InDelta(t, want, got[i], 1e-6*mag, "n=%d stride %d token %d", n, stride, i)
			}
		}
	}
}

// TestDotF16s checks the F16 cache dot product against the scalar one.
func TestDotF16s(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 8, 15, 64, 100} {
		a := make([]uint16, n)
		x := randFloats(r, n, 1)
		for i := range a {
			a[i] = ggml.F32ToF16(float32(r.NormFloat64()))
		}
		want := dotF16(a, x)
		require.InDelta(t, want, dotF16s(a, x), 1e-5*float64(n), "n=%d", n)
	}
}

// TestDotF32r2x4 checks the 2-row × 4-token tile against plain dot products.
func TestDotF32r2x4(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{1, 7, 8, 9, 16, 17, 31, 32, 33, 576, 1000} {
		for _, stride := range []int{n, n + 5} {
			w := misalignF(randFloats(r, stride+n, 1))
			x := misalignF(randFloats(r, 3*stride+n, 1))
			var got [8]float32
			dotF32r2x4(w, x, n, stride, &got)
			for row := range 2 {
				for i := range 4 {
					var want, mag float64
					for k := range n {
						p := float64(w[row*stride+k]) * float64(x[i*stride+k])
						want += p
						mag += math.Abs(p)
					}
					require.InDelta(t, want, got[4*row+i], 1e-6*mag, "n=%d stride %d row %d token %d", n, stride, row, i)
				}
			}
		}
	}
}

// TestDotRowsF16 checks decode's F16 row-loop kernels (AVX2 and, where
// the CPU has it, AVX-512) against dotF16 row by row, over row lengths that take each of its steps, rows padded apart,
// and row counts from one up.
func TestDotRowsF16(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{8, 16, 40, 64, 576, 1000} {
		for _, nrows := range []int{1, 3, 17} {
			rs := 2*n + 6 // bytes a row, padded
			w := make([]byte, nrows*rs)
			rows := make([][]uint16, nrows)
			for i := range rows {
				rows[i] = make([]uint16, n)
				for j := range rows[i] {
					h := ggml.F32ToF16(float32(r.NormFloat64()))
					rows[i][j] = h
					w[i*rs+2*j], w[i*rs+2*j+1] = byte(h), byte(h>>8)
				}
			}
			x := randVec(r, n)
			kernels := map[string]func(w *byte, rs, nrows int, x *float32, n int, out *float32){"simd": dotRowsF16SIMD}
			if haveAVX512 {
				kernels["avx512"] = dotRowsF16AVX512
			}
			for name, kernel := range kernels {
				got := make([]float32, nrows)
				kernel(&w[0], rs, nrows, &x[0], n, &got[0])
				for i := range rows {
					want := dotF16(rows[i], x)
					require.InDelta(t, want, got[i], 1e-4*(1+math.Abs(float64(want))), "%s: n %d row %d of %d", name, n, i, nrows)
				}
			}
		}
	}
}
