package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testdata = "../../shared/testdata"

// testModel is the model id the test servers serve.
const testModel = "tiny-qwen"

// fixture is the synthetic model and its engine, made once and shared by
// the package's tests (an Engine serves many sessions).
var fixture struct {
	once sync.Once
	dir  string
	eng  *engine.Engine
	err  error
	skip string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.eng != nil {
		fixture.eng.Close()
	}
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// testEngine returns a tiny random-weight Qwen 2.5 model with the real
// Qwen2 vocabulary and chat template (Hermes tool calls), with a context of
// 2048 tokens.
func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	fixture.once.Do(func() {
		vocab := filepath.Join(testdata, "vocab", "ggml-vocab-qwen2.gguf")
		tmplFile := filepath.Join(testdata, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
		if _, err := os.Stat(vocab); err != nil {
			fixture.skip = "test data absent (" + err.Error() + "): the server tests need ../shared/testdata"
			return
		}
		tmpl, err := os.ReadFile(tmplFile)
		if err != nil {
			fixture.skip = "chat template fixture absent: " + err.Error()
			return
		}
		if fixture.dir, fixture.err = os.MkdirTemp("", "server-test"); fixture.err != nil {
			return
		}
		path := filepath.Join(fixture.dir, "tiny-qwen.gguf")
		opts := synth.Options{Seed: 1, Type: ggml.F32, VocabFile: vocab, ChatTemplate: string(tmpl)}
		if fixture.err = synth.WriteFile(path, "tiny-qwen2.5-0.5b", opts); fixture.err != nil {
			return
		}
		fixture.eng, fixture.err = engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048, Threads: 1})
		if fixture.err == nil {
			_, fixture.err = fixture.eng.ConstraintVocab() // build it once, outside timed code
		}
	})
	if fixture.skip != "" {
		t.Skip(fixture.skip)
	}
	require.NoError(t, fixture.err)
	return fixture.eng
}

// startServer serves a Server for the test model on a loopback port.
func startServer(t testing.TB, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	eng := testEngine(t)
	if cfg.ModelID == "" {
		cfg.ModelID = testModel
	}
	s, err := New(eng, cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// client is the official OpenAI Go client pointed at ts, without retries.
func client(ts *httptest.Server, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(ts.URL + "/v1"), option.WithAPIKey("test"), option.WithMaxRetries(0),
		option.WithHTTPClient(ts.Client()),
	}, opts...)...)
}

func userChat(text string, maxTokens int64) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:       testModel,
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are terse."), openai.UserMessage(text)},
		MaxTokens:   openai.Int(maxTokens),
		Temperature: openai.Float(0),
	}
}

func TestChatCompletion(t *testing.T) {
	s, ts := startServer(t, Config{})
	c := client(ts)
	ctx := context.Background()
	params := userChat("Hello there", 5)
	resp, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, "chat.completion", string(resp.Object))
	assert.Equal(t, testModel, resp.Model)
	assert.Regexp(t, `^chatcmpl-`, resp.ID)
	require.Len(t, resp.Choices, 1)
	ch := resp.Choices[0]
	assert.Equal(t, "assistant", string(ch.Message.Role))
	assert.Empty(t, ch.Message.ToolCalls)

	// Usage is exact: the prompt is the template's rendering, tokenized.
	hist, aerr := convertMessages([]chatMessage{
		{Role: "system", Content: json.RawMessage(`"You are terse."`)},
		{Role: "user", Content: json.RawMessage(`"Hello there"`)},
	}, mediaSource{})
	require.Nil(t, aerr)
	prompt, err := s.prompter.Chat(context.Background(), hist, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(prompt.Len()), resp.Usage.PromptTokens)
	assert.Equal(t, resp.Usage.PromptTokens+resp.Usage.CompletionTokens, resp.Usage.TotalTokens)
	// A random-weight model runs to the token budget unless it samples an
	// end-of-turn token.
	assert.LessOrEqual(t, resp.Usage.CompletionTokens, int64(5))
	if resp.Usage.CompletionTokens == 5 {
		assert.Equal(t, "length", ch.FinishReason)
	} else {
		assert.Equal(t, "stop", ch.FinishReason)
	}

	// Greedy decoding is reproducible, and the second identical request
	// reuses the whole prompt but its last token from the cache.
	again, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, ch.Message.Content, again.Choices[0].Message.Content)
	assert.Equal(t, resp.Usage.PromptTokens-1, again.Usage.PromptTokensDetails.CachedTokens)

	// A seed makes sampling reproducible.
	seeded := userChat("Hello there", 6)
	seeded.Temperature = openai.Float(1.5)
	seeded.Seed = openai.Int(42)
	a, err := c.Chat.Completions.New(ctx, seeded)
	require.NoError(t, err)
	b, err := c.Chat.Completions.New(ctx, seeded)
	require.NoError(t, err)
	assert.Equal(t, a.Choices[0].Message.Content, b.Choices[0].Message.Content)
}

func TestChatStream(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	ctx := context.Background()
	params := userChat("Tell me a story", 8)
	want, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)

	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	var last openai.ChatCompletionChunk
	for stream.Next() {
		chunk := stream.Current()
		require.True(t, acc.AddChunk(chunk))
		assert.Equal(t, "chat.completion.chunk", string(chunk.Object))
		chunks++
		last = chunk
	}
	require.NoError(t, stream.Err())
	require.NoError(t, stream.Close())
	assert.GreaterOrEqual(t, chunks, 3, "role/content chunks, the finish chunk and the usage chunk")
	// The usage chunk comes last, with no choices.
	assert.Empty(t, last.Choices)
	assert.Equal(t, want.Usage.PromptTokens, last.Usage.PromptTokens)
	assert.Equal(t, want.Usage.CompletionTokens, last.Usage.CompletionTokens)
	assert.Equal(t, want.Usage.PromptTokens-1, last.Usage.PromptTokensDetails.CachedTokens)
	require.Len(t, acc.Choices, 1)
	assert.Equal(t, want.Choices[0].Message.Content, acc.Choices[0].Message.Content, "streamed text equals the non-streamed reply")
	assert.Equal(t, want.Choices[0].FinishReason, acc.Choices[0].FinishReason)
}

func TestRawStreamFormat(t *testing.T) {
	_, ts := startServer(t, Config{})
	body := `{"model":"tiny-qwen","stream":true,"max_tokens":3,"temperature":0,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := ts.Client().Post(ts.URL+"/v1/chat/completions", "application/json", stringsReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := readEvents(t, resp.Body)
	require.NotEmpty(t, events)
	assert.Equal(t, "[DONE]", events[len(events)-1])
	var first chatCompletion
	require.NoError(t, json.Unmarshal([]byte(events[0]), &first))
	assert.Equal(t, "assistant", first.Choices[0].Delta.Role)
	var fin chatCompletion
	require.NoError(t, json.Unmarshal([]byte(events[len(events)-2]), &fin))
	require.NotNil(t, fin.Choices[0].FinishReason)
	assert.Nil(t, fin.Usage, "no usage without stream_options.include_usage")
}

func TestModelsAndHealth(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	page, err := c.Models.List(context.Background())
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, testModel, page.Data[0].ID)
	m, err := c.Models.Get(context.Background(), testModel)
	require.NoError(t, err)
	assert.Equal(t, "model", string(m.Object))

	resp, err := ts.Client().Get(ts.URL + "/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	var h health
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	assert.Equal(t, "ok", h.Status)
}

func TestCompletions(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	ctx := context.Background()
	params := openai.CompletionNewParams{
		Model:       testModel,
		Prompt:      openai.CompletionNewParamsPromptUnion{OfString: openai.String("The capital of France is")},
		MaxTokens:   openai.Int(4),
		Temperature: openai.Float(0),
	}
	resp, err := c.Completions.New(ctx, params)
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	assert.Equal(t, "text_completion", string(resp.Object))
	assert.Equal(t, int64(len(testEngine(t).Tokenizer().Encode("The capital of France is", tokenizerOpts))), resp.Usage.PromptTokens)
	assert.LessOrEqual(t, resp.Usage.CompletionTokens, int64(4))

	stream := c.Completions.NewStreaming(ctx, params)
	text := ""
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			text += ch.Text
		}
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, resp.Choices[0].Text, text)
}
