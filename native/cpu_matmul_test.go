package native

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nativeTypes are the weight types the C kernels multiply.
var nativeTypes = []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1,
	ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q2_K, ggml.Q3_K, ggml.IQ4_NL, ggml.IQ4_XS, ggml.MXFP4}

// matmulTol is the largest error (dotErr) accepted against the Go twin
// (ggml.Dot on float activations): float weights differ only in summation
// order; quantized weights also see the 8-bit quantization of the
// activations, as in ggml (test-backend-ops accepts an NMSE of 5e-4 for
// quantized mul_mat).
func matmulTol(t ggml.DType) float64 {
	switch t {
	case ggml.F32, ggml.F16, ggml.BF16:
		return 1e-10
	}
	return 5e-4
}

// colCounts are the row lengths tested for a type: every length in
// [1, 2×16] plus a few longer ones for float types (16 floats is the
// widest unrolled step), 1 to 4 blocks (and 9) for quantized ones.
func colCounts(t ggml.DType) []int {
	bs := t.BlockSize()
	if bs == 1 {
		var n []int
		for i := 1; i <= 32; i++ {
			n = append(n, i)
		}
		return append(n, 47, 64, 130)
	}
	return []int{bs, 2 * bs, 3 * bs, 4 * bs, 9 * bs}
}

// dotErr is the squared error of got against want normalized by the sum of
// the squared products w[r][k]*x[t][k] (not of the squared results, which
// can be tiny by cancellation): the NMSE of the terms the dot products
// add up.
func dotErr(t testing.TB, got, want []float32, w Weight, x []float32, ntok int) float64 {
	t.Helper()
	row := make([]float32, w.Cols)
	rs := w.RowBytes()
	var num, den float64
	for r := range w.Rows {
		require.NoError(t, ggml.DequantizeRow(w.Type, w.Data[r*rs:], row))
		for tok := range ntok {
			for k, v := range row {
				p := float64(v) * float64(x[tok*w.Cols+k])
				den += p * p
			}
			d := float64(got[tok*w.Rows+r]) - float64(want[tok*w.Rows+r])
			num += d * d
		}
	}
	if den == 0 {
		return num
	}
	return num / den
}

func TestCPUMatMulMatchesGo(t *testing.T) {
	cpus := cpuKernelSets(t, 2)
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range cpus {
		for _, typ := range nativeTypes {
			t.Run(c.ISA()+"/"+typ.String(), func(t *testing.T) {
				worst := 0.0
				for _, cols := range colCounts(typ) {
					// {17, 1}: a decode product of two 8-row groups (dec_rows) and a tail row
					for _, shape := range [][2]int{{1, 1}, {17, 1}, {3, 2}, {5, 4}, {17, 5}, {9, 9}, {6, 17}} {
						rows, ntok := shape[0], shape[1]
						w := randWeight(t, r, typ, rows, cols)
						x := randFloats(r, ntok*cols, 2)
						want := make([]float32, ntok*rows)
						ref.MatMul(want, w, x, ntok)
						for off := 0; off < 2; off++ {
							wm := w
							wm.Data = misalign(w.Data, off)
							xm := x
							if off > 0 {
								xm = misalignF(x)
							}
							got := make([]float32, ntok*rows)
							c.MatMul(got, wm, xm, ntok)
							e := dotErr(t, got, want, w, x, ntok)
							worst = max(worst, e)
							require.LessOrEqual(t, e, matmulTol(typ),
								"%s %d×%d, %d tokens, offset %d: got %v want %v", typ, rows, cols, ntok, off, got, want)
						}
					}
				}
				t.Logf("worst NMSE %.3g (tolerance %.0g)", worst, matmulTol(typ))
			})
		}
	}
}

// TestCPUKernelSetsAgree checks every SIMD kernel set against the generic C
// kernels: both quantize activations identically, so only the summation
// order may differ. The exception is the AVX-512 sets' batch kernels (4+
// tokens), which quantize K-quant activations in 32-element blocks instead
// of 256 (finer, so closer to the float product): those get the tolerance
// of the quantized matmul.
func TestCPUKernelSetsAgree(t *testing.T) {
	cpus := cpuKernelSets(t, 1)
	generic := cpus[len(cpus)-1]
	require.Equal(t, "generic", generic.ISA())
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range cpus[:len(cpus)-1] {
		for _, typ := range nativeTypes {
			for _, ntok := range []int{1, 2, 3, 4, 7} {
				cols := 2 * ggml.QKK
				w := randWeight(t, r, typ, 13, cols)
				x := randFloats(r, ntok*cols, 3)
				want := make([]float32, ntok*w.Rows)
				got := make([]float32, ntok*w.Rows)
				generic.MatMul(want, w, x, ntok)
				c.MatMul(got, w, x, ntok)
				tol := 1e-10
				if strings.HasPrefix(c.ISA(), "avx512") && ntok >= 4 && typ.BlockSize() == ggml.QKK {
					tol = matmulTol(typ)
				}
				assert.LessOrEqual(t, nmse(got, want), tol, "%s %s %d tokens", c.ISA(), typ, ntok)
			}
		}
	}
}

// TestCPUMatMulLarge runs shapes that split over threads and chunks (one
// thread: the pool hands it every row at once, more than a chunk), with
// batches that are not a multiple of the 4-token tile (33 and 40 end the
// AVX-512 panels' 12-token tiles with 9 and 4 tokens).
func TestCPUMatMulLarge(t *testing.T) {
	ref := NewGo(2)
	defer ref.Close()
	r := rand.New(rand.NewPCG(5, 6))
	for _, threads := range []int{1, 2} {
		cpu := cpuKernelSets(t, threads)[0]
		for _, typ := range nativeTypes {
			w := randWeight(t, r, typ, 301, 1536)
			for _, ntok := range []int{1, 6, 33, 40} {
				x := randFloats(r, ntok*w.Cols, 1)
				want := make([]float32, ntok*w.Rows)
				ref.MatMul(want, w, x, ntok)
				got := make([]float32, ntok*w.Rows)
				cpu.MatMul(got, w, x, ntok)
				require.LessOrEqual(t, nmse(got, want), matmulTol(typ), "%s %d threads, %d tokens", typ, threads, ntok)
			}
		}
	}
}

func TestCPUMatMulFallback(t *testing.T) {
	c := cpuKernelSets(t, 2)[0]
	r := rand.New(rand.NewPCG(7, 8))
	typ := ggml.Q8_K // a type only the pure-Go kernels multiply
	require.True(t, c.Supports(typ))
	require.False(t, c.nativeType(typ))
	w := randWeight(t, r, typ, 7, 256)
	x := randFloats(r, 2*256, 1)
	want, got := make([]float32, 14), make([]float32, 14)
	NewGo(1).MatMul(want, w, x, 2)
	c.MatMul(got, w, x, 2)
	assert.Equal(t, want, got, "%s goes to the pure-Go kernels unchanged", typ)
	assert.False(t, c.Supports(ggml.IQ2_XXS))
	assert.Panics(t, func() {
		c.MatMul(make([]float32, 1), Weight{Type: ggml.Q8_0, Rows: 1, Cols: 32}, make([]float32, 32), 1)
	},
		"a weight shorter than its shape is a programming error")
}

// TestCPUConcurrent runs matmuls from several goroutines on one backend.
func TestCPUConcurrent(t *testing.T) {
	c := cpuKernelSets(t, 2)[0]
	r := rand.New(rand.NewPCG(9, 10))
	w := randWeight(t, r, ggml.Q4_K, 64, 512)
	x := randFloats(r, 3*512, 1)
	want := make([]float32, 3*64)
	c.MatMul(want, w, x, 3)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float32, 3*64)
			for range 20 {
				c.MatMul(got, w, x, 3)
				for i := range got {
					if got[i] != want[i] {
						errs[g] = fmt.Errorf("goroutine %d: out[%d] = %v, want %v", g, i, got[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}
