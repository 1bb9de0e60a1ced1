package native_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
	"github.com/stretchr/testify/require"
)

// loadCPU returns the native backend or skips the test.
func loadCPU(t testing.TB, threads int) *native.CPU {
	t.Helper()
	c, err := native.LoadCPU(threads)
	if errors.Is(err, native.ErrUnavailable) {
		t.Skipf("native library not built (run `make native` or set %s): %v", native.LibEnv, err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func openSynth(t testing.TB, shape string, typ ggml.DType) *gguf.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), shape+".gguf")
	require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1, Type: typ}))
	f, err := gguf.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// forward prefills ids in batches of batch tokens, then decodes the last
// nDecode of them one at a time, and returns the final logits.
func forward(t testing.TB, m models.Model, kv ggml.DType, ids []int32, batch, nDecode int) []float32 {
	t.Helper()
	s, err := models.NewState(m, 64, batch, kv)
	require.NoError(t, err)
	logits := make([]float32, m.Params().VocabSize)
	pre := ids[:len(ids)-nDecode]
	for lo := 0; lo < len(pre); lo += batch {
		m.Forward(s, models.Tokens(pre[lo:min(lo+batch, len(pre))]), logits)
	}
	for _, id := range ids[len(pre):] {
		m.Forward(s, models.Tokens([]int32{id}), logits)
	}
	return logits
}

func logitNMSE(got, want []float32) float64 {
	var num, den float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		num += d * d
		den += float64(want[i]) * float64(want[i])
	}
	return num / den
}

// TestCPUForwardMatchesGo runs whole synthetic models of every
// architecture on the native and the pure-Go backends: float weights must
// agree to float noise; quantized ones within the error the 8-bit
// activations add, layer after layer.
func TestCPUForwardMatchesGo(t *testing.T) {
	cpu := loadCPU(t, 2)
	ref := native.NewGo(2)
	defer ref.Close()
	shapes := []string{"tiny-smollm2-135m", "tiny-qwen2.5-0.5b", "tiny-qwen3-0.6b", "tiny-gemma3-270m", "tiny-llama3.2-1b"}
	for _, shape := range shapes {
		for _, tc := range []struct {
			typ ggml.DType
			kv  ggml.DType
			tol float64
		}{
			{ggml.F32, ggml.F32, 1e-8},
			{ggml.F16, ggml.F16, 1e-8},
			{ggml.Q8_0, ggml.F32, 5e-3},
			{ggml.Q5_0, ggml.F32, 5e-3},
			{ggml.Q4_K, ggml.F16, 5e-3},
		} {
			t.Run(shape+"/"+tc.typ.String(), func(t *testing.T) {
				f := openSynth(t, shape, tc.typ)
				mg, err := models.Load(f, ref)
				if err != nil {
					t.Skipf("%s %s does not load: %v", shape, tc.typ, err)
				}
				mc, err := models.Load(f, cpu)
				require.NoError(t, err)
				ids := make([]int32, 40)
				for i := range ids {
					ids[i] = int32((i*7919 + 13) % mg.Params().VocabSize)
				}
				want := forward(t, mg, tc.kv, ids, 16, 4)
				got := forward(t, mc, tc.kv, ids, 16, 4)
				e := logitNMSE(got, want)
				t.Logf("logits NMSE %.3g", e)
				require.False(t, math.IsNaN(e))
				require.LessOrEqual(t, e, tc.tol)
			})
		}
	}
}

// BenchmarkForward times prefill (a 64-token batch at position 0) and
// decode (positions 0 to 511) of a full-size synthetic SmolLM2-135M on each
// backend: tok/s per second of wall clock and cpu-tok/s per second of the
// process's CPU time. LITERT_BENCH_THREADS sets the threads (default: every
// core).
func BenchmarkForward(b *testing.B) {
	threads := runtime.NumCPU()
	if n, err := strconv.Atoi(os.Getenv("LITERT_BENCH_THREADS")); err == nil && n > 0 {
		threads = n
	}
	backends := []native.Backend{native.NewGo(threads)}
	if c, err := native.LoadCPU(threads); err == nil {
		backends = append(backends, c)
	}
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q4_K, ggml.Q6_K} {
		f := openSynth(b, "smollm2-135m", typ)
		for _, be := range backends {
			m, err := models.Load(f, be)
			require.NoError(b, err)
			for _, mode := range []struct {
				name  string
				batch int
			}{{"prefill64", 64}, {"decode", 1}} {
				b.Run(typ.String()+"/"+mode.name+"/"+be.Name(), func(b *testing.B) {
					s, err := models.NewState(m, 4096, mode.batch, ggml.F32)
					require.NoError(b, err)
					ids := make([]int32, mode.batch)
					for i := range ids {
						ids[i] = int32(i*31 + 7)
					}
					logits := make([]float32, m.Params().VocabSize)
					start, cpu0 := time.Now(), native.CPUTime()
					n := 0
					for b.Loop() {
						// prefill from position 0; decode at positions 0..511
						if mode.batch > 1 || s.Len() >= 512 {
							_, err := s.Truncate(0)
							require.NoError(b, err)
						}
						m.Forward(s, models.Tokens(ids), logits)
						n += mode.batch
					}
					b.ReportMetric(float64(n)/time.Since(start).Seconds(), "tok/s")
					if d := native.CPUTime() - cpu0; d > 0 {
						b.ReportMetric(float64(n)/d.Seconds(), "cpu-tok/s")
					}
				})
			}
		}
	}
}
