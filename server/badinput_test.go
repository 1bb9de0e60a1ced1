package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pngDataURL is a valid 2×2 PNG as a data: URL.
func pngDataURL(t *testing.T) string {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2))))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestBadInput(t *testing.T) {
	// Strict: the model must be named; the key is asked on /health too.
	_, ts := startServer(t, Config{APIKey: "sekret", MaxBodyBytes: 64 << 10, StrictModel: true, HealthNeedsKey: true})
	const chat = "/v1/chat/completions"
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	long := strings.Repeat("word ", 3000) // about 3000 tokens, over the 2048 context
	for _, tc := range []struct {
		name, method, path, key, body string
		status                        int
		param, code, message          string
	}{
		{"malformed JSON", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [`, 400, "", "invalid_json", "could not parse the JSON body"},
		{"not an object", "POST", chat, "sekret", `[1, 2]`, 400, "", "invalid_type", "must be a JSON object, got array"},
		{"empty body", "POST", chat, "sekret", ``, 400, "", "", "body is empty"},
		{"wrong type", "POST", chat, "sekret", `{"model": "tiny-qwen", "max_tokens": "ten", ` + msgs + `}`, 400, "max_tokens", "invalid_type", "expected an integer, got string"},
		{"missing model", "POST", chat, "sekret", `{` + msgs + `}`, 400, "model", "missing_model", "must provide a model"},
		{"unknown model", "POST", chat, "sekret", `{"model": "gpt-9", ` + msgs + `}`, 404, "model", "model_not_found", `"gpt-9" does not exist`},
		{"negative max_tokens", "POST", chat, "sekret", `{"model": "tiny-qwen", "max_tokens": -3, ` + msgs + `}`, 400, "max_tokens", "invalid_value", "at least 1, got -3"},
		{"zero max_completion_tokens", "POST", chat, "sekret", `{"model": "tiny-qwen", "max_completion_tokens": 0, ` + msgs + `}`, 400, "max_completion_tokens", "invalid_value", "at least 1"},
		{"n over the limit", "POST", chat, "sekret", `{"model": "tiny-qwen", "n": 9, ` + msgs + `}`, 400, "n", "invalid_value", "between 1 and 8, got 9"},
		{"n zero", "POST", chat, "sekret", `{"model": "tiny-qwen", "n": 0, ` + msgs + `}`, 400, "n", "invalid_value", "got 0"},
		{"top_logprobs over 20", "POST", chat, "sekret", `{"model": "tiny-qwen", "logprobs": true, "top_logprobs": 21, ` + msgs + `}`, 400, "top_logprobs", "invalid_value", "between 0 and 20, got 21"},
		{"top_logprobs without logprobs", "POST", chat, "sekret", `{"model": "tiny-qwen", "top_logprobs": 2, ` + msgs + `}`, 400, "top_logprobs", "invalid_value", "needs logprobs"},
		{"logit_bias", "POST", chat, "sekret", `{"model": "tiny-qwen", "logit_bias": {"42": 5}, ` + msgs + `}`, 400, "logit_bias", "unsupported_parameter", "logit_bias"},
		{"audio output", "POST", chat, "sekret", `{"model": "tiny-qwen", "modalities": ["text", "audio"], ` + msgs + `}`, 400, "modalities", "unsupported_parameter", "audio"},
		{"temperature too high", "POST", chat, "sekret", `{"model": "tiny-qwen", "temperature": 3, ` + msgs + `}`, 400, "temperature", "invalid_value", "between 0 and 2, got 3"},
		{"too many stops", "POST", chat, "sekret", `{"model": "tiny-qwen", "stop": ["a","b","c","d","e"], ` + msgs + `}`, 400, "stop", "invalid_value", "at most 4"},
		{"stream_options without stream", "POST", chat, "sekret", `{"model": "tiny-qwen", "stream_options": {"include_usage": true}, ` + msgs + `}`, 400, "stream_options", "invalid_value", "only allowed when stream"},
		{"no messages", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": []}`, 400, "messages", "invalid_value", "at least one message"},
		{"unknown role", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "robot", "content": "x"}]}`, 400, "messages[0].role", "invalid_value", `unknown role "robot"`},
		{"tool message without id", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "tool", "content": "x"}]}`, 400, "messages[0].tool_call_id", "missing_required_parameter", "tool_call_id"},
		{"bad content part", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "user", "content": [{"type": "video"}]}]}`, 400, "messages[0].content[0].type", "invalid_value", `"video"`},
		{"remote image", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}`, 400, "messages[0].content[0].image_url.url", "invalid_image_url", "does not fetch"},
		{"image without a vision encoder", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "user", "content": [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "` + pngDataURL(t) + `"}}]}]}`, 400, "messages", "unsupported_content", "no vision encoder"},
		{"bad tool arguments", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]}]}`, 400, "messages[0].tool_calls[0].function.arguments", "invalid_value", "not valid JSON"},
		{"bad tool name", "POST", chat, "sekret", `{"model": "tiny-qwen", "tools": [{"type": "function", "function": {"name": "get weather"}}], ` + msgs + `}`, 400, "tools[0].function.name", "invalid_value", "1 to 64"},
		{"unknown tool_choice", "POST", chat, "sekret", `{"model": "tiny-qwen", "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": {"type": "function", "function": {"name": "g"}}, ` + msgs + `}`, 400, "tool_choice", "invalid_value", `"g", which is not in tools`},
		{"bad tool schema", "POST", chat, "sekret", `{"model": "tiny-qwen", "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true}}}}}], ` + msgs + `}`, 400, "tools[0].function.parameters", "invalid_schema", `tool "f": the parameters schema does not compile`},
		{"tool_choice without tools", "POST", chat, "sekret", `{"model": "tiny-qwen", "tool_choice": "required", ` + msgs + `}`, 400, "tool_choice", "invalid_value", "needs tools"},
		{"bad schema", "POST", chat, "sekret", `{"model": "tiny-qwen", "response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": true, "schema": {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true}}}}}, ` + msgs + `}`, 400, "response_format.json_schema.schema", "invalid_schema", "does not compile"},
		{"bad response_format", "POST", chat, "sekret", `{"model": "tiny-qwen", "response_format": {"type": "yaml"}, ` + msgs + `}`, 400, "response_format.type", "invalid_value", `"yaml"`},
		{"prompt too long", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "user", "content": "` + long + `"}]}`, 400, "messages", "context_length_exceeded", "maximum context length is 2048 tokens"},
		{"oversized body", "POST", chat, "sekret", `{"model": "tiny-qwen", "messages": [{"role": "user", "content": "` + strings.Repeat("x", 70<<10) + `"}]}`, 413, "", "request_too_large", "limit of 65536 bytes"},
		{"wrong API key", "POST", chat, "nope", `{"model": "tiny-qwen", ` + msgs + `}`, 401, "", "invalid_api_key", "incorrect API key"},
		{"missing API key", "GET", "/v1/models", "", ``, 401, "", "invalid_api_key", "didn't provide an API key"},
		{"key on health too", "GET", "/health", "", ``, 401, "", "invalid_api_key", "API key"},
		{"unknown route", "GET", "/v1/embeddings", "sekret", ``, 404, "", "unknown_url", "unknown request URL: GET /v1/embeddings"},
		{"wrong method", "GET", chat, "sekret", ``, 405, "", "method_not_allowed", "use POST"},
		{"unknown model by id", "GET", "/v1/models/gpt-9", "sekret", ``, 404, "model", "model_not_found", "gpt-9"},
		{"completion echo", "POST", "/v1/completions", "sekret", `{"model": "tiny-qwen", "prompt": "a", "echo": true}`, 400, "echo", "unsupported_parameter", "echo"},
		{"completion many prompts", "POST", "/v1/completions", "sekret", `{"model": "tiny-qwen", "prompt": ["a", "b"]}`, 400, "prompt", "unsupported_parameter", "2 strings"},
		{"completion no prompt", "POST", "/v1/completions", "sekret", `{"model": "tiny-qwen"}`, 400, "prompt", "missing_required_parameter", "provide a prompt"},
		{"completion n", "POST", "/v1/completions", "sekret", `{"model": "tiny-qwen", "prompt": "a", "n": 10}`, 400, "n", "invalid_value", "got 10"},
		{"completion logprobs", "POST", "/v1/completions", "sekret", `{"model": "tiny-qwen", "prompt": "a", "logprobs": -1}`, 400, "logprobs", "invalid_value", "between 0 and 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			if tc.key != "" {
				req.Header.Set("Authorization", "Bearer "+tc.key)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var body struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Contains(t, body.Error.Message, tc.message)
			assert.NotEmpty(t, body.Error.Type)
			if tc.param == "" {
				assert.Nil(t, body.Error.Param)
			} else if assert.NotNil(t, body.Error.Param) {
				assert.Equal(t, tc.param, *body.Error.Param)
			}
			if tc.code != "" && assert.NotNil(t, body.Error.Code) {
				assert.Equal(t, tc.code, *body.Error.Code)
			}
		})
	}

	// The server is still up, and the official client sees the errors as
	// *openai.Error with the status and code.
	c := client(ts, option.WithAPIKey("sekret"))
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "gpt-9", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	var apiErr *openai.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, "model_not_found", apiErr.Code)
	resp, err := c.Chat.Completions.New(context.Background(), userChat("still there?", 2))
	require.NoError(t, err)
	assert.NotEmpty(t, resp.Choices)
}
