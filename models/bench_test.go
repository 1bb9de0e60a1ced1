package models

import (
	"path/filepath"
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
			st, err := NewState(m.Params(), 32+b.N+1, 32, ggml.F32)
			require.NoError(b, err)
			logits := make([]float32, m.Params().VocabSize)
			start := time.Now()
			m.Forward(st, testTokens(32, m.Params().VocabSize), logits)
			prefill := 32 / time.Since(start).Seconds()
			b.ResetTimer()
			start = time.Now()
			for range b.N {
				m.Forward(st, []int32{argmax(logits)}, logits)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tok/s")
			b.ReportMetric(prefill, "prefill-tok/s")
		})
	}
}
