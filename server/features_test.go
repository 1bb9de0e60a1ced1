package server

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
)

// openReal opens a real model of the test data, or skips.
func openReal(t *testing.T, name string) *engine.Engine {
	t.Helper()
	path := filepath.Join(testdata, "models", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real model fixture absent (%v)", err)
	}
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 512, Threads: 1})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

func serveEngine(t *testing.T, eng *engine.Engine, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(eng, cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// refLogprobs is the reference for a greedy reply to prompt: prefill the
// prompt in a fresh session, then take the argmax at each step; the
// log-softmax of each step's logits, in float64. It returns the tokens
// and, per step, the log-probabilities of the whole vocabulary.
func refLogprobs(t *testing.T, eng *engine.Engine, prompt []int32, steps int) ([]int32, [][]float64) {
	t.Helper()
	s, err := session.New(eng, session.Config{})
	require.NoError(t, err)
	require.NoError(t, s.Prefill(context.Background(), prompt))
	var toks []int32
	var lps [][]float64
	for range steps {
		lg := s.Logits()
		m, best := math.Inf(-1), 0
		for i, v := range lg {
			if float64(v) > m {
				m, best = float64(v), i
			}
		}
		var z float64
		for _, v := range lg {
			z += math.Exp(float64(v) - m)
		}
		row := make([]float64, len(lg))
		for i, v := range lg {
			row[i] = float64(v) - m - math.Log(z)
		}
		toks, lps = append(toks, int32(best)), append(lps, row)
		require.NoError(t, s.Decode(context.Background(), int32(best)))
	}
	return toks, lps
}

// Completion logprobs on the real stories260K model: the tokens are
// llama.cpp's greedy ones, each logprob the log-softmax of the session's
// logits for the same tokens (1e-4), alternatives included, and the same
// streamed.
func TestCompletionLogprobs(t *testing.T) {
	eng := openReal(t, "stories260K.gguf")
	s, ts := serveEngine(t, eng, Config{ModelID: "stories"})
	c := client(ts)
	const steps = 8
	params := openai.CompletionNewParams{
		Model:       "stories",
		Prompt:      openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")},
		MaxTokens:   openai.Int(steps),
		Temperature: openai.Float(0),
		Logprobs:    openai.Int(3),
	}
	resp, err := c.Completions.New(context.Background(), params)
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	lp := resp.Choices[0].Logprobs
	prompt := s.prompter.Text("Once upon a time").Tokens()
	require.Equal(t, []int32{1, 403, 407, 261, 378}, prompt, "llama.cpp's tokens (fixtures README)")
	toks, ref := refLogprobs(t, eng, prompt, steps)
	assert.Equal(t, []int32{432, 383, 286, 261, 376, 298, 315, 421}, toks, "llama.cpp's greedy tokens")
	require.Len(t, lp.Tokens, steps)
	require.Len(t, lp.TokenLogprobs, steps)
	offset := len("Once upon a time")
	text := ""
	for i, id := range toks {
		piece := eng.Tokenizer().TokenPiece(id)
		assert.Equal(t, piece, lp.Tokens[i])
		assert.InDelta(t, ref[i][id], lp.TokenLogprobs[i], 1e-4, "step %d", i)
		assert.Equal(t, int64(offset), lp.TextOffset[i])
		offset += len(piece)
		text += piece
		require.Len(t, lp.TopLogprobs[i], 3)
		assert.InDelta(t, ref[i][id], lp.TopLogprobs[i][piece], 1e-4, "the greedy token is the first alternative")
		for tokText, v := range lp.TopLogprobs[i] {
			alt := eng.Tokenizer().Find(tokText)
			if alt < 0 { // a byte-fallback or ▁-prefixed piece: look it up by its piece
				for id := range int32(eng.Tokenizer().VocabSize()) {
					if eng.Tokenizer().TokenPiece(id) == tokText {
						alt = id
						break
					}
				}
			}
			require.GreaterOrEqual(t, alt, int32(0), "alternative %q is a token", tokText)
			assert.InDelta(t, ref[i][alt], v, 1e-4, "step %d alternative %q", i, tokText)
		}
	}
	assert.Equal(t, text, resp.Choices[0].Text)

	stream := c.Completions.NewStreaming(context.Background(), params)
	var streamed []float64
	var streamedTokens []string
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			streamed = append(streamed, ch.Logprobs.TokenLogprobs...)
			streamedTokens = append(streamedTokens, ch.Logprobs.Tokens...)
		}
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, lp.Tokens, streamedTokens)
	require.Len(t, streamed, steps)
	for i := range streamed {
		assert.InDelta(t, lp.TokenLogprobs[i], streamed[i], 1e-6)
	}
}

// Chat logprobs on the trained demo model: the reply's tokens and their
// logprobs are the greedy run of a session prefilled with the rendered
// prompt, and a streamed reply carries them on its content pieces.
func TestChatLogprobs(t *testing.T) {
	eng := openReal(t, "litert-demo-tools-q8_0.gguf")
	s, ts := serveEngine(t, eng, Config{ModelID: "demo"})
	c := client(ts)
	params := openai.ChatCompletionNewParams{
		Model:       "demo",
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi, how are you?")},
		MaxTokens:   openai.Int(12),
		Temperature: openai.Float(0),
		Logprobs:    openai.Bool(true),
		TopLogprobs: openai.Int(2),
	}
	resp, err := c.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	content := resp.Choices[0].Logprobs.Content
	require.NotEmpty(t, content)
	assert.Equal(t, int(resp.Usage.CompletionTokens), len(content), "one entry per generated token")
	prompt, err := s.prompter.Chat(context.Background(), []conversation.Message{conversation.UserText("Hi, how are you?")}, nil)
	require.NoError(t, err)
	toks, ref := refLogprobs(t, eng, prompt.Tokens(), len(content))
	text := ""
	for i, e := range content {
		piece := eng.Tokenizer().TokenPiece(toks[i])
		assert.Equal(t, piece, e.Token, "step %d", i)
		b := make([]int64, len(piece))
		for j := range len(piece) {
			b[j] = int64(piece[j])
		}
		assert.Equal(t, b, e.Bytes)
		assert.InDelta(t, ref[i][toks[i]], e.Logprob, 1e-4, "step %d", i)
		require.Len(t, e.TopLogprobs, 2)
		assert.Equal(t, e.Token, e.TopLogprobs[0].Token)
		assert.LessOrEqual(t, e.TopLogprobs[1].Logprob, e.TopLogprobs[0].Logprob)
		text += piece
	}
	assert.Equal(t, strings.TrimSpace(text), strings.TrimSpace(resp.Choices[0].Message.Content))

	stream := c.Chat.Completions.NewStreaming(context.Background(), params)
	var streamed []openai.ChatCompletionTokenLogprob
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			streamed = append(streamed, ch.Logprobs.Content...)
		}
	}
	require.NoError(t, stream.Err())
	require.Len(t, streamed, len(content))
	for i := range streamed {
		assert.Equal(t, content[i].Token, streamed[i].Token)
		assert.InDelta(t, content[i].Logprob, streamed[i].Logprob, 1e-6)
	}

	// Without logprobs asked, the field is null.
	plain := params
	plain.Logprobs, plain.TopLogprobs = openai.ChatCompletionNewParams{}.Logprobs, openai.ChatCompletionNewParams{}.TopLogprobs
	resp, err = c.Chat.Completions.New(context.Background(), plain)
	require.NoError(t, err)
	assert.Equal(t, "null", resp.Choices[0].JSON.Logprobs.Raw())
}

// n = 3 with a seed: three different completions, the same three again
// for the same request, streamed too; the prompt is counted once.
// (On the real stories260K model, with the default ChatML template: its
// 512-token vocabulary makes the 21 generations quick.)
func TestChoicesN(t *testing.T) {
	_, ts := serveEngine(t, openReal(t, "stories260K.gguf"), Config{ModelID: testModel})
	c := client(ts)
	ctx := context.Background()
	params := userChat("Tell me a story", 12)
	params.N = openai.Int(3)
	params.Seed = openai.Int(7)
	params.Temperature = openai.Float(1.5)
	a, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	require.Len(t, a.Choices, 3)
	texts := map[string]bool{}
	var completion int64
	for i, ch := range a.Choices {
		assert.Equal(t, int64(i), ch.Index)
		texts[ch.Message.Content] = true
	}
	assert.Len(t, texts, 3, "three different choices: %q", texts)
	b, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	for i := range a.Choices {
		assert.Equal(t, a.Choices[i].Message.Content, b.Choices[i].Message.Content, "choice %d is reproducible", i)
	}
	one := params
	one.N = openai.Int(1)
	first, err := c.Chat.Completions.New(ctx, one)
	require.NoError(t, err)
	assert.Equal(t, a.Choices[0].Message.Content, first.Choices[0].Message.Content, "choice 0 is the seed's reply whatever n")
	completion = first.Usage.CompletionTokens
	assert.Equal(t, first.Usage.PromptTokens, a.Usage.PromptTokens, "the prompt counts once")
	assert.GreaterOrEqual(t, a.Usage.CompletionTokens, completion)

	stream := c.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		require.True(t, acc.AddChunk(stream.Current()))
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices, 3)
	for i := range a.Choices {
		assert.Equal(t, a.Choices[i].Message.Content, acc.Choices[i].Message.Content, "streamed choice %d", i)
		assert.Equal(t, a.Choices[i].FinishReason, acc.Choices[i].FinishReason)
	}

	// Completions too.
	cp := openai.CompletionNewParams{Model: testModel, Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")},
		MaxTokens: openai.Int(12), Temperature: openai.Float(1.5), Seed: openai.Int(7), N: openai.Int(3)}
	x, err := c.Completions.New(ctx, cp)
	require.NoError(t, err)
	require.Len(t, x.Choices, 3)
	y, err := c.Completions.New(ctx, cp)
	require.NoError(t, err)
	texts = map[string]bool{}
	for i := range x.Choices {
		texts[x.Choices[i].Text] = true
		assert.Equal(t, x.Choices[i].Text, y.Choices[i].Text)
	}
	assert.Len(t, texts, 3)
}

// /health needs no key by default; the API does. Any model name is
// accepted and answered with the real one.
func TestHealthOpenAnyModel(t *testing.T) {
	_, ts := startServer(t, Config{APIKey: "k"})
	resp, err := ts.Client().Get(ts.URL + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a probe needs no secret")
	resp, err = ts.Client().Get(ts.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	c := client(ts, option.WithAPIKey("k"))
	params := userChat("hi", 2)
	params.Model = "gpt-4o-mini"
	r, err := c.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	assert.Equal(t, testModel, r.Model, "answered with the real id")
	m, err := c.Models.Get(context.Background(), "model")
	require.NoError(t, err)
	assert.Equal(t, testModel, m.ID)
	// No model at all, as llama-server allows.
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(`{"max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err = ts.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// scrape reads /metrics with the Prometheus text parser.
func scrape(t *testing.T, ts *httptest.Server, key string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bufio.NewReader(resp.Body))
	require.NoError(t, err)
	return fams
}

// value is the value of the family's metric whose labels include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	require.True(t, ok, "metric %s", name)
	for _, m := range f.Metric {
		match := true
		for k, v := range want {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == k && l.GetValue() == v
			}
			match = match && found
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// /metrics parses with Prometheus' text parser, and its counters move as
// requests are served: requests by route and status, tokens prefilled,
// cached and generated, cache hits, time to first token and decode speed.
func TestMetrics(t *testing.T) {
	_, ts := startServer(t, Config{APIKey: "k", Metrics: true})
	c := client(ts, option.WithAPIKey("k"))
	ctx := context.Background()
	before := scrape(t, ts, "k")
	assert.Zero(t, value(t, before, "litert_generated_tokens_total", nil))
	resp, err := c.Chat.Completions.New(ctx, userChat("Count the stars", 5))
	require.NoError(t, err)
	again, err := c.Chat.Completions.New(ctx, userChat("Count the stars", 5))
	require.NoError(t, err)
	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: testModel, Messages: nil})
	require.Error(t, err)

	m := scrape(t, ts, "k")
	const chat = "/v1/chat/completions"
	assert.Equal(t, 2.0, value(t, m, "litert_requests_total", map[string]string{"route": chat, "status": "200"}))
	assert.Equal(t, 1.0, value(t, m, "litert_requests_total", map[string]string{"route": chat, "status": "400"}))
	assert.GreaterOrEqual(t, value(t, m, "litert_requests_total", map[string]string{"route": "/metrics", "status": "200"}), 1.0)
	gen := resp.Usage.CompletionTokens + again.Usage.CompletionTokens
	assert.Equal(t, float64(gen), value(t, m, "litert_generated_tokens_total", nil))
	cached := again.Usage.PromptTokensDetails.CachedTokens
	assert.Equal(t, float64(cached), value(t, m, "litert_prompt_cached_tokens_total", nil))
	assert.Equal(t, float64(resp.Usage.PromptTokens+again.Usage.PromptTokens-cached), value(t, m, "litert_prompt_tokens_total", nil))
	assert.Equal(t, 1.0, value(t, m, "litert_prompt_cache_hits_total", nil))
	assert.Equal(t, 2.0, value(t, m, "litert_time_to_first_token_seconds", nil))
	if resp.Usage.CompletionTokens > 1 {
		assert.GreaterOrEqual(t, value(t, m, "litert_decode_tokens_per_second", nil), 1.0)
	}
	assert.Zero(t, value(t, m, "litert_requests_running", nil))
	assert.Zero(t, value(t, m, "litert_requests_waiting", nil))
	assert.GreaterOrEqual(t, value(t, m, "litert_cached_sessions", nil), 1.0)

	// Behind the key; absent without Config.Metrics.
	r, err := ts.Client().Get(ts.URL + "/metrics")
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	_, plain := startServer(t, Config{})
	r, err = plain.Client().Get(plain.URL + "/metrics")
	require.NoError(t, err)
	var body struct{ Error apiError }
	require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
	r.Body.Close()
	assert.Equal(t, http.StatusNotFound, r.StatusCode)
}
