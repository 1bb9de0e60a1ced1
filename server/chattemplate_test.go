package server

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Config.ChatTemplate replaces the model's template for every request.
func TestConfigChatTemplate(t *testing.T) {
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:     testModel,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		MaxTokens: openai.Int(1), Temperature: openai.Float(0),
	}
	_, own := startServer(t, Config{})
	oc := client(own)
	resp, err := oc.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	ownTokens := resp.Usage.PromptTokens

	_, custom := startServer(t, Config{ChatTemplate: "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}" +
		"{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"})
	cc := client(custom)
	resp, err = cc.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, int64(9), resp.Usage.PromptTokens, "<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n")
	assert.Greater(t, ownTokens, resp.Usage.PromptTokens+10, "Qwen's own template adds its default system prompt")

	_, err = New(testEngine(t), Config{ChatTemplate: "{% if %}"})
	assert.Error(t, err, "a template that does not parse is refused at start")
}
