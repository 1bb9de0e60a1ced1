package conversation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
)

// demoEngine opens the tiny trained model that writes Qwen2.5-style tool
// calls by itself (see its .md in the test data).
func demoEngine(t *testing.T) *engine.Engine {
	t.Helper()
	path := filepath.Join(testdata, "models", "litert-demo-tools-q8_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("demo tool-calling model absent (%v)", err)
	}
	if e, ok := engines.Load(path); ok {
		return e.(*engine.Engine)
	}
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	if prev, loaded := engines.LoadOrStore(path, eng); loaded {
		eng.Close()
		return prev.(*engine.Engine)
	}
	return eng
}

type cityIn struct {
	City string `json:"city" description:"the city"`
	Unit string `json:"unit,omitempty" description:"celsius or fahrenheit"`
}

// The trained model calls get_weather by itself; the automatic loop runs
// it, and the stream shows the call (name first, then its arguments), the
// result, and the answer, in that order.
func TestStreamedToolLoop(t *testing.T) {
	eng := demoEngine(t)
	var ran []string
	weather := tools.Define("get_weather", "Get the current weather in a city", func(ctx context.Context, in cityIn) (string, error) {
		ran = append(ran, in.City)
		return `{"temperature": 21, "conditions": "sunny"}`, nil
	})
	c, err := New(context.Background(), eng, Config{MaxTokens: 96})
	require.NoError(t, err)
	assert.Equal(t, "hermes", c.ToolFormat().Name())
	var events []string
	args := map[int]string{}
	names := map[int]string{}
	var text strings.Builder
	var final *Reply
	for ch, err := range c.SendMessageStream(context.Background(), UserText("What's the weather in Paris?"), WithTools(weather)) {
		require.NoError(t, err)
		switch {
		case ch.ToolCall != nil:
			d := ch.ToolCall
			if d.Name != "" {
				events = append(events, "call:"+d.Name)
				names[d.Index] = d.Name
				assert.NotEmpty(t, d.ID)
			}
			args[d.Index] += d.Arguments
		case ch.ToolResult != nil:
			events = append(events, "result:"+ch.ToolResult.Call.Name)
		case ch.Text != "":
			if len(events) == 0 || events[len(events)-1] != "text" {
				events = append(events, "text")
			}
			text.WriteString(ch.Text)
		case ch.Done:
			final = ch.Reply
		}
	}
	require.NotNil(t, final)
	require.NotEmpty(t, ran, "the model's own call ran: %+v", final.Added)
	require.GreaterOrEqual(t, len(events), 3, "events: %v", events)
	assert.Equal(t, []string{"call:get_weather", "result:get_weather"}, events[:2])
	assert.Equal(t, "text", events[len(events)-1])
	assert.Equal(t, FinishStop, final.FinishReason)
	assert.Equal(t, final.Text, strings.TrimSpace(text.String()))
	// The streamed arguments reassemble to the call kept in the history.
	hist := c.History()
	require.Len(t, hist, 4, "user, assistant call, tool result, answer")
	require.Len(t, hist[1].ToolCalls, 1)
	assert.Equal(t, names[0], hist[1].ToolCalls[0].Name)
	assert.JSONEq(t, string(hist[1].ToolCalls[0].Arguments), args[0])
	assert.Equal(t, hist[1].ToolCalls[0].ID, hist[2].ToolCallID)
}

// Replies say why they ended: stop, length, tool_calls; a constrained
// reply cut by the token limit is an *IncompleteError with its text.
func TestFinishReasons(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 4, Sampler: session.Sampler{Temperature: 1, Seed: 2}})
	require.NoError(t, err)

	r, err := c.SendMessage(ctx, UserText("ramble"))
	require.NoError(t, err)
	assert.Equal(t, FinishLength, r.FinishReason)

	yes, err := constrain.Regex("yes|no")
	require.NoError(t, err)
	r, err = c.SendMessage(ctx, UserText("yes or no?"), WithConstraint(yes))
	require.NoError(t, err)
	assert.Equal(t, FinishStop, r.FinishReason)
	assert.Contains(t, []string{"yes", "no"}, r.Text)

	obj, err := constrain.JSONSchema([]byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`))
	require.NoError(t, err)
	before := c.History()
	r, err = c.SendMessage(ctx, UserText("json please"), WithConstraint(obj), WithMaxTokens(3))
	var inc *IncompleteError
	require.ErrorAs(t, err, &inc)
	assert.Equal(t, FinishLength, inc.Reason)
	assert.NotEmpty(t, inc.Text)
	assert.False(t, json.Valid([]byte(inc.Text)))
	require.NotNil(t, r)
	assert.Equal(t, FinishLength, r.FinishReason)
	assert.Equal(t, before, c.History(), "an incomplete reply is not committed")

	weather := tools.Define("get_weather", "Gets the weather in a city", func(ctx context.Context, in weatherIn) (string, error) {
		return "sunny", nil
	})
	r, err = c.SendMessage(ctx, UserText("weather?"), WithTools(weather), WithToolChoice(ToolChoiceRequired),
		WithReturnToolRequests(), WithParallelToolCalls(false), WithMaxTokens(400))
	require.NoError(t, err)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, FinishToolCalls, r.FinishReason)
}

// When the token limit cuts a later call, the calls written before it are
// kept (and run by the automatic loop), and the cut one is reported.
func TestCutCallKeepsEarlierCalls(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	weather := tools.Define("get_weather", "Gets the weather in a city", func(ctx context.Context, in weatherIn) (string, error) {
		return "sunny in " + in.Location, nil
	})
	// Find a seed whose forced reply holds at least two calls.
	for seed := uint64(1); seed < 40; seed++ {
		smp := session.Sampler{Temperature: 1, Seed: seed}
		c, err := New(ctx, eng, Config{MaxTokens: 400, Sampler: smp})
		require.NoError(t, err)
		r, err := c.SendMessage(ctx, UserText("weather in three cities"), WithTools(weather),
			WithToolChoice(ToolChoiceRequired), WithReturnToolRequests())
		require.NoError(t, err)
		if len(r.ToolCalls) < 2 || r.FinishReason != FinishToolCalls {
			continue
		}
		// Replay the same sampling with a limit that falls inside the
		// last call: every call before it must survive.
		limit := r.Usage.CompletionTokens - 3
		c2, err := New(ctx, eng, Config{MaxTokens: limit, Sampler: smp})
		require.NoError(t, err)
		r2, err := c2.SendMessage(ctx, UserText("weather in three cities"), WithTools(weather),
			WithToolChoice(ToolChoiceRequired), WithReturnToolRequests())
		require.NoError(t, err)
		assert.Equal(t, FinishLength, r2.FinishReason)
		require.Len(t, r2.ToolCalls, len(r.ToolCalls)-1)
		for i := range r2.ToolCalls {
			assert.Equal(t, r.ToolCalls[i].Name, r2.ToolCalls[i].Name)
			assert.JSONEq(t, string(r.ToolCalls[i].Arguments), string(r2.ToolCalls[i].Arguments))
		}
		require.NotNil(t, r2.Truncated, "the cut call is reported")

		// The automatic loop runs the complete calls, then reports the cut.
		c3, err := New(ctx, eng, Config{MaxTokens: limit, Sampler: smp})
		require.NoError(t, err)
		r3, err := c3.SendMessage(ctx, UserText("weather in three cities"), WithTools(weather), WithToolChoice(ToolChoiceRequired))
		require.NoError(t, err)
		assert.Equal(t, FinishLength, r3.FinishReason)
		assert.Len(t, r3.ToolRuns, len(r.ToolCalls)-1)
		return
	}
	t.Fatal("no seed gave two parallel calls in 40 tries")
}

// A turn cancelled after a tool ran keeps the call and its result in the
// history (the tool's side effects happened) and says where it stopped.
func TestCancelAfterToolRanKeepsHistory(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	write := tools.Define("get_weather", "Gets the weather in a city", func(_ context.Context, in weatherIn) (string, error) {
		once.Do(cancel) // the user presses Ctrl-C while the tool runs
		return "written", nil
	})
	c, err := New(context.Background(), eng, Config{MaxTokens: 400, Sampler: session.Sampler{Temperature: 1, Seed: 3}})
	require.NoError(t, err)
	r, err := c.SendMessage(ctx, UserText("weather?"), WithTools(write), WithToolChoice(ToolChoiceRequired), WithParallelToolCalls(false))
	require.Error(t, err)
	require.ErrorIs(t, err, context.Canceled)
	var te *TurnError
	require.ErrorAs(t, err, &te)
	require.NotNil(t, r)
	assert.Equal(t, FinishCancelled, r.FinishReason)
	hist := c.History()
	require.Len(t, hist, 3, "user, the assistant's call, the tool result")
	assert.Equal(t, RoleAssistant, hist[1].Role)
	require.Len(t, hist[1].ToolCalls, 1)
	assert.Equal(t, RoleTool, hist[2].Role)
	assert.Equal(t, `"written"`, hist[2].Text, "the JSON result")
	assert.Equal(t, hist[1].ToolCalls[0].ID, hist[2].ToolCallID)

	// The conversation goes on from there.
	_, err = c.SendMessage(context.Background(), UserText("thanks"), WithMaxTokens(4))
	require.NoError(t, err)
	assert.Len(t, c.History(), 5)
}

// A preface in LiteRT-LM's JSON shape, roles "model" for the assistant,
// and a chat template that replaces the model's.
func TestPrefaceJSONModelRoleAndTemplateOverride(t *testing.T) {
	var p Preface
	require.NoError(t, json.Unmarshal([]byte(`{
		"messages": [{"role": "system", "content": ["You are a model that can do function calling."]},
			{"role": "user", "content": "hi"}, {"role": "model", "content": "hello"}],
		"tools": [{"name": "get_weather", "description": "Returns the weather for a given location.",
			"parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}],
		"extra_context": {"enable_thinking": false}}`), &p))
	require.Len(t, p.Messages, 3)
	assert.Equal(t, "You are a model that can do function calling.", p.Messages[0].Text)
	assert.Equal(t, RoleAssistant, p.Messages[2].Role)
	require.Len(t, p.Tools, 1)
	assert.Equal(t, "get_weather", p.Tools[0].Name)
	assert.Equal(t, map[string]any{"enable_thinking": false}, p.Extra)

	eng := testEngine(t, "")
	custom := "{% for m in messages %}<<{{ m.role }}>> {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}"
	c, err := New(context.Background(), eng, Config{ChatTemplate: custom, MaxTokens: 3, Preface: p})
	require.NoError(t, err)
	_, err = c.SendMessage(context.Background(), Message{Role: RoleModel, Text: "an assistant turn sent as model"})
	require.NoError(t, err)
	text, err := eng.Tokenizer().Decode(c.sess.Tokens())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, "<<system>> You are a model"), "%q", text)
	assert.Contains(t, text, "<<assistant>> an assistant turn sent as model")

	_, err = New(context.Background(), eng, Config{ChatTemplate: "{% if %}"})
	assert.ErrorContains(t, err, "chat template override")
}

// A template that raises on the render after a tool ran: the turn fails,
// but the call and its result stay in the history.
func TestRenderFailureAfterToolRanKeepsHistory(t *testing.T) {
	eng := testEngine(t, "")
	tmpl := "{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('tool results are not supported') }}{% endif %}" +
		"<|im_start|>{{ m.role }}\n{{ m.content }}{% for tc in m.tool_calls or [] %}<tool_call>\n{{ tc.function | tojson }}\n</tool_call>{% endfor %}<|im_end|>\n" +
		"{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
	ran := 0
	weather := tools.Define("get_weather", "Gets the weather in a city", func(ctx context.Context, in weatherIn) (string, error) {
		ran++
		return "sunny", nil
	})
	c, err := New(context.Background(), eng, Config{ChatTemplate: tmpl, ToolFormat: "hermes", MaxTokens: 400,
		Sampler: session.Sampler{Temperature: 1, Seed: 4}})
	require.NoError(t, err)
	r, err := c.SendMessage(context.Background(), UserText("weather?"), WithTools(weather),
		WithToolChoice(ToolChoiceRequired), WithParallelToolCalls(false))
	var te *TurnError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "render", te.Stage)
	assert.ErrorContains(t, err, "tool results are not supported")
	assert.Equal(t, 1, ran)
	require.NotNil(t, r)
	hist := c.History()
	require.Len(t, hist, 3)
	assert.Equal(t, []string{RoleUser, RoleAssistant, RoleTool}, []string{hist[0].Role, hist[1].Role, hist[2].Role})
	assert.Equal(t, `"sunny"`, hist[2].Text)
}
