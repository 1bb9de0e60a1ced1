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

// TestGemma4DeltaPrefill runs two turns of a conversation on tiny Gemma 4
// (per-layer embeddings, shared-KV layers, sliding and global heads of
// different sizes) with Gemma 4's chat template: the second turn prefills
// only what the template adds to the first, and the session's cache then
// gives the logits of a fresh prefill of its tokens. The model keeps its
// synthetic 512-token SentencePiece vocabulary (the template's markers
// become byte tokens): the real one's 262 144 rows of per-layer embeddings
// would make a 220 MiB model for a test of the conversation's bookkeeping.
func TestGemma4DeltaPrefill(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join(testdata, "templates", "google-gemma-4-31B-it.jinja"))
	if err != nil {
		t.Skipf("Gemma 4 template fixture absent (%v)", err)
	}
	path := filepath.Join(testDir, "m-gemma4.gguf")
	opts := synth.Options{Seed: 7, Type: ggml.Q8_0, ChatTemplate: string(tmpl)}
	require.NoError(t, synth.WriteFile(path, "tiny-gemma4-e2b", opts))
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 1024})
	require.NoError(t, err)
	defer eng.Close()

	ctx := context.Background()
	c, err := New(ctx, eng, Config{
		// With thinking off the template opens every reply with an empty
		// thought channel that its render of the history drops, so no
		// turn could extend the last; with it on, replies are rendered
		// as written.
		Preface:        Preface{Messages: []Message{SystemText("You are terse.")}, Extra: map[string]any{"enable_thinking": true}},
		MaxTokens:      4,
		PrefillPreface: true,
	})
	require.NoError(t, err)
	// A random model writes random tokens, which the template may not
	// render back as written (it trims replies and strips their
	// thoughts): replies are held to a word.
	yes, err := constrain.Regex("yes|no")
	require.NoError(t, err)
	for i, q := range []string{"Hello!", "What is 2+2?"} {
		before := c.TokenCount()
		r, err := c.SendMessage(ctx, UserText(q), WithConstraint(yes))
		require.NoError(t, err, "turn %d", i)
		assert.Equal(t, before, r.Usage.CachedTokens, "turn %d reuses the whole cache", i)
		assert.Greater(t, r.Usage.PromptTokens, r.Usage.CachedTokens, "turn %d", i)
		// Gemma 4 scores attention with scale 1 over RMS-normed queries
		// and keys, which on random weights can make the softmax nearly
		// one-hot (our reading of the cause): a batch's rounding and a
		// token-by-token one (the same math in another order) may then
		// let a different key win. Measured: a fresh
		// 15-token prefill and 10 tokens + 5 decoded ones differ by up to
		// 0.014 in a logit on both backends (before and after the
		// interleaved weights), where models without that scale agree to
		// 1e-7. The token bookkeeping above is exact all the same.
		checkKVWithin(t, c, 0.03)
	}
	assert.Equal(t, 0, c.Stats().Fallbacks, "Gemma 4's template extends its prompt, no fallback")
}
