package models

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestNonCausalInput checks that Input.NonCausal reaches every attention
// layer of the call and only that call: a one-row call is the same either
// way, a batch of rows changes the logits and the cache (the next token's
// logits).
func TestNonCausalInput(t *testing.T) {
	path := writeTiny(t, "tiny-gemma3-270m", ggml.F32)
	for _, b := range llamaCppBackends(t) {
		m := openModel(t, path, b)
		p := m.Params()
		ids := testTokens(9, p.VocabSize)
		// run feeds the prompt, then ids[3:8] as one call (non-causal or
		// not), then ids[8:], and returns the last two calls' logits
		run := func(nonCausal bool, batch []int32) (mid, last []float32) {
			st, err := NewState(m, 32, 16, ggml.F32)
			require.NoError(t, err)
			mid, last = make([]float32, p.VocabSize), make([]float32, p.VocabSize)
			m.Forward(st, Tokens(ids[:3]), mid)
			m.Forward(st, Input{Tokens: batch, NonCausal: nonCausal}, mid)
			m.Forward(st, Tokens(ids[3+len(batch):][:1]), last)
			return mid, last
		}
		cm, cl := run(false, ids[3:8])
		nm, nl := run(true, ids[3:8])
		require.NotEqual(t, cm, nm, "%s: a non-causal batch's logits", b.Name())
		require.NotEqual(t, cl, nl, "%s: the token after a non-causal batch", b.Name())
		cm, cl = run(false, ids[3:4])
		nm, nl = run(true, ids[3:4])
		require.Equal(t, cm, nm, "%s: one row is the same either way", b.Name())
		require.Equal(t, cl, nl, "%s: and so is the next token", b.Name())
	}
}
