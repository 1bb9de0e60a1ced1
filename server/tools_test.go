package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// weatherTool has an enum-constrained argument, so a forced call is short.
func weatherTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Current weather of a city"),
		Parameters: shared.FunctionParameters{
			"type": "object",
			"properties": map[string]any{
				"city": map[string]any{"type": "string", "enum": []string{"Paris", "Tokyo"}},
			},
			"required":             []string{"city"},
			"additionalProperties": false,
		},
	})
}

func TestToolRoundTrip(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		choice openai.ChatCompletionToolChoiceOptionUnionParam
	}{
		{"required", openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}},
		{"named", openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "get_weather"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := openai.ChatCompletionNewParams{
				Model:             testModel,
				Messages:          []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")},
				Tools:             []openai.ChatCompletionToolUnionParam{weatherTool()},
				ToolChoice:        tc.choice,
				ParallelToolCalls: openai.Bool(false),
				MaxTokens:         openai.Int(64),
				Temperature:       openai.Float(0),
			}
			resp, err := c.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
			ch := resp.Choices[0]
			assert.Equal(t, "tool_calls", ch.FinishReason)
			require.Len(t, ch.Message.ToolCalls, 1)
			call := ch.Message.ToolCalls[0]
			assert.Regexp(t, `^call_[a-z0-9]{20,}$`, call.ID)
			assert.Equal(t, "function", call.Type)
			assert.Equal(t, "get_weather", call.Function.Name)
			var args struct {
				City string `json:"city"`
			}
			require.NoError(t, json.Unmarshal([]byte(call.Function.Arguments), &args), call.Function.Arguments)
			assert.Contains(t, []string{"Paris", "Tokyo"}, args.City)

			// Send the result back: the model answers in text, and the
			// whole first exchange comes from the prompt cache.
			params.Messages = append(params.Messages, ch.Message.ToParam(), openai.ToolMessage(`{"temperature_c": 21}`, call.ID))
			params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
			params.MaxTokens = openai.Int(4)
			next, err := c.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
			assert.Empty(t, next.Choices[0].Message.ToolCalls)
			assert.NotEqual(t, "tool_calls", next.Choices[0].FinishReason)
			assert.GreaterOrEqual(t, next.Usage.PromptTokensDetails.CachedTokens, resp.Usage.PromptTokens+resp.Usage.CompletionTokens)
		})
	}
}

func TestToolCallStream(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	params := openai.ChatCompletionNewParams{
		Model:             testModel,
		Messages:          []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Tokyo?")},
		Tools:             []openai.ChatCompletionToolUnionParam{weatherTool()},
		ToolChoice:        openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")},
		ParallelToolCalls: openai.Bool(false),
		MaxTokens:         openai.Int(64),
	}
	stream := c.Chat.Completions.NewStreaming(context.Background(), params)
	var acc openai.ChatCompletionAccumulator
	var finished []openai.FinishedChatCompletionToolCall
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices, 1)
	assert.Equal(t, "tool_calls", acc.Choices[0].FinishReason)
	require.Len(t, acc.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, "get_weather", acc.Choices[0].Message.ToolCalls[0].Function.Name)
	assert.True(t, json.Valid([]byte(acc.Choices[0].Message.ToolCalls[0].Function.Arguments)))
	require.Len(t, finished, 1, "the accumulator saw the streamed call finish")
	assert.Equal(t, "get_weather", finished[0].Name)
	assert.Empty(t, acc.Choices[0].Message.Content, "a forced call has no text")
}

func TestJSONSchemaResponse(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"answer": map[string]any{"type": "string", "enum": []string{"yes", "no"}},
			"score":  map[string]any{"type": "integer", "minimum": 0, "maximum": 9},
			"ok":     map[string]any{"type": "boolean"},
		},
		"required":             []string{"answer", "score", "ok"},
		"additionalProperties": false,
	}
	for seed := int64(1); seed <= 3; seed++ {
		resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:       testModel,
			Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Is the sky blue? Answer in JSON.")},
			MaxTokens:   openai.Int(60),
			Temperature: openai.Float(1),
			Seed:        openai.Int(seed),
			ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "verdict", Schema: schema, Strict: openai.Bool(true)},
			}},
		})
		require.NoError(t, err)
		content := resp.Choices[0].Message.Content
		assert.Equal(t, "stop", resp.Choices[0].FinishReason, "the constraint ends the reply: %s", content)
		var v struct {
			Answer *string `json:"answer"`
			Score  *int    `json:"score"`
			OK     *bool   `json:"ok"`
		}
		dec := json.NewDecoder(stringsReader(content))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&v), content)
		require.NotNil(t, v.Answer, content)
		require.NotNil(t, v.Score, content)
		require.NotNil(t, v.OK, content)
		assert.Contains(t, []string{"yes", "no"}, *v.Answer)
		assert.True(t, *v.Score >= 0 && *v.Score <= 9, "score %d", *v.Score)
	}
}

func TestJSONObjectResponse(t *testing.T) {
	_, ts := startServer(t, Config{})
	c := client(ts)
	resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:          testModel,
		Messages:       []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Reply in JSON.")},
		MaxTokens:      openai.Int(12),
		Seed:           openai.Int(3),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
	})
	require.NoError(t, err)
	content := resp.Choices[0].Message.Content
	require.NotEmpty(t, content)
	assert.Equal(t, byte('{'), content[0], content)
	if resp.Choices[0].FinishReason == "stop" {
		assert.True(t, json.Valid([]byte(content)), content)
	}
}
