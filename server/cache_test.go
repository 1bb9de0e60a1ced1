package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// turnSuffix is what the Qwen template adds for a new user turn after a
// closed assistant turn.
func turnSuffix(user string) string {
	return "<|im_start|>user\n" + user + "<|im_end|>\n<|im_start|>assistant\n"
}

func TestPromptCacheSecondTurn(t *testing.T) {
	s, ts := startServer(t, Config{Parallel: 1, CacheSessions: 3})
	c := client(ts)
	ctx := context.Background()
	tok := testEngine(t).Tokenizer()
	chat := func(sys string, msgs ...openai.ChatCompletionMessageParamUnion) *openai.ChatCompletion {
		t.Helper()
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:       testModel,
			Messages:    append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(sys)}, msgs...),
			MaxTokens:   openai.Int(6),
			Temperature: openai.Float(0),
		})
		require.NoError(t, err)
		return resp
	}
	sysA := "You are assistant A. " + strings.Repeat("Answer carefully. ", 20)
	hist := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is two plus two?")}
	r1 := chat(sysA, hist...)
	assert.Zero(t, r1.Usage.PromptTokensDetails.CachedTokens, "a cold cache")

	// Another conversation in between takes its own session.
	other := chat("You are assistant B.", openai.UserMessage("Hi"))
	assert.Zero(t, other.Usage.PromptTokensDetails.CachedTokens)

	hist = append(hist, r1.Choices[0].Message.ToParam(), openai.UserMessage("And three plus three?"))
	r2 := chat(sysA, hist...)
	// The session holds turn 1's prompt, its reply and the end-of-turn
	// tokens "<|im_end|>\n"; only the new user turn is prefilled.
	closing := int64(len(tok.Encode("<|im_end|>\n", tokenizerOpts)))
	newTokens := int64(len(tok.Encode(turnSuffix("And three plus three?"), tokenizerOpts)))
	assert.Equal(t, r1.Usage.PromptTokens+r1.Usage.CompletionTokens+closing, r2.Usage.PromptTokensDetails.CachedTokens)
	assert.Equal(t, newTokens, r2.Usage.PromptTokens-r2.Usage.PromptTokensDetails.CachedTokens)

	// A third turn again prefills only its own tokens.
	hist = append(hist, r2.Choices[0].Message.ToParam(), openai.UserMessage("Thanks."))
	r3 := chat(sysA, hist...)
	assert.Equal(t, r2.Usage.PromptTokens+r2.Usage.CompletionTokens+closing, r3.Usage.PromptTokensDetails.CachedTokens)
	assert.Equal(t, int64(len(tok.Encode(turnSuffix("Thanks."), tokenizerOpts))), r3.Usage.PromptTokens-r3.Usage.PromptTokensDetails.CachedTokens)

	// An edited history reuses the longest common token prefix: here the
	// system prompt and first question.
	edited := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is two plus two?"), openai.AssistantMessage("Four."), openai.UserMessage("Sure?")}
	r4 := chat(sysA, edited...)
	assert.GreaterOrEqual(t, r4.Usage.PromptTokensDetails.CachedTokens, r1.Usage.PromptTokens-3)
	assert.Less(t, r4.Usage.PromptTokensDetails.CachedTokens, r4.Usage.PromptTokens)

	total, idle := s.cache.size()
	assert.LessOrEqual(t, total, 3)
	assert.Equal(t, total, idle)
}

func TestPromptCacheEviction(t *testing.T) {
	s, ts := startServer(t, Config{Parallel: 1, CacheSessions: 2})
	c := client(ts)
	ctx := context.Background()
	ask := func(sys string) *openai.ChatCompletion {
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:     testModel,
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(sys), openai.UserMessage("Hello")},
			MaxTokens: openai.Int(2),
		})
		require.NoError(t, err)
		return resp
	}
	// Three distinct long prompts through a cache of two sessions: the
	// least recently used is overwritten, and the pool never grows.
	for i := range 3 {
		ask(fmt.Sprintf("System %d. %s", i, strings.Repeat("Be kind. ", 30)))
	}
	total, _ := s.cache.size()
	assert.Equal(t, 2, total)
	// System 2 is cached (all but the last prompt token); system 0 was evicted.
	r := ask(fmt.Sprintf("System %d. %s", 2, strings.Repeat("Be kind. ", 30)))
	assert.Equal(t, r.Usage.PromptTokens-1, r.Usage.PromptTokensDetails.CachedTokens)
	r = ask(fmt.Sprintf("System %d. %s", 0, strings.Repeat("Be kind. ", 30)))
	assert.Less(t, r.Usage.PromptTokensDetails.CachedTokens, int64(10), "only the template's opening tokens")
}

// ttft streams a chat request and returns the time to its first content
// chunk.
func ttft(tb testing.TB, c openai.Client, sys, user string) time.Duration {
	tb.Helper()
	start := time.Now()
	stream := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:     testModel,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(sys), openai.UserMessage(user)},
		MaxTokens: openai.Int(2),
	})
	defer stream.Close()
	var d time.Duration
	for stream.Next() {
		// The first chunk only names the role: wait for text or the end.
		if ch := stream.Current(); d == 0 && len(ch.Choices) > 0 && (ch.Choices[0].Delta.Content != "" || ch.Choices[0].FinishReason != "") {
			d = time.Since(start)
		}
	}
	require.NoError(tb, stream.Err())
	return d
}

// BenchmarkPromptCacheTTFT compares the time to first token of a request
// whose 1000-token system prompt is cached with one whose prompt is new.
func BenchmarkPromptCacheTTFT(b *testing.B) {
	_, ts := startServer(b, Config{Parallel: 1, CacheSessions: 2})
	c := client(ts)
	long := strings.Repeat("The assistant follows the rules of the house carefully. ", 100)
	var cold, warm time.Duration
	i := 0
	for b.Loop() {
		sys := fmt.Sprintf("Rule set %d. %s", i, long)
		cold += ttft(b, c, sys, "First question?")
		warm += ttft(b, c, sys, fmt.Sprintf("Question %d?", i))
		i++
	}
	b.ReportMetric(float64(cold.Microseconds())/float64(i)/1000, "cold-ttft-ms")
	b.ReportMetric(float64(warm.Microseconds())/float64(i)/1000, "warm-ttft-ms")
	b.ReportMetric(float64(cold)/float64(warm), "cold/warm")
}
