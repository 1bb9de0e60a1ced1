package server

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/engine"
)

// The trained demo model calls get_weather by itself (tool_choice auto, no
// grammar needed): the server returns the parsed call, streamed as
// incremental deltas too; the client runs it and sends the result back, and
// the model answers in text.
func TestDemoModelCallsToolUnforced(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "testdata", "models", "litert-demo-tools-q8_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("demo tool-calling model absent (%v)", err)
	}
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	s, err := New(eng, Config{ModelID: "demo"})
	require.NoError(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	c := client(ts)
	ctx := context.Background()
	weather := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Get the current weather in a city"),
		Parameters: shared.FunctionParameters{"type": "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string"}},
			"required":   []string{"city"}},
	})
	params := openai.ChatCompletionNewParams{
		Model:       "demo",
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in Paris?")},
		Tools:       []openai.ChatCompletionToolUnionParam{weather},
		MaxTokens:   openai.Int(96),
		Temperature: openai.Float(0),
	}
	resp, err := c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	choice := resp.Choices[0]
	require.Len(t, choice.Message.ToolCalls, 1, "the model's own call: %+v", choice.Message)
	call := choice.Message.ToolCalls[0]
	assert.Equal(t, "get_weather", call.Function.Name)
	assert.Equal(t, "tool_calls", choice.FinishReason)

	// Streamed, the same call arrives in pieces.
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		require.True(t, acc.AddChunk(stream.Current()))
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, call.Function.Name, acc.Choices[0].Message.ToolCalls[0].Function.Name)
	assert.JSONEq(t, call.Function.Arguments, acc.Choices[0].Message.ToolCalls[0].Function.Arguments)

	// The client runs the tool and sends the result; the model answers.
	params.Messages = append(params.Messages, choice.Message.ToParam(),
		openai.ToolMessage(`{"temperature": 21, "conditions": "sunny"}`, call.ID))
	resp, err = c.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	assert.Empty(t, resp.Choices[0].Message.ToolCalls)
	assert.NotEmpty(t, resp.Choices[0].Message.Content)
	assert.Equal(t, "stop", resp.Choices[0].FinishReason)
}
