package native

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkAttendCold times decode attention as a decode step meets it:
// SmolLM2's shape (9 query heads over 3 cache heads of 64), 30 layers'
// caches at depth 576, each layer's attention after a read of 5 MB of
// other memory (its weights), so the cache comes from memory rather than
// from the L3 a hot loop (BenchmarkAttend) keeps it in. Only the attention
// calls are timed: ns/layer is one call, GB/s the cache bytes it reads a
// second.
func BenchmarkAttendCold(b *testing.B) {
	const layers, depth, between = 30, 576, 5 << 20
	a := Attention{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125}
	r := rand.New(rand.NewPCG(3, 3))
	weights := make([]byte, layers*between)
	for i := range weights {
		weights[i] = byte(i * 7)
	}
	keys, values := randFloats(r, depth*192, 1), randFloats(r, depth*192, 1)
	q := randFloats(r, 9*64, 1)
	out := make([]float32, len(q))
	for _, typ := range []ggml.DType{ggml.F16, ggml.Q8_0} {
		bytes := float64(2 * depth * 192 * typ.TypeSize() / typ.BlockSize())
		for _, th := range []int{1, runtime.NumCPU()} {
			g := NewGo(th)
			backends := []Backend{g}
			for _, c := range loadCPUsOrNil(b, th) { // every kernel set, closed at cleanup
				backends = append(backends, c)
			}
			for _, be := range backends {
				caches := make([]*KVCache, layers)
				for l := range caches {
					c, err := be.NewKVCache(typ, 4096, 3*64)
					if err != nil {
						b.Fatal(err)
					}
					be.StoreKV(c, 0, keys, values, depth)
					caches[l] = c
				}
				b.Run(fmt.Sprintf("%s/t%d/%s", typ, th, be.Name()), func(b *testing.B) {
					var spent time.Duration
					var sink uint64
					for b.Loop() {
						for l, c := range caches {
							sink ^= readGo(weights[l*between:(l+1)*between], th)
							start := time.Now()
							be.Attend(out, q, c, depth-1, 1, a)
							spent += time.Since(start)
						}
					}
					_ = sink
					calls := float64(b.N * layers)
					b.ReportMetric(float64(spent.Nanoseconds())/calls, "ns/layer")
					b.ReportMetric(bytes*calls/spent.Seconds()/1e9, "GB/s")
				})
			}
			g.Close()
		}
	}
}
