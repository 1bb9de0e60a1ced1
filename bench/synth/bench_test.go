package synth

import (
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkWriteFile measures generating a synthetic Qwen2.5-0.5B (494M
// parameters) straight to disk. Goal: a few seconds.
func BenchmarkWriteFile(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a 500 MB model; skipped in -short")
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"qwen2.5-0.5b-Q8_0", Options{Seed: 1, Type: ggml.Q8_0}},
		{"qwen2.5-0.5b-Q4_K_M", Options{Seed: 1, Mix: "q4_k_m"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "m.gguf")
			for b.Loop() {
				if err := WriteFile(path, "qwen2.5-0.5b", tc.opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(494e6*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mparams/s")
		})
	}
}
