package template

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchTemplates are the templates BenchmarkRender measures, with Python
// jinja2's median time per render of the same request (transformers
// environment) for comparison.
var benchTemplates = []struct {
	name, file   string
	pythonMicros float64
}{
	{"Qwen3-0.6B", "Qwen-Qwen3-0.6B.jinja", 75},
	{"Llama-3.1", "meta-llama-Llama-3.1-8B-Instruct.jinja", 21},
	{"gemma-4", "google-gemma-4-31B-it.jinja", 160},
}

// benchRequest returns the multi-turn tool-call conversation of the
// reference scenarios (tool_call_roundtrip) as a render request.
func benchRequest(tb testing.TB, bos, eos *string) Request {
	tb.Helper()
	_, scen := loadReference(tb)
	s := scen["tool_call_roundtrip"]
	req, err := DecodeRequest(requestJSON(tb, refCase{AddGenerationPrompt: true, BOSToken: bos, EOSToken: eos}, s))
	require.NoError(tb, err)
	return req
}

func strp(s string) *string { return &s }

// BenchmarkRender renders a multi-turn conversation with tools through the
// Qwen3-0.6B, Llama-3.1 and gemma-4 templates, parsed once.
func BenchmarkRender(b *testing.B) {
	ctx := context.Background()
	for _, bt := range benchTemplates {
		b.Run(bt.name, func(b *testing.B) {
			src, err := os.ReadFile(filepath.Join(refDir, bt.file))
			if err != nil {
				b.Skipf("reference templates absent (%s): %v", refDir, err)
			}
			tm, err := Parse(string(src), WithClock(referenceClock))
			require.NoError(b, err)
			req := benchRequest(b, strp("<bos>"), strp("<eos>"))
			out, err := tm.Render(ctx, req)
			require.NoError(b, err)
			require.NotEmpty(b, out)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tm.Render(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			us := float64(b.Elapsed().Microseconds()) / float64(b.N)
			b.ReportMetric(us, "µs/render")
			b.ReportMetric(us/bt.pythonMicros, "x-python")
		})
	}
}
