package native

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkMatMulStream times decode products as a decode step streams its
// weights: 24 interleaved 2048×2048 matrices of each type (48-216 MB, far
// past the caches) multiplied in turn by one token on 1 and 2 threads, so
// every weight comes from memory; MB/s is weight bytes a second. "probe"
// is the read MeasureReadBandwidth makes, over a buffer of the same size,
// the bound those rates meet. LITERT_BENCH_ISA picks the C kernel set.
func BenchmarkMatMulStream(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	const n, size = 24, 2048
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS, ggml.F16} {
		b.Run(typ.String(), func(b *testing.B) {
			var ws []Weight
			for range n {
				w, err := Interleave16(randWeight(b, r, typ, size, size))
				if err != nil {
					b.Fatal(err)
				}
				ws = append(ws, w)
			}
			x := randFloats(r, size, 1)
			out := make([]float32, size)
			buf := make([]byte, n*len(ws[0].Data))
			for i := range buf {
				buf[i] = byte(i)
			}
			for _, threads := range []int{1, 2} {
				backends := []Backend{NewGo(threads)}
				if c, err := LoadCPUWith(CPUOptions{Threads: threads, ISA: os.Getenv("LITERT_BENCH_ISA")}); err == nil {
					backends = append(backends, c)
				}
				for _, be := range backends {
					b.Run(fmt.Sprintf("%s/t%d", be.Name(), threads), func(b *testing.B) {
						b.SetBytes(int64(n * len(ws[0].Data)))
						for b.Loop() {
							for _, w := range ws {
								be.MatMul(out, w, x, 1)
							}
						}
					})
					be.Close()
				}
				b.Run(fmt.Sprintf("probe/t%d", threads), func(b *testing.B) {
					b.SetBytes(int64(len(buf)))
					for b.Loop() {
						readGo(buf, threads)
					}
				})
			}
		})
	}
}
