package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// gemmTypes are the weight types with gemm batch kernels (VNNI, AVX2,
// arm64's SDOT).
var gemmTypes = []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS}

// kernelActs returns the activations x (ntok tokens of cols) as g's
// kernels for weights of type typ multiply them: rounded to q8a blocks for
// the gemm kernels, to the blocks of q8Layout for the other 8-bit kernels,
// else as they are.
func kernelActs(g *Go, typ ggml.DType, cols, ntok int, x []float32) []float32 {
	if ntok >= gemmMinTokens && !g.float && !g.noGemm && hasGemm(typ, cols) {
		return dequantizeQ8(qk, sizeQ8a, quantizeQ8Scalar(qk, sizeQ8a, x[:ntok*cols]))
	}
	if typ == ggml.BF16 && !g.float { // rounded to BF16, as ggml's vec_dot_type
		r := make([]float32, ntok*cols)
		roundBF16(r, x[:ntok*cols])
		return r
	}
	if elems, size, ok := q8Layout(typ); ok && !g.float {
		xq := make([]byte, ntok*cols/elems*size)
		quantizeQ8(typ, xq, x[:ntok*cols])
		return dequantizeQ8(elems, size, xq)
	}
	return x
}

// gemmTestTokens are the batches the gemm tests take: its first six
// (gemmMinTokens on: 4 to 9 on amd64), partial tiles of 4 among them.
var gemmTestTokens = []int{gemmMinTokens, gemmMinTokens + 1, gemmMinTokens + 2, gemmMinTokens + 3, gemmMinTokens + 4, gemmMinTokens + 5}

// gemmRef returns the product of w with the q8a-rounded tokens of x, the
// activations the gemm kernels multiply, summed in float64, and the scale
// of its rounding (Σ|w||x| per result).
func gemmRef(t *testing.T, w Weight, x []float32, ntok int) (want, mag []float64) {
	t.Helper()
	deq := make([]float32, w.Rows*w.Cols)
	require.NoError(t, ggml.Dequantize(w.Type, w.Data, deq))
	want = make([]float64, ntok*w.Rows)
	mag = make([]float64, ntok*w.Rows)
	for tk := range ntok {
		xt := dequantizeQ8(qk, sizeQ8a, quantizeQ8Scalar(qk, sizeQ8a, x[tk*w.Cols:(tk+1)*w.Cols]))
		for r := range w.Rows {
			var s, m float64
			for k, v := range deq[r*w.Cols : (r+1)*w.Cols] {
				p := float64(v) * float64(xt[k])
				s += p
				m += math.Abs(p)
			}
			want[tk*w.Rows+r], mag[tk*w.Rows+r] = s, m
		}
	}
	return want, mag
}

// TestGemmMatchesScalar checks the gemm batch products (VNNI, or AVX2, or
// arm64's SDOT: whichever this CPU and build run) against the float64
// product of the dequantized weights with the q8a-rounded activations, and
// against the C library's batch products where it is built (they round
// the activations alike), over row counts that leave partial groups of 16,
// the first six batches that take the gemm (gemmTestTokens: 4 to 9 on
// amd64, partial tiles of 4), block and super-block multiples of columns,
// weights at odd addresses, and 1 and 3 threads.
func TestGemmMatchesScalar(t *testing.T) {
	if !hasGemm(ggml.Q8_0, qk) {
		t.Skip("no gemm kernels on this CPU (AVX-512 VNNI, AVX2, or arm64 with the dot product)")
	}
	var c *CPU
	if _, err := LoadCPU(1); err == nil {
		c = cpuKernelSets(t, 1)[0]
	}
	r := rand.New(rand.NewPCG(31, 32))
	for _, typ := range gemmTypes {
		cols := []int{32, 96, 576}
		if typ.BlockSize() == qkk {
			cols = []int{256, 512}
		}
		for _, nc := range cols {
			for _, rows := range []int{5, 16, 37} {
				w := randWeight(t, r, typ, rows, nc)
				require.True(t, hasGemm(typ, nc))
				for _, threads := range []int{1, 3} {
					g := NewGo(threads)
					for _, ntok := range gemmTestTokens {
						name := fmt.Sprintf("%s %d×%d, %d threads, %d tokens", typ, rows, nc, threads, ntok)
						x := randFloats(r, ntok*nc, 2)
						want, mag := gemmRef(t, w, x, ntok)
						wm := w
						wm.Data = misalign(w.Data, ntok%2)
						got := make([]float32, ntok*rows)
						g.MatMul(got, wm, x, ntok)
						for i := range got {
							require.InDelta(t, want[i], got[i], 1e-6*mag[i]+1e-6, "%s: result %d", name, i)
						}
						if c != nil {
							cg := make([]float32, ntok*rows)
							c.MatMul(cg, w, x, ntok)
							for i := range got {
								require.InDelta(t, cg[i], got[i], 1e-6*mag[i]+1e-6, "%s: result %d against C", name, i)
							}
						}
					}
					g.Close()
				}
			}
		}
	}
}

// TestGemmOffMatchesOn checks that the float batch path (noGemm, as on
// CPUs without a gemm kernel) and the gemm path agree within the activations'
// rounding (q8K blocks for K-quants on the float path), so turning the
// kernels off changes no result beyond it.
func TestGemmOffMatchesOn(t *testing.T) {
	if !hasGemm(ggml.Q8_0, qk) {
		t.Skip("no gemm kernels on this CPU (AVX-512 VNNI, AVX2, or arm64 with the dot product)")
	}
	r := rand.New(rand.NewPCG(33, 34))
	on, off := NewGo(2), NewGo(2)
	defer on.Close()
	defer off.Close()
	off.noGemm = true
	for _, typ := range gemmTypes {
		w := randWeight(t, r, typ, 40, 512)
		ntok := gemmMinTokens + 3
		x := randFloats(r, ntok*512, 2)
		a, b := make([]float32, ntok*40), make([]float32, ntok*40)
		on.MatMul(a, w, x, ntok)
		off.MatMul(b, w, x, ntok)
		require.LessOrEqual(t, dotErr(t, a, b, w, x, ntok), matmulTol(typ), typ.String())
	}
}

// BenchmarkGemm compares 64-token products of SmolLM2-135M's matrix
// shapes (rows×cols) on one thread: the Go backend's VNNI kernels ("go"),
// its float path ("go-float", the kernels off) and the C library ("c",
// where built). K-quants skip the 576-column shapes (not whole
// super-blocks). tok/s counts tokens through the matrix; cpu-tok/s per
// second of the process's CPU time, the better measure on a loaded machine.
func BenchmarkGemm(b *testing.B) {
	const ntok = 64
	r := rand.New(rand.NewPCG(35, 36))
	var c *CPU
	if _, err := LoadCPU(1); err == nil {
		c = cpuKernelSets(b, 1)[0]
	}
	g, gf := NewGo(1), NewGo(1)
	defer g.Close()
	defer gf.Close()
	gf.noGemm = true
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q4_K, ggml.Q6_K} {
		for _, shape := range [][2]int{{576, 576}, {1536, 576}, {576, 1536}} {
			rows, cols := shape[0], shape[1]
			if cols%typ.BlockSize() != 0 {
				continue
			}
			w := randWeight(b, r, typ, rows, cols)
			x := randFloats(r, ntok*cols, 1)
			out := make([]float32, ntok*rows)
			backends := []struct {
				name string
				b    Backend
			}{{"go", g}, {"go-float", gf}}
			if c != nil {
				backends = append(backends, struct {
					name string
					b    Backend
				}{"c", c})
			}
			for _, k := range backends {
				b.Run(fmt.Sprintf("%s/%dx%d/%s", typ, rows, cols, k.name), func(b *testing.B) {
					cpu0 := cpuTime()
					for b.Loop() {
						k.b.MatMul(out, w, x, ntok)
					}
					b.ReportMetric(float64(ntok*b.N)/b.Elapsed().Seconds(), "tok/s")
					if d := cpuTime() - cpu0; d > 0 {
						b.ReportMetric(float64(ntok*b.N)/d.Seconds(), "cpu-tok/s")
					}
				})
			}
		}
	}
}
