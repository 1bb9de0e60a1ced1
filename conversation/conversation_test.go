package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testdata = "../../shared/testdata"

// engines caches one engine per model across tests (closed in TestMain):
// key → *engine.Engine.
var engines sync.Map

// testEngine opens a tiny synthetic qwen2 model with the given chat template
// file from the templates fixture folder ("" keeps the model's own). With
// realVocab it carries the real 151 936-token Qwen2 vocabulary, otherwise a
// synthetic 512-token one with the same special tokens, which keeps the
// tests fast.
func testEngine(t *testing.T, templateFile string, realVocab ...bool) *engine.Engine {
	t.Helper()
	opts := synth.Options{Seed: 7, Type: ggml.F32}
	key := templateFile
	if len(realVocab) > 0 && realVocab[0] {
		opts.VocabFile = filepath.Join(testdata, "vocab", "ggml-vocab-qwen2.gguf")
		if _, err := os.Stat(opts.VocabFile); err != nil {
			t.Skipf("qwen2 vocabulary fixture absent (%v)", err)
		}
		key += "+qwen2vocab"
	}
	if e, ok := engines.Load(key); ok {
		return e.(*engine.Engine)
	}
	if templateFile != "" {
		src, err := os.ReadFile(filepath.Join(testdata, "templates", templateFile))
		if err != nil {
			t.Skipf("template fixture absent (%v)", err)
		}
		opts.ChatTemplate = string(src)
	}
	path := filepath.Join(testDir, strings.NewReplacer("/", "_", "+", "_").Replace("m-"+key+".gguf"))
	require.NoError(t, synth.WriteFile(path, "tiny-qwen2.5-0.5b", opts))
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	if prev, loaded := engines.LoadOrStore(key, eng); loaded {
		eng.Close()
		return prev.(*engine.Engine)
	}
	return eng
}

var testDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "conversation-test")
	if err != nil {
		panic(err)
	}
	testDir = dir
	code := m.Run()
	engines.Range(func(_, e any) bool { e.(*engine.Engine).Close(); return true })
	os.RemoveAll(dir)
	os.Exit(code)
}

// checkKV asserts that the session's tokens spell exactly the closed
// history as the template renders it, and that its logits equal those of a
// fresh session prefilled with the same tokens in one batch.
func checkKV(t *testing.T, c *Conversation) {
	t.Helper()
	checkKVWithin(t, c, 1e-3)
}

// checkKVWithin is checkKV with the logits within tol of the fresh ones.
func checkKVWithin(t *testing.T, c *Conversation, tol float64) {
	t.Helper()
	require.NotEmpty(t, c.kvText, "the KV text should be known after a turn")
	text, err := c.tok.DecodeSpecial(c.sess.Tokens())
	require.NoError(t, err)
	assert.Equal(t, c.kvText, text)
	closed, err := c.render(context.Background(), c.history, false, nil, c.cfg.Preface.Tools)
	require.NoError(t, err)
	assert.Equal(t, closed, c.kvText)

	fresh, err := session.New(c.eng, session.Config{BatchSize: 512})
	require.NoError(t, err)
	require.NoError(t, fresh.Prefill(context.Background(), c.sess.Tokens()))
	a, b := c.sess.Logits(), fresh.Logits()
	require.Equal(t, len(a), len(b))
	for i := range a {
		require.InDelta(t, b[i], a[i], tol, "logit %d", i)
	}
}

func TestDeltaPrefill(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja", true)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{
		Preface:        Preface{Messages: []Message{SystemText("You are terse.")}},
		MaxTokens:      4,
		PrefillPreface: true,
	})
	require.NoError(t, err)
	for i, q := range []string{"Hello!", "What is 2+2?", "Thanks — 谢谢 🙂"} {
		before := c.TokenCount()
		r, err := c.SendMessage(ctx, UserText(q))
		require.NoError(t, err, "turn %d", i)
		assert.Equal(t, before, r.Usage.CachedTokens, "turn %d reuses the whole cache", i)
		assert.Greater(t, r.Usage.PromptTokens, r.Usage.CachedTokens)
		assert.LessOrEqual(t, r.Usage.CompletionTokens, 4)
		assert.Positive(t, r.PrefillTokensPerSecond(), "turn %d prefills its new tokens", i)
		checkKV(t, c)
	}
	assert.Equal(t, 0, c.Stats().Fallbacks, "ChatML extends its prompt, no fallback")
	assert.Len(t, c.History(), 7)

	// The delta of a turn equals tokenizing the whole render: compare the
	// prompt of one more turn built both ways.
	hist := append(c.History(), UserText("one more"))
	full, err := c.render(context.Background(), hist, true, nil, nil)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(full, c.kvText))
	delta := c.encodePrompt(full[len(c.kvText):], false)
	assert.Equal(t, c.encodePrompt(full, true), append(c.encodePrompt(c.kvText, true), delta...),
		"tokenizing the delta alone equals tokenizing the whole render")
	text, err := c.tok.DecodeSpecial(append(c.sess.Tokens(), delta...))
	require.NoError(t, err)
	assert.Equal(t, full, text)
}

// A template that rewrites earlier turns (here: the turn count in the
// system prompt) defeats the prefix check; the conversation re-prefills
// from the common token prefix and still matches a full render.
func TestPrefixFallback(t *testing.T) {
	eng := testEngine(t, "")
	src := `{% for m in messages %}<|im_start|>{{ m.role }}{% if loop.first %} (turns: {{ messages|length }}){% endif %}
{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`
	c, err := New(context.Background(), eng, Config{MaxTokens: 3})
	require.NoError(t, err)
	c.tmpl, err = parseTemplate(src)
	require.NoError(t, err)
	for _, q := range []string{"a", "b", "c"} {
		r, err := c.SendMessage(context.Background(), UserText(q))
		require.NoError(t, err)
		assert.Less(t, r.Usage.CachedTokens, r.Usage.PromptTokens)
	}
	assert.Greater(t, c.Stats().Fallbacks, 0)
	text, err := c.tok.DecodeSpecial(c.sess.Tokens())
	require.NoError(t, err)
	hist := c.History()
	prompt, err := c.render(context.Background(), hist[:len(hist)-1], true, nil, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, prompt), "session holds the last full render, then the reply:\n%q\n%q", text, prompt)
}

type weatherIn struct {
	Location string `json:"location" description:"city name" enum:"Paris,Rome,Tokyo"`
}

func TestToolRoundTrip(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	var calls []string
	var mu sync.Mutex
	weather := tools.Define("get_weather", "Gets the weather in a city", func(ctx context.Context, in weatherIn) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, in.Location)
		return "sunny in " + in.Location, nil
	})
	c, err := New(context.Background(), eng, Config{MaxTokens: 128, Sampler: session.Sampler{Temperature: 1, Seed: 3}})
	require.NoError(t, err)
	r, err := c.SendMessage(context.Background(), UserText("Weather in Paris?"),
		WithTools(weather), WithToolChoice(ToolChoiceRequired), WithMaxToolTurns(1), WithParallelToolCalls(false))
	require.NoError(t, err)
	require.Len(t, r.ToolRuns, 1, "the grammar forces exactly one round of calls: %+v", r.Added)
	assert.NoError(t, r.ToolRuns[0].Err)
	assert.True(t, r.ToolLimitReached)
	mu.Lock()
	assert.NotEmpty(t, calls)
	mu.Unlock()
	hist := c.History()
	roles := []string{}
	for _, m := range hist {
		roles = append(roles, m.Role)
	}
	require.GreaterOrEqual(t, len(hist), 4)
	assert.Equal(t, []string{"user", "assistant"}, roles[:2])
	assert.NotEmpty(t, hist[1].ToolCalls)
	assert.Equal(t, "tool", roles[2])
	assert.Equal(t, "assistant", roles[len(roles)-1])
	assert.Empty(t, hist[len(hist)-1].ToolCalls, "after the limit the reply is text only")
	var args weatherIn
	require.NoError(t, json.Unmarshal(hist[1].ToolCalls[0].Arguments, &args))

	// Manual loop: the calls come back to the caller.
	c2, err := New(context.Background(), eng, Config{MaxTokens: 128, Sampler: session.Sampler{Temperature: 1, Seed: 4}})
	require.NoError(t, err)
	r, err = c2.SendMessage(context.Background(), UserText("Weather in Rome?"),
		WithTools(weather), WithToolChoice("get_weather"), WithReturnToolRequests(), WithParallelToolCalls(false))
	require.NoError(t, err)
	require.NotEmpty(t, r.ToolCalls)
	assert.Equal(t, "get_weather", r.ToolCalls[0].Name)
	out, err := weather.RunRaw(context.Background(), r.ToolCalls[0].Arguments)
	require.NoError(t, err)
	r, err = c2.SendMessage(context.Background(), ToolResult(r.ToolCalls[0], string(out)), WithTools(weather), WithToolChoice(ToolChoiceNone))
	require.NoError(t, err)
	assert.Empty(t, r.ToolCalls)
}

func TestStreamingAndAsync(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{MaxTokens: 12, Sampler: session.Sampler{Temperature: 1, Seed: 9}})
	require.NoError(t, err)
	var text strings.Builder
	var final *Reply
	for ch, err := range c.SendMessageStream(context.Background(), UserText("stream please")) {
		require.NoError(t, err)
		text.WriteString(ch.Text)
		if ch.Done {
			final = ch.Reply
		}
	}
	require.NotNil(t, final)
	assert.Equal(t, final.Text, strings.TrimSpace(text.String()))

	done := make(chan error, 1)
	var got []Message
	c.SendMessageAsync(context.Background(), UserText("again"), func(m Message, err error) {
		if err != nil || (m.Text == "" && m.ReasoningContent == "") {
			done <- err
			return
		}
		got = append(got, m)
	})
	require.NoError(t, <-done)
	assert.Len(t, c.History(), 4)

	// Breaking out of a stream cancels the turn and keeps the history.
	for range c.SendMessageStream(context.Background(), UserText("stop early")) {
		break
	}
	assert.Len(t, c.History(), 4)
}

func TestFailedTurnKeepsHistory(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	_, err = c.SendMessage(context.Background(), UserText("hi"))
	require.NoError(t, err)
	before := c.History()
	tokens := c.TokenCount()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.SendMessage(ctx, UserText("cancelled"))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, c.History())

	img := filepath.Join(t.TempDir(), "x.wav")
	require.NoError(t, os.WriteFile(img, wav(16000, 1, 16, 100), 0o644))
	_, err = c.SendMessage(context.Background(), Message{Role: RoleUser, Parts: []Part{{Type: "text", Text: "listen"}, {Type: "audio", Path: img}}})
	require.ErrorIs(t, err, ErrNoEncoder)
	assert.ErrorContains(t, err, "has no audio encoder")
	assert.Equal(t, before, c.History())
	assert.GreaterOrEqual(t, c.TokenCount(), tokens-1)

	// The conversation still works after failures.
	_, err = c.SendMessage(context.Background(), UserText("still there?"))
	require.NoError(t, err)
	checkKV(t, c)
}

func TestConcurrentConversations(t *testing.T) {
	eng := testEngine(t, "")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	replies := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := New(context.Background(), eng, Config{MaxTokens: 5})
			if err != nil {
				errs <- err
				return
			}
			r, err := c.SendMessage(context.Background(), UserText("same question"))
			if err != nil {
				errs <- err
				return
			}
			replies[i] = r.Text
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for i := 1; i < 4; i++ {
		assert.Equal(t, replies[0], replies[i], "greedy replies agree across goroutines")
	}
}

func TestCloneContinuesIdentically(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{MaxTokens: 4})
	require.NoError(t, err)
	_, err = c.SendMessage(context.Background(), UserText("first"))
	require.NoError(t, err)
	d, err := c.Clone()
	require.NoError(t, err)
	r1, err := c.SendMessage(context.Background(), UserText("second"))
	require.NoError(t, err)
	r2, err := d.SendMessage(context.Background(), UserText("second"))
	require.NoError(t, err)
	assert.Equal(t, r1.Text, r2.Text)
	assert.Equal(t, r1.Usage, r2.Usage)
}

func TestBadOptions(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{})
	require.NoError(t, err)
	_, err = c.SendMessage(context.Background(), UserText("x"), WithToolChoice("nope"))
	assert.ErrorContains(t, err, `tool choice "nope" names no declared tool`)
	_, err = c.SendMessage(context.Background(), Message{Role: "robot", Text: "x"})
	assert.ErrorContains(t, err, `unknown role "robot"`)
	_, err = New(context.Background(), eng, Config{ToolFormat: "klingon"})
	assert.ErrorContains(t, err, `unknown tool-call format "klingon"`)
	assert.False(t, errors.Is(err, context.Canceled))
}

// Streamed chunks are whole UTF-8, never show tool-call syntax, and
// concatenate to the final answer; a stop string ends the reply without
// being shown.
func TestStreamChunks(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	weather := tools.Define("get_weather", "Gets the weather in a city", func(ctx context.Context, in weatherIn) (string, error) {
		return "sunny", nil
	})
	c, err := New(context.Background(), eng, Config{MaxTokens: 120, Sampler: session.Sampler{Temperature: 1, Seed: 5}})
	require.NoError(t, err)
	var text strings.Builder
	var final *Reply
	for ch, err := range c.SendMessageStream(context.Background(), UserText("weather?"),
		WithTools(weather), WithToolChoice(ToolChoiceRequired), WithReturnToolRequests(), WithParallelToolCalls(false)) {
		require.NoError(t, err)
		assert.False(t, endsMidRune(ch.Text), "chunk %q splits a character", ch.Text)
		assert.NotContains(t, ch.Text, "<tool_call>")
		text.WriteString(ch.Text)
		if ch.Done {
			final = ch.Reply
		}
	}
	require.NotNil(t, final)
	require.NotEmpty(t, final.ToolCalls, "a forced call is parsed")
	assert.Equal(t, final.Text, strings.TrimSpace(text.String()))

	// Stop strings: sample freely, then stop at the first letter "e".
	c, err = New(context.Background(), eng, Config{MaxTokens: 60, Sampler: session.Sampler{Temperature: 1, Seed: 6}})
	require.NoError(t, err)
	text.Reset()
	for ch, err := range c.SendMessageStream(context.Background(), UserText("say something"), WithStop("e")) {
		require.NoError(t, err)
		assert.False(t, endsMidRune(ch.Text), "chunk %q splits a character", ch.Text)
		text.WriteString(ch.Text)
		if ch.Done {
			final = ch.Reply
		}
	}
	assert.NotContains(t, text.String(), "e")
	assert.NotContains(t, final.Text, "e")
}

// A call to a tool that has no Go function, or whose function fails, gives
// the model an error result it can react to; the turn still ends in text.
func TestToolErrorsGoBackToModel(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	boom := tools.Define("boom", "Always fails", func(ctx context.Context, in weatherIn) (string, error) {
		return "", errors.New("the weather service is down")
	})
	ghost := ToolDecl{Name: "ghost", Description: "declared, not implemented",
		Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"enum":["a","b"]}},"required":["x"]}`)}
	c, err := New(context.Background(), eng, Config{MaxTokens: 120, Sampler: session.Sampler{Temperature: 1, Seed: 8},
		Preface: Preface{Tools: []ToolDecl{ghost}}})
	require.NoError(t, err)
	for _, choice := range []ToolChoice{"ghost", "boom"} {
		r, err := c.SendMessage(context.Background(), UserText("try "+string(choice)),
			WithTools(boom), WithToolChoice(choice), WithMaxToolTurns(1), WithParallelToolCalls(false))
		require.NoError(t, err)
		require.Len(t, r.ToolRuns, 1)
		require.Error(t, r.ToolRuns[0].Err)
		assert.Contains(t, r.ToolRuns[0].Result, `"error"`)
		assert.True(t, r.ToolLimitReached)
		assert.Empty(t, r.ToolCalls, "the turn ends with a text reply")
		var toolMsg Message
		for _, m := range r.Added {
			if m.Role == RoleTool {
				toolMsg = m
			}
		}
		assert.Equal(t, string(choice), toolMsg.Name)
		assert.Contains(t, toolMsg.Text, "error")
	}
}

// endsMidRune reports whether s ends inside a multi-byte UTF-8 character
// (a lead byte whose continuation bytes have not all arrived). Bytes that
// can never be valid UTF-8, which a random model may emit, do not count.
func endsMidRune(s string) bool {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		if s[i]&0xC0 != 0x80 { // not a continuation byte
			return s[i] >= 0xC0 && !utf8.FullRuneInString(s[i:])
		}
	}
	return false
}
