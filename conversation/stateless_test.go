package conversation

import (
	"context"
	"testing"

	"github.com/litert-go/litert-go/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRespondReusesCache(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	cfg := Config{MaxTokens: 4}
	c, err := New(ctx, eng, cfg)
	require.NoError(t, err)
	p, err := NewPrompter(eng, cfg)
	require.NoError(t, err)
	assert.Equal(t, "hermes", p.ToolFormat().Name())

	hist := []Message{SystemText("Be brief."), UserText("Hello")}
	prompt, err := p.Chat(context.Background(), hist, nil)
	require.NoError(t, err)
	assert.Zero(t, c.CommonPrefix(prompt))
	r1, err := c.Respond(ctx, hist, nil)
	require.NoError(t, err)
	assert.Equal(t, prompt.Len(), r1.Usage.PromptTokens, "the Prompter tokenizes as Respond prefills")
	assert.Zero(t, r1.Usage.CachedTokens)
	assert.Len(t, c.History(), 3, "the request's messages and the reply")

	// The next request carries the whole history: only its new turn is
	// prefilled, and CommonPrefix predicts what is reused.
	hist2 := append(append(hist[:2:2], r1.Message), UserText("Again"))
	prompt2, err := p.Chat(context.Background(), hist2, nil)
	require.NoError(t, err)
	reuse := c.CommonPrefix(prompt2)
	assert.Greater(t, reuse, r1.Usage.PromptTokens+r1.Usage.CompletionTokens-1)
	r2, err := c.Respond(ctx, hist2, nil)
	require.NoError(t, err)
	assert.Equal(t, reuse, r2.Usage.CachedTokens)
	assert.Equal(t, prompt2.Len(), r2.Usage.PromptTokens)

	// A different history falls back to the common token prefix.
	other := []Message{SystemText("Be brief."), UserText("Something else")}
	prompt3, err := p.Chat(context.Background(), other, nil)
	require.NoError(t, err)
	reuse = c.CommonPrefix(prompt3)
	r3, err := c.Respond(ctx, other, nil)
	require.NoError(t, err)
	assert.Equal(t, reuse, r3.Usage.CachedTokens)
	assert.Less(t, r3.Usage.CachedTokens, r3.Usage.PromptTokens)

	_, err = c.Respond(ctx, nil, nil)
	assert.ErrorContains(t, err, "at least one message")
}

func TestRespondStreamMatches(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	hist := []Message{UserText("Tell me")}
	a, err := New(ctx, eng, Config{MaxTokens: 6})
	require.NoError(t, err)
	want, err := a.Respond(ctx, hist, nil)
	require.NoError(t, err)
	b, err := New(ctx, eng, Config{MaxTokens: 6})
	require.NoError(t, err)
	text := ""
	var last *Reply
	for ch, err := range b.RespondStream(ctx, hist, nil) {
		require.NoError(t, err)
		text += ch.Text
		if ch.Done {
			last = ch.Reply
		}
	}
	require.NotNil(t, last)
	assert.Equal(t, want.Text, last.Text)
	assert.Equal(t, want.Text, text)
	assert.Equal(t, want.Usage, last.Usage)
}

func TestComplete(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	c, err := New(ctx, eng, Config{})
	require.NoError(t, err)
	p, err := NewPrompter(eng, Config{})
	require.NoError(t, err)
	prompt := "Once upon a time"
	r, err := c.Complete(ctx, prompt, WithMaxTokens(5), WithSampler(session.Sampler{}))
	require.NoError(t, err)
	assert.Equal(t, p.Text(prompt).Len(), r.Usage.PromptTokens)
	assert.Equal(t, 5, r.Usage.CompletionTokens)
	assert.Positive(t, r.Timings.Prefill, "prefill and decode are timed apart")
	assert.Positive(t, r.Timings.Decode)
	assert.Empty(t, c.History())

	// Streaming gives the same text; the prompt is cached but its last token.
	text := ""
	for ch, err := range c.CompleteStream(ctx, prompt, WithMaxTokens(5)) {
		require.NoError(t, err)
		text += ch.Text
		if ch.Done {
			assert.Equal(t, r.Text, ch.Reply.Text)
			assert.Equal(t, r.Usage.PromptTokens-1, ch.Reply.Usage.CachedTokens)
		}
	}
	assert.Equal(t, r.Text, text)

	_, err = c.Complete(ctx, "")
	assert.ErrorContains(t, err, "no tokens")
}

func TestPrompterChecksMedia(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	p, err := NewPrompter(eng, Config{})
	require.NoError(t, err)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	_, err = p.Chat(context.Background(), []Message{{Role: RoleUser, Parts: []Part{{Type: "text", Text: "what?"}, {Type: "image", Blob: png}}}}, nil)
	assert.ErrorIs(t, err, ErrNoEncoder)
	_, err = p.Chat(context.Background(), nil, nil)
	assert.Error(t, err)
	_, err = p.Chat(context.Background(), []Message{{Role: "robot", Text: "x"}}, nil)
	assert.ErrorContains(t, err, `unknown role "robot"`)
}
