package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHermesTemplates(t *testing.T) {
	jsonCheckFamily(t, "hermes", []jsonCase{
		{template: "Qwen-Qwen2.5-7B-Instruct"},
		{template: "Qwen-Qwen3-0.6B"},
		{template: "Qwen-QwQ-32B"},
		{template: "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use"},
		{template: "NousResearch-Hermes-3-Llama-3.1-8B-tool_use"},
		{template: "Bielik-11B-v3.0-Instruct"},
		{template: "MiMo-VL"},
		{template: "Reka-Edge"},
		{template: "ibm-granite-granite-4.0"},
		{template: "ibm-granite-granite-4.1"},
	})
}

// SmolLM3's template drops the calls of an assistant turn, so no format
// can be detected from it.
func TestHermesSmolLM3RendersNoCalls(t *testing.T) {
	reply, ok := jsonRender(t, jsonCase{template: "HuggingFaceTB-SmolLM3-3B"}, "", jsonTestCalls(1))
	require.True(t, ok)
	require.NotContains(t, reply, "get_weather")
}

func TestHermesParse(t *testing.T) {
	f, err := Lookup("hermes")
	require.NoError(t, err)
	for _, tc := range []struct {
		reply, content string
		calls          []Call
	}{
		{"Hello there.<|im_end|>", "Hello there.", nil},
		{"", "", nil},
		// Arguments in either order, an id, arguments as a JSON string.
		{"<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"f\", \"id\": \"x1\"}\n</tool_call>", "",
			[]Call{{ID: "x1", Name: "f", Arguments: json.RawMessage(`{"a": 1}`)}}},
		{"<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": [1, 2]}\"}</tool_call>", "",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{"a": [1, 2]}`)}}},
		// No arguments, null arguments, OpenAI's nested shape.
		{"<tool_call>{\"name\": \"now\"}</tool_call>", "", []Call{{Name: "now", Arguments: json.RawMessage(`{}`)}}},
		{"<tool_call>{\"name\": \"now\", \"arguments\": null}</tool_call>", "", []Call{{Name: "now", Arguments: json.RawMessage(`{}`)}}},
		{`<tool_call>{"type": "function", "function": {"name": "g", "arguments": {"k": "v"}}}</tool_call>`, "",
			[]Call{{Name: "g", Arguments: json.RawMessage(`{"k": "v"}`)}}},
		// A list in one tag; the closing tag left out at the end.
		{"<tool_call>[{\"name\": \"f\", \"arguments\": {}}, {\"name\": \"g\", \"arguments\": {\"x\": true}}]</tool_call>", "",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{}`)}, {Name: "g", Arguments: json.RawMessage(`{"x": true}`)}}},
		{"I'll check.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"q\": \"</tool_call> <tool_call>\"}}\n<|im_end|>\n", "I'll check.",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{"q": "</tool_call> <tool_call>"}`)}}},
		// Text after the calls is content too.
		{"A<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>B<|im_end|>", "AB", []Call{{Name: "f", Arguments: json.RawMessage(`{}`)}}},
	} {
		p, err := f.Parse(tc.reply)
		require.NoError(t, err, tc.reply)
		require.Equal(t, tc.content, p.Content, tc.reply)
		require.Equal(t, tc.calls, p.Calls, tc.reply)
		checkStreaming(t, f, tc.reply, jsonFamilyMarkers(f))
	}
}

func TestHermesMalformed(t *testing.T) {
	f, err := Lookup("hermes")
	require.NoError(t, err)
	for _, tc := range []struct{ reply, content, at string }{
		{"Sure.<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1", "Sure.", ""}, // cut off
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1,}}\n</tool_call>", "", ",}}"},
		{"<tool_call>\n{\"arguments\": {}}\n</tool_call>", "", "{\"arguments"},
		{"<tool_call>\nget_weather(location=\"Paris\")\n</tool_call>", "", "get_weather"},
		{"<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>", "", "[1]"},
		{"<tool_call>{\"name\": \"f\", \"arguments\": {}} trailing</tool_call>", "", "trailing"},
		{"<tool_call>{\"name\": 7, \"arguments\": {}}</tool_call>", "", "7"},
		{"<tool_call>{\"name\": \"f\", \"name\": \"g\"}</tool_call>", "", ": \"g"},
	} {
		off := -1
		if tc.at != "" {
			off = jsonAt(tc.reply, tc.at)
			if tc.at == ",}}" {
				off++ // at the brace after the comma
			}
		}
		jsonCheckMalformed(t, f, tc.reply, tc.content, off)
	}
}

func TestHermesGrammar(t *testing.T) { jsonCheckGrammar(t, "hermes") }
