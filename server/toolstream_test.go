package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/conversation"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each conversation delta becomes one OpenAI tool_calls delta: the header
// (index, id, type, name, arguments "") then pieces of the arguments;
// finish sends only what the deltas did not.
func TestStreamedCallsShape(t *testing.T) {
	var events []string
	s := &streamedCalls{send: func(tc outToolCall) error {
		b, err := json.Marshal(tc)
		events = append(events, string(b))
		return err
	}}
	require.NoError(t, s.delta(conversation.ToolCallDelta{Index: 0, ID: "call00001", Name: "get_weather", Arguments: `{"city": `}))
	require.NoError(t, s.delta(conversation.ToolCallDelta{Index: 0, Arguments: `"Paris"}`}))
	require.NoError(t, s.delta(conversation.ToolCallDelta{Index: 1, ID: "model-id-7", Name: "get_time"}))
	require.NoError(t, s.delta(conversation.ToolCallDelta{Index: 1, Arguments: `{"tz": "C`}))
	require.Len(t, events, 5)
	var head outToolCall
	require.NoError(t, json.Unmarshal([]byte(events[0]), &head))
	assert.Regexp(t, `^call_[a-z0-9]{20,}$`, head.ID, "the positional id is replaced by a unique one")
	assert.JSONEq(t, `{"index":0,"id":"`+head.ID+`","type":"function","function":{"name":"get_weather","arguments":""}}`, events[0])
	assert.JSONEq(t, `{"index":0,"function":{"arguments":"{\"city\": "}}`, events[1])
	assert.JSONEq(t, `{"index":0,"function":{"arguments":"\"Paris\"}"}}`, events[2])
	assert.JSONEq(t, `{"index":1,"id":"model-id-7","type":"function","function":{"name":"get_time","arguments":""}}`, events[3], "the model's own id is kept")
	assert.JSONEq(t, `{"index":1,"function":{"arguments":"{\"tz\": \"C"}}`, events[4])

	// The final calls: call 1 completes, call 2 was never streamed.
	events = nil
	require.NoError(t, s.finish([]conversation.ToolCall{
		{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
		{ID: "model-id-7", Name: "get_time", Arguments: json.RawMessage(`{"tz": "CET"}`)},
		{ID: "call00003", Name: "noop"},
	}))
	require.Len(t, events, 3)
	assert.JSONEq(t, `{"index":1,"function":{"arguments":"ET\"}"}}`, events[0])
	var third outToolCall
	require.NoError(t, json.Unmarshal([]byte(events[1]), &third))
	assert.Equal(t, "noop", third.Function.Name)
	assert.Empty(t, third.Function.Arguments)
	assert.JSONEq(t, `{"index":2,"function":{"arguments":"{}"}}`, events[2], "a call without arguments gets {}")

	// A final call that contradicts what was streamed is an error.
	err := s.finish([]conversation.ToolCall{{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Rome"}`)}})
	assert.ErrorContains(t, err, "not a prefix")
	boom := errors.New("client gone")
	s = &streamedCalls{send: func(outToolCall) error { return boom }}
	assert.ErrorIs(t, s.delta(conversation.ToolCallDelta{Name: "x"}), boom)
}

func TestFinishReasonFromReply(t *testing.T) {
	for reason, want := range map[conversation.FinishReason]string{
		conversation.FinishStop: "stop", conversation.FinishLength: "length", conversation.FinishToolCalls: "tool_calls",
		"content_filter": "content_filter",
	} {
		assert.Equal(t, want, finishReason(&conversation.Reply{FinishReason: reason, Usage: conversation.Usage{CompletionTokens: 99}}, 10), reason)
	}
	// Per generation: a long tool loop's summed tokens do not make "length".
	assert.Equal(t, "stop", finishReason(&conversation.Reply{FinishReason: conversation.FinishStop, Usage: conversation.Usage{CompletionTokens: 500}}, 100))
	// The calls before a truncated one are kept, and the truncated one is
	// reported as OpenAI reports a cut-off call.
	r := &conversation.Reply{FinishReason: conversation.FinishLength,
		Message:   conversation.Message{ToolCalls: []conversation.ToolCall{{Name: "a"}, {Name: "b"}}},
		Truncated: &conversation.ToolCall{Name: "c", Arguments: json.RawMessage(`{"x": `)}}
	calls := replyCalls(r)
	require.Len(t, calls, 3)
	assert.Equal(t, "c", calls[2].Name)
	assert.Len(t, r.ToolCalls, 2, "the reply is not modified")
	r.Truncated.Name = ""
	assert.Len(t, replyCalls(r), 2, "a call cut before its name is not a call")
}

// toolRequest is a forced, parallel-allowed weather request.
func parallelWeather(seed int64, maxTokens int64) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:             testModel,
		Messages:          []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris, Tokyo and Paris again?")},
		Tools:             []openai.ChatCompletionToolUnionParam{weatherTool()},
		ToolChoice:        openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")},
		ParallelToolCalls: openai.Bool(true),
		MaxTokens:         openai.Int(maxTokens),
		Temperature:       openai.Float(1),
		Seed:              openai.Int(seed),
	}
}

func validCall(t *testing.T, call openai.ChatCompletionMessageToolCallUnion) {
	t.Helper()
	assert.Equal(t, "get_weather", call.Function.Name)
	var args struct {
		City string `json:"city"`
	}
	require.NoError(t, json.Unmarshal([]byte(call.Function.Arguments), &args), call.Function.Arguments)
	assert.Contains(t, []string{"Paris", "Tokyo"}, args.City)
}

type nameArgs struct{ Name, Arguments string }

func callsOf(calls []openai.ChatCompletionMessageToolCallUnion) []nameArgs {
	var out []nameArgs
	for _, c := range calls {
		out = append(out, nameArgs{c.Function.Name, c.Function.Arguments})
	}
	return out
}

// tool_choice "required" with parallel calls allowed and a max_tokens
// that cuts the third call: the two complete calls arrive with
// finish_reason "length" (the cut-off call after them, as OpenAI sends
// one), and the streamed deltas, reassembled by the client's accumulator,
// are the same calls.
func TestParallelCallsCutByMaxTokens(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	ctx := context.Background()

	// A seed with which the random model writes at least three calls.
	var seed int64
	var full *openai.ChatCompletion
	for s := int64(1); s <= 40 && full == nil; s++ {
		resp, err := c.Chat.Completions.New(ctx, parallelWeather(s, 400))
		require.NoError(t, err)
		if len(resp.Choices[0].Message.ToolCalls) >= 3 && resp.Choices[0].FinishReason == "tool_calls" {
			seed, full = s, resp
		}
	}
	require.NotNil(t, full, "no seed in 1..40 made the model write three calls")
	t.Logf("seed %d: %d calls in %d tokens", seed, len(full.Choices[0].Message.ToolCalls), full.Usage.CompletionTokens)
	for _, call := range full.Choices[0].Message.ToolCalls {
		validCall(t, call)
	}

	// The same sampling with a smaller budget: the largest one that cuts
	// the third call (generation is deterministic for a seed, and the
	// number of complete calls grows with the budget, so a binary search
	// finds it).
	complete := func(n int64) (*openai.ChatCompletion, int) {
		resp, err := c.Chat.Completions.New(ctx, parallelWeather(seed, n))
		require.NoError(t, err)
		k := 0
		for _, call := range resp.Choices[0].Message.ToolCalls {
			if json.Valid([]byte(call.Function.Arguments)) {
				k++
			}
		}
		return resp, k
	}
	var cut *openai.ChatCompletion
	var budget int64
	lo, hi := int64(1), full.Usage.CompletionTokens-1 // invariant: complete(hi) may be > 2
	for lo <= hi {
		mid := (lo + hi) / 2
		resp, k := complete(mid)
		if k <= 2 {
			if k == 2 {
				cut, budget = resp, mid
			}
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	require.NotNil(t, cut, "no budget cut the third call")
	t.Logf("budget %d cuts the third call", budget)
	ch := cut.Choices[0]
	assert.Equal(t, "length", ch.FinishReason)
	assert.Equal(t, budget, cut.Usage.CompletionTokens)
	calls := ch.Message.ToolCalls
	require.GreaterOrEqual(t, len(calls), 2, "the complete calls are kept")
	require.LessOrEqual(t, len(calls), 3)
	for i, call := range calls[:2] {
		validCall(t, call)
		assert.Equal(t, full.Choices[0].Message.ToolCalls[i].Function.Arguments, call.Function.Arguments)
		assert.Regexp(t, `^call_[a-z0-9]{20,}$`, call.ID)
	}
	if len(calls) == 3 {
		third := calls[2]
		assert.Equal(t, "get_weather", third.Function.Name)
		assert.False(t, json.Valid([]byte(third.Function.Arguments)), "the cut-off call: %s", third.Function.Arguments)
		assert.True(t, strings.HasPrefix(full.Choices[0].Message.ToolCalls[2].Function.Arguments, third.Function.Arguments),
			"its arguments are what the model wrote before the limit")
	}
	assert.NotEqual(t, calls[0].ID, calls[1].ID)

	// Streamed: the accumulator rebuilds the same calls.
	stream := c.Chat.Completions.NewStreaming(ctx, parallelWeather(seed, budget))
	var acc openai.ChatCompletionAccumulator
	deltas := 0
	for stream.Next() {
		chunk := stream.Current()
		require.True(t, acc.AddChunk(chunk))
		if len(chunk.Choices) > 0 {
			deltas += len(chunk.Choices[0].Delta.ToolCalls)
		}
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices, 1)
	assert.Equal(t, "length", acc.Choices[0].FinishReason)
	assert.Equal(t, callsOf(calls), callsOf(acc.Choices[0].Message.ToolCalls))
	assert.Greater(t, deltas, 2*len(calls), "the arguments arrived in pieces, not one chunk per call")

	// Unconstrained by the budget, streamed and non-streamed agree too,
	// and end with tool_calls.
	stream = c.Chat.Completions.NewStreaming(ctx, parallelWeather(seed, 400))
	acc = openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, "tool_calls", acc.Choices[0].FinishReason)
	assert.Equal(t, callsOf(full.Choices[0].Message.ToolCalls), callsOf(acc.Choices[0].Message.ToolCalls))
}

// The raw stream: each call's first delta has index, id, type "function",
// the name and empty arguments; the next ones only the index and a piece
// of the arguments.
func TestToolCallDeltaWireShape(t *testing.T) {
	_, ts := startServer(t, Config{})
	body := `{"model":"tiny-qwen","stream":true,"max_tokens":200,"temperature":1,"seed":3,"parallel_tool_calls":true,"tool_choice":"required",` +
		`"messages":[{"role":"user","content":"Weather in Paris?"}],` +
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string","enum":["Paris","Tokyo"]}},"required":["city"],"additionalProperties":false}}}]}`
	resp, err := ts.Client().Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	type delta struct {
		Index    *int    `json:"index"`
		ID       *string `json:"id"`
		Type     *string `json:"type"`
		Function struct {
			Name      *string `json:"name"`
			Arguments *string `json:"arguments"`
		} `json:"function"`
	}
	args := map[int]string{}
	seen := map[int]bool{}
	finish := ""
	for _, ev := range readEvents(t, resp.Body) {
		if ev == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls []delta `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(ev), &chunk), ev)
		if len(chunk.Choices) == 0 {
			continue
		}
		if f := chunk.Choices[0].FinishReason; f != nil {
			finish = *f
		}
		for _, d := range chunk.Choices[0].Delta.ToolCalls {
			require.NotNil(t, d.Index, ev)
			require.NotNil(t, d.Function.Arguments, ev)
			if !seen[*d.Index] {
				seen[*d.Index] = true
				require.NotNil(t, d.ID, ev)
				require.NotNil(t, d.Type, ev)
				require.NotNil(t, d.Function.Name, ev)
				assert.Equal(t, "function", *d.Type)
				assert.Equal(t, "get_weather", *d.Function.Name)
				assert.Empty(t, *d.Function.Arguments, "the header carries no arguments")
				continue
			}
			assert.Nil(t, d.ID, ev)
			assert.Nil(t, d.Type, ev)
			assert.Nil(t, d.Function.Name, ev)
			args[*d.Index] += *d.Function.Arguments
		}
	}
	require.NotEmpty(t, seen)
	assert.Equal(t, "tool_calls", finish)
	for i := range len(seen) {
		assert.True(t, json.Valid([]byte(args[i])), "call %d: %s", i, args[i])
	}
}
