package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestGoMatMulPaths checks MatMul against ggml.Dot for every token and row
// over the shapes that exercise its paths: decode (1 to 3 tokens, blocks
// multiplied directly), batches (tiles of 2 rows × 4 tokens, a last odd
// row, leftover tokens, several dequantized row blocks per chunk; the
// VNNI gemm kernels where the CPU has them, and the float tiles with them
// off), weights at odd addresses, and 1 and 3 threads.
func TestGoMatMulPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q4_K, ggml.Q5_K,
		ggml.Q6_K, ggml.Q4_1, ggml.Q5_1, ggml.Q2_K, ggml.Q3_K, ggml.IQ4_NL, ggml.IQ4_XS, ggml.MXFP4} {
		for _, shape := range [][2]int{{3, 256}, {301, 256}, {7, 512}} {
			rows, cols := shape[0], shape[1]
			w := randWeight(t, r, typ, rows, cols)
			rs := w.RowBytes()
			deq := make([]float32, rows*cols)
			require.NoError(t, ggml.Dequantize(typ, w.Data, deq))
			for _, off := range []int{0, 1} {
				wm := w
				wm.Data = misalign(w.Data, off)
				type variant struct {
					threads int
					noGemm  bool
					pairs   bool // BF16 as pair panels, where the CPU has them
				}
				runs := []variant{{1, false, bf16PairsPay}, {3, false, bf16PairsPay}, {1, true, bf16PairsPay}}
				if typ == ggml.BF16 && haveBF16Pairs {
					runs = append(runs, variant{3, false, !bf16PairsPay})
				}
				for _, run := range runs {
					threads := run.threads
					g := NewGo(threads)
					g.noGemm, g.pairsBF16 = run.noGemm, run.pairs
					for _, ntok := range []int{1, 2, 3, 4, 5, 8, 13} {
						name := fmt.Sprintf("%s %d×%d offset %d, %d threads (gemm off %v, BF16 pairs %v), %d tokens", typ, rows, cols, off, threads, run.noGemm, run.pairs, ntok)
						x := randFloats(r, ntok*cols, 2)
						got := make([]float32, ntok*rows)
						g.MatMul(got, wm, x, ntok)
						xa := kernelActs(g, typ, cols, ntok, x) // as the kernels multiply them
						for tk := range ntok {
							xt := xa[tk*cols : (tk+1)*cols]
							for i := range rows {
								row := w.Data[i*rs : (i+1)*rs]
								var mag float64 // Σ|w||x|, the scale of the rounding
								for k, v := range deq[i*cols : (i+1)*cols] {
									mag += math.Abs(float64(v) * float64(xt[k]))
								}
								require.InDelta(t, ggml.Dot(typ, row, xt), got[tk*rows+i], 1e-6*mag+1e-6,
									"%s: token %d row %d", name, tk, i)
							}
						}
					}
					g.Close()
				}
			}
		}
	}
}

// TestGoConcurrentCalls runs MatMul from several goroutines on one backend
// (as sessions do), with more submitters than workers so loops queue and
// helpers arrive late, and checks every result against a one-thread run:
// they are bit-identical, however the rows were split.
func TestGoConcurrentCalls(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	g := NewGo(3)
	defer g.Close()
	ref := NewGo(1)
	defer ref.Close()
	w := randWeight(t, r, ggml.Q8_0, 300, 512)
	const callers, rounds = 6, 20
	xs := make([][]float32, callers)
	wants := make([][]float32, callers)
	for c := range callers {
		ntok := 1 + c%5
		xs[c] = randFloats(r, ntok*w.Cols, 1)
		wants[c] = make([]float32, ntok*w.Rows)
		ref.MatMul(wants[c], w, xs[c], ntok)
	}
	errs := make(chan error, callers)
	for c := range callers {
		go func() {
			ntok := 1 + c%5
			got := make([]float32, ntok*w.Rows)
			for round := range rounds {
				clear(got)
				g.MatMul(got, w, xs[c], ntok)
				for i := range got {
					if got[i] != wants[c][i] {
						errs <- fmt.Errorf("caller %d round %d: element %d is %g, want %g", c, round, i, got[i], wants[c][i])
						return
					}
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range callers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	require.NoError(t, first)
}
