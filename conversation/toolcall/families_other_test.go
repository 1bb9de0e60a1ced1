package toolcall

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOtherDetect checks that Detect picks this group's formats for their
// templates, and that templates that write no tool calls say so.
func TestOtherDetect(t *testing.T) {
	want := map[string]string{
		"LFM2.5-8B-A1B":                                 "lfm2",
		"google-gemma-4-31B-it":                         "gemma4",
		"google-gemma-4-31B-it-interleaved":             "gemma4",
		"CohereForAI-c4ai-command-r-plus-tool_use":      "command-r",
		"CohereForAI-c4ai-command-r7b-12-2024-tool_use": "command-r7b",
		"Cohere2MoE":                                    "command-r7b",
		"Apertus-8B-Instruct":                           "apertus",
		"tencent-Hy3":                                   "hy3",
		"openbmb-MiniCPM5-1B":                           "minicpm5",
		"muse-glimmer":                                  "muse",
		"upstage-Solar-Open-100B":                       "solar-open",
	}
	for name, format := range want {
		tt := otherLoadTemplate(t, name)
		d := Detect(context.Background(), tt.tmpl, tt.base)
		assert.True(t, d.Exact, name)
		assert.Equal(t, format, d.Format.Name(), name)
	}
	for _, name := range []string{"google-gemma-2-2b-it", "microsoft-Phi-3.5-mini-instruct", "llama-cpp-rwkv-world", "LFM2-8B-A1B", "LFM2.5-Instruct"} {
		tt := otherLoadTemplate(t, name)
		assert.False(t, Detect(context.Background(), tt.tmpl, tt.base).RendersCalls, name)
	}
}

func TestOtherNames(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range formats() {
		assert.False(t, seen[f.Name()], "duplicate format name %s", f.Name())
		seen[f.Name()] = true
	}
	for _, f := range otherFamilies() {
		got, err := Lookup(f.Name())
		if assert.NoError(t, err) {
			assert.Equal(t, f.Name(), got.Name())
		}
		assert.True(t, Forcible(f), f.Name())
	}
}
