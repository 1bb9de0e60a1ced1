package conversation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/session"
)

// WithTokenReport sees every generated token of the reply, in order: they
// detokenize to the reply's text, and greedy tokens are the most likely.
func TestWithTokenReport(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 6})
	require.NoError(t, err)
	var toks []session.Token
	report := session.TokenReport{Func: func(tk session.Token) { toks = append(toks, tk) }, TopLogprobs: 2}
	r, err := c.Respond(ctx, []Message{UserText("Tell me")}, nil, WithTokenReport(report))
	require.NoError(t, err)
	require.Len(t, toks, r.Usage.CompletionTokens)
	ids := make([]int32, len(toks))
	for i, tk := range toks {
		ids[i] = tk.ID
		require.Len(t, tk.Top, 2)
		assert.Equal(t, tk.ID, tk.Top[0].ID, "greedy (the default sampler) takes the most likely token")
		assert.Equal(t, tk.Top[0].Logprob, tk.Logprob)
		assert.Less(t, tk.Logprob, float32(0))
	}
	text, err := eng.Tokenizer().Decode(ids)
	require.NoError(t, err)
	assert.Equal(t, text, r.Text)

	// Not asked again: the next reply reports nothing.
	toks = nil
	_, err = c.Complete(ctx, "Once upon a time", WithMaxTokens(3))
	require.NoError(t, err)
	assert.Empty(t, toks)
}
