package native

import (
	"fmt"
	"github.com/stretchr/testify/require"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/litert-go/litert-go/models/ggml"
)

// benchShapes are two layers of small models, the FFN down projections of
// SmolLM2-135M (1536 → 576) and Qwen2.5-0.5B (4864 → 896): Rows = output
// features, Cols = input features (multiples of 256, so every K-quant
// applies), and SmolLM2's tied output head, which no cache holds.
var benchShapes = []struct {
	name       string
	rows, cols int
}{
	{"576x1536", 576, 1536},
	{"896x4864", 896, 4864},
	{"49152x576", 49152, 576}, // SmolLM2's output head: larger than the caches
}

// BenchmarkMatMul reports, per weight type, shape and batch, the native
// kernels against the pure-Go twin: MB/s is weight bytes streamed per second
// (SetBytes counts one pass over the weights per call), tok/s the tokens
// of that layer multiplied per second and cpu-tok/s per second of the
// process's CPU time (the steadier measure on a shared machine).
//
// LITERT_BENCH_THREADS sets the thread count (default: every core); with 1,
// `perf stat -e task-clock` gives a measure that other processes on the
// machine disturb less. LITERT_BENCH_ISA picks a kernel set (default: the
// best).
func BenchmarkMatMul(b *testing.B) {
	threads := runtime.NumCPU()
	if n, err := strconv.Atoi(os.Getenv("LITERT_BENCH_THREADS")); err == nil && n > 0 {
		threads = n
	}
	backends := []Backend{NewGo(threads)}
	// LITERT_BENCH_ISA picks a kernel set other than the best
	if c, err := LoadCPUWith(CPUOptions{Threads: threads, ISA: os.Getenv("LITERT_BENCH_ISA")}); err == nil {
		backends = append(backends, c)
	} else {
		b.Logf("native library not loaded, benchmarking pure Go only: %v", err)
	}
	defer func() {
		for _, be := range backends {
			be.Close()
		}
	}()
	r := rand.New(rand.NewPCG(1, 1))
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.F16, ggml.BF16, ggml.F32} {
		for _, s := range benchShapes {
			if s.cols%typ.BlockSize() != 0 {
				continue // K-quant rows are whole 256-element blocks
			}
			// quantize inside the sub-benchmark so -bench filters skip it
			b.Run(typ.String()+"/"+s.name, func(b *testing.B) {
				w := randWeight(b, r, typ, s.rows, s.cols)
				// the layout a private load gives backends with the kernels
				var wi Weight
				if CanInterleave(w) {
					var err error
					wi, err = Interleave16(Weight{Type: w.Type, Rows: w.Rows, Cols: w.Cols, Data: append([]byte(nil), w.Data...)})
					require.NoError(b, err)
				}
				for _, batch := range []int{1, 64} {
					x := randFloats(r, batch*s.cols, 1)
					out := make([]float32, batch*s.rows)
					for _, be := range backends {
						run := func(name string, w Weight) {
							b.Run(fmt.Sprintf("b%d/%s%s", batch, be.Name(), name), func(b *testing.B) {
								b.SetBytes(int64(len(w.Data)))
								cpu0 := cpuTime()
								for b.Loop() {
									be.MatMul(out, w, x, batch)
								}
								b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "tok/s")
								if d := cpuTime() - cpu0; d > 0 {
									b.ReportMetric(float64(batch*b.N)/d.Seconds(), "cpu-tok/s")
								}
							})
						}
						run("", w)
						if ib, ok := be.(Interleaver); ok && wi.Data != nil && ib.Interleaves(typ) {
							run("/interleaved", wi)
						}
					}
				}
			})
		}
	}
}

// BenchmarkCallOverhead measures one purego call into the library
// (lrt_abi_version, which does nothing) and one empty operation through the
// pool (a zero-row MatMul returns before taking the pool lock; a one-float
// Softmax takes it).
func BenchmarkCallOverhead(b *testing.B) {
	c, err := LoadCPU(1)
	if err != nil {
		b.Skipf("native library not built: %v", err)
	}
	defer c.Close()
	fn, err := purego.Dlsym(c.lib.handle, "lrt_abi_version")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("abi_version", func(b *testing.B) {
		for b.Loop() {
			purego.SyscallN(fn)
		}
	})
	x := []float32{1}
	b.Run("softmax1", func(b *testing.B) {
		for b.Loop() {
			c.Softmax(x)
		}
	})
}

// BenchmarkAttend times attention of SmolLM2's shape (9 query heads over 3
// cache heads of 64) at context 512: one decode token, and 64- and
// 512-token prefill batches ending there; and at depth 4096 one decode
// token and a 512-token batch. The Go backend runs twice for batches: in
// tiles (go) and row by row (go-rows, noTiles).
func BenchmarkAttend(b *testing.B) {
	threads := runtime.NumCPU()
	g, rows := NewGo(threads), NewGo(threads)
	defer g.Close()
	defer rows.Close()
	rows.noTiles = true
	type named struct {
		name string
		be   Backend
	}
	backends := []named{{"go", g}, {"go-rows", rows}}
	for _, c := range loadCPUsOrNil(b, threads) { // every kernel set, closed at cleanup
		backends = append(backends, named{c.Name(), c})
	}
	a := Attention{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125}
	r := rand.New(rand.NewPCG(2, 2))
	// a 512-token context decoded and prefilled, and decode at depth 4096
	// (llama-bench -d 4096) over every cache type
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.Q8_0, ggml.Q4_0} {
		for _, ctx := range []int{512, 4096} {
			cache, err := NewKVCache(typ, ctx, 3*64)
			if err != nil {
				b.Fatal(err)
			}
			g.StoreKV(cache, 0, randFloats(r, ctx*192, 1), randFloats(r, ctx*192, 1), ctx)
			for _, ntok := range []int{1, 64, 512} {
				if ctx > 512 && ntok == 64 {
					continue
				}
				q := randFloats(r, ntok*9*64, 1)
				out := make([]float32, len(q))
				for _, be := range backends {
					if ntok == 1 && be.name == "go-rows" {
						continue // decode takes no tiles
					}
					b.Run(fmt.Sprintf("%s/ctx%d/b%d/%s", typ, ctx, ntok, be.name), func(b *testing.B) {
						for b.Loop() {
							be.be.Attend(out, q, cache, ctx-ntok, ntok, a)
						}
						b.ReportMetric(float64(ntok*b.N)/b.Elapsed().Seconds(), "tok/s")
					})
				}
			}
		}
	}
}
