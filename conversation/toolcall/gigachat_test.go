package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGigaChatRoundTrip(t *testing.T) {
	for _, c := range []struct {
		template string
		f        Format
		markers  []string
	}{
		{"GigaChat3-10B-A1.8B", gigaChat3Format(), []string{"<|message_sep|>", "<|role_sep|>", "function call"}},
		{"GigaChat3.1-10B-A1.8B", gigaChat31Format(), []string{"<|message_sep|>", "<|function_call|>"}},
	} {
		tt := otherLoadTemplate(t, c.template)
		// The templates render the first call of a turn only.
		for _, part := range otherRoundTrip(t, c.f, tt, nil, 1) {
			checkStreaming(t, c.f, part, c.markers)
		}
		got, part := otherCheckContentCalls(t, c.f, tt, "Let me check.", otherCallSets()[0], c.markers)
		assert.Equal(t, "Let me check.", got.Content)
		part = otherRenderAnswer(t, tt, nil, "It is sunny.", "")
		got, err := c.f.Parse(part)
		require.NoError(t, err)
		assert.Equal(t, Parsed{Content: "It is sunny."}, got, part)
	}
}

func TestGigaChatMalformed(t *testing.T) {
	otherCheckMalformed(t, gigaChat31Format(), []otherMalformed{
		{reply: `Hi<|function_call|>{"name": "f", "arguments": {"a": 1}`, offset: -1, content: "Hi"},
		{reply: `<|function_call|>{"arguments": {}}`, offset: 17},
		{reply: `<|function_call|>{"name": "f", "arguments": "x"}`, offset: 44},
		{reply: `<|function_call|>get_weather(city="x")`, offset: 17},
	})
	otherCheckMalformed(t, gigaChat3Format(), []otherMalformed{
		{reply: "Hi<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": }}", offset: -1, content: "Hi"},
	})
}

func TestGigaChatGrammar(t *testing.T) {
	otherCheckGrammar(t, gigaChat3Format(), []string{"<|message_sep|>", "<|role_sep|>", "\n\nfunction call"})
	otherCheckGrammar(t, gigaChat31Format(), []string{"<|message_sep|>", "<|function_call|>"})
}
