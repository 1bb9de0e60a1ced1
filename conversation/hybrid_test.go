package conversation

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
)

// hybridEngine opens the tiny synthetic shape (a recurrent/conv hybrid)
// with the chat template templateFile from the templates fixture folder.
func hybridEngine(t *testing.T, shape, templateFile string) *engine.Engine {
	t.Helper()
	key := shape + "+" + templateFile
	if e, ok := engines.Load(key); ok {
		return e.(*engine.Engine)
	}
	src, err := os.ReadFile(filepath.Join(testdata, "templates", templateFile))
	if err != nil {
		t.Skipf("template fixture absent (%v)", err)
	}
	path := filepath.Join(testDir, "m-"+shape+".gguf")
	require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 7, Type: ggml.F32, ChatTemplate: string(src)}))
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	if prev, loaded := engines.LoadOrStore(key, eng); loaded {
		eng.Close()
		return prev.(*engine.Engine)
	}
	return eng
}

// TestHybridDeltaPrefill holds a two-turn conversation on LFM2 and
// Qwen3.5 (their conv and recurrent states cannot be cut, only
// checkpointed) with each family's own chat template, and checks after
// each turn that the session's logits equal a fresh session's over the
// same tokens. LFM2's template extends its prompt, so the second turn
// prefills only its delta. Qwen3.5's rewrites the previous assistant turn
// (its empty <think></think> block goes once a new user message follows),
// so the second turn falls back to the common token prefix: a rewind into
// the first turn's prompt, which on a hybrid restores the newest
// checkpoint before it and re-runs the tokens from there.
func TestHybridDeltaPrefill(t *testing.T) {
	yesNo, err := constrain.Regex("yes|no") // valid text whatever the random weights
	require.NoError(t, err)
	for _, tc := range []struct {
		shape, template string
		preface         bool // Qwen3.5's template refuses a prompt without a user message
		fallback        bool // the template rewrites the earlier turns
	}{
		{"tiny-lfm2-350m", "LFM2.5-Instruct.jinja", true, false},
		{"tiny-qwen3.5-0.8b", "Qwen3.5-4B.jinja", false, true},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			eng := hybridEngine(t, tc.shape, tc.template)
			ctx := context.Background()
			c, err := New(ctx, eng, Config{
				Preface:        Preface{Messages: []Message{SystemText("You are terse.")}},
				MaxTokens:      4,
				PrefillPreface: tc.preface,
			})
			require.NoError(t, err)
			for i, q := range []string{"Hello!", "What is 2+2?"} {
				before, ran := c.TokenCount(), c.sess.Stats().PrefillTokens
				r, err := c.SendMessage(ctx, UserText(q), WithConstraint(yesNo))
				require.NoError(t, err, "turn %d", i)
				ran = c.sess.Stats().PrefillTokens - ran
				t.Logf("turn %d: %d prompt tokens, %d cached, %d run", i, r.Usage.PromptTokens, r.Usage.CachedTokens, ran)
				if i > 0 && tc.fallback {
					// The rewind restores the checkpoint at the end of turn
					// one's messages (before its generation prompt), not the
					// start: re-running from the start would cost the whole
					// prompt, and the reply's closing tokens on top.
					assert.Less(t, ran, r.Usage.PromptTokens, "turn %d re-runs from a turn boundary", i)
				}
				// Qwen3.5's prompt opens a <think> block: the reply is reasoning
				assert.Contains(t, []string{"yes", "no"}, r.Text+r.ReasoningContent)
				if i > 0 && tc.fallback {
					assert.Less(t, r.Usage.CachedTokens, before, "turn %d rewinds into the first turn", i)
					assert.Positive(t, r.Usage.CachedTokens, "turn %d keeps the common prefix", i)
				} else {
					assert.Equal(t, before, r.Usage.CachedTokens, "turn %d reuses the whole cache", i)
				}
				assert.Greater(t, r.Usage.PromptTokens, r.Usage.CachedTokens)
				checkKV(t, c)
			}
			wantFallbacks := 0
			if tc.fallback {
				wantFallbacks = 1
			}
			assert.Equal(t, wantFallbacks, c.Stats().Fallbacks)
		})
	}
}
