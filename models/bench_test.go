package models

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// BenchmarkDecode measures single-token decode of the full-size synthetic
// SmolLM2-135M with the pure-Go backend on all cores, after a 32-token
// prefill. It reports tokens per second.
func BenchmarkDecode(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a full-size synthetic model")
	}
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.F32} {
		b.Run("smollm2-135m-"+typ.String(), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "m.gguf")
			require.NoError(b, synth.WriteFile(path, "smollm2-135m", synth.Options{Seed: 1, Type: typ}))
			be := native.NewGo(0)
			defer be.Close()
			m := openModel(b, path, be)
			st, err := NewState(m, 32+b.N+1, 32, ggml.F32)
			require.NoError(b, err)
			logits := make([]float32, m.Params().VocabSize)
			start := time.Now()
			m.Forward(st, Tokens(testTokens(32, m.Params().VocabSize)), logits)
			prefill := 32 / time.Since(start).Seconds()
			b.ResetTimer()
			start = time.Now()
			for range b.N {
				m.Forward(st, Tokens([]int32{argmax(logits)}), logits)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tok/s")
			b.ReportMetric(prefill, "prefill-tok/s")
		})
	}
}

// BenchmarkMoE measures the 2.3B-parameter synthetic Qwen3-MoE
// (qwen3moe-2b-a0.6b, 0.6B active in the blocks) in Q4_K_M on the C
// kernels when built, else the Go backend, at 1 thread and at all cores: a
// 64-token prefill (its rate reported) and single-token decode (tok/s),
// with the process's CPU time per token of each, as
// testdata/gen/benchllama.cpp times llama.cpp on the same file. It writes
// a ~1.4 GB model (minutes of quantization on few cores): set
// LITERT_BENCH_MOE=1 to run it, or LITERT_BENCH_MOE=FILE.gguf to time a
// file written before (litert-go synth --shape qwen3moe-2b-a0.6b --type
// q4_k_m --seed 1).
func BenchmarkMoE(b *testing.B) {
	path := os.Getenv("LITERT_BENCH_MOE")
	switch path {
	case "":
		b.Skip("set LITERT_BENCH_MOE=1 (writes a 1.4 GB model) or LITERT_BENCH_MOE=FILE.gguf")
	case "1":
		path = filepath.Join(b.TempDir(), "m.gguf")
		require.NoError(b, synth.WriteFile(path, "qwen3moe-2b-a0.6b", synth.Options{Seed: 1, Type: ggml.Q4_K, Mix: "q4_k_m"}))
	}
	benchPrefillDecode(b, path)
}

// BenchmarkMoETiny is BenchmarkMoE on tiny Qwen3-MoE (Q8_0, 4 layers 128
// wide, 16 experts of 64, 4 per token), written in seconds: the expert
// products are small, so it times what dispatching them costs.
func BenchmarkMoETiny(b *testing.B) {
	path := filepath.Join(b.TempDir(), "m.gguf")
	require.NoError(b, synth.WriteFile(path, "tiny-qwen3moe-30b-a3b", synth.Options{Seed: 1, Type: ggml.Q8_0}))
	benchPrefillDecode(b, path)
}

// benchPrefillDecode times the model at path on the C kernels when built,
// else the Go backend, at 1 thread and at all cores: a 64-token prefill
// (its rate reported as prefill-tok/s) and single-token decode (tok/s),
// with the process's CPU time per token of each, as
// testdata/gen/benchllama.cpp times llama.cpp.
func benchPrefillDecode(b *testing.B, path string) {
	threads := []int{1}
	if n := runtime.NumCPU(); n > 1 {
		threads = append(threads, n)
	}
	for _, n := range threads {
		b.Run(fmt.Sprintf("threads-%d", n), func(b *testing.B) {
			var be native.Backend = native.NewGo(n)
			if c, err := native.LoadCPU(n); err == nil {
				be.Close()
				be = c
			}
			defer be.Close()
			m := openModel(b, path, be)
			const nPrompt = 64
			st, err := NewState(m, nPrompt+b.N+1, nPrompt, ggml.F32)
			require.NoError(b, err)
			logits := make([]float32, m.Params().VocabSize)
			start, cpu0 := time.Now(), cpuTime()
			m.Forward(st, Tokens(testTokens(nPrompt, m.Params().VocabSize)), logits)
			prefill, prefillCPU := nPrompt/time.Since(start).Seconds(), (cpuTime()-cpu0).Seconds()/nPrompt
			b.ResetTimer()
			start, cpu0 = time.Now(), cpuTime()
			for range b.N {
				m.Forward(st, Tokens([]int32{argmax(logits)}), logits)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tok/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/tok")
			b.ReportMetric(prefill, "prefill-tok/s")
			b.ReportMetric(prefillCPU*1000, "prefill-cpu-ms/tok")
			b.Logf("%s backend", be.Name())
		})
	}
}
