package native

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkMatMulGrouped times one expert projection of a mid-size mixture
// (128 experts of 256×512 Q8_0, 8 per token, Qwen3-30B-A3B's routing at a
// fifth of its width) on the C kernels, as one grouped call against the
// loop of MatMul calls it replaces: decode (8 experts of one row) and a
// 64-token prefill (512 rows over the experts), at 1 and 2 threads, with
// the process's CPU time per call.
func BenchmarkMatMulGrouped(b *testing.B) {
	const nExp, used, rows, cols = 128, 8, 256, 512
	r := rand.New(rand.NewPCG(16, 6))
	ws := make([]Weight, nExp)
	whole := randWeight(b, r, ggml.Q8_0, nExp*rows, cols)
	rs := whole.RowBytes() * rows
	for e := range ws {
		ws[e] = Weight{Type: ggml.Q8_0, Rows: rows, Cols: cols, Data: whole.Data[e*rs : (e+1)*rs]}
	}
	route := func(nTokens int) []int {
		groups := make([]int, nExp)
		for range nTokens {
			for _, e := range r.Perm(nExp)[:used] {
				groups[e]++
			}
		}
		return groups
	}
	for _, threads := range []int{1, 2} {
		cpus := cpuKernelSets(b, threads)
		c := cpus[0]
		for _, nTokens := range []int{1, 64} {
			groups := route(nTokens)
			x := randFloats(r, nTokens*used*cols, 1)
			out := make([]float32, nTokens*used*rows)
			for _, mode := range []string{"grouped", "loop"} {
				b.Run(fmt.Sprintf("threads-%d/tokens-%d/%s", threads, nTokens, mode), func(b *testing.B) {
					cpu0 := cpuTime()
					for range b.N {
						if mode == "grouped" {
							c.MatMulGrouped(out, ws, x, groups)
							continue
						}
						o := 0
						for e, n := range groups {
							c.MatMul(out[o*rows:(o+n)*rows], ws[e], x[o*cols:(o+n)*cols], n)
							o += n
						}
					}
					b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				})
			}
		}
	}
}
