package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cohereMarkers = []string{cohereThinkOpen, cohereThinkClose, cohereActOpen, cohereActClose, "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", cohereEOT}

func TestCommandR7BRoundTrip(t *testing.T) {
	f := commandR7BFormat()
	for _, name := range []string{"CohereForAI-c4ai-command-r7b-12-2024-tool_use", "Cohere2MoE"} {
		tt := otherLoadTemplate(t, name)
		for _, kwargs := range []map[string]any{nil, {"enable_thinking": true}} {
			parts := otherRoundTrip(t, f, tt, kwargs, 0)
			for _, part := range parts {
				checkStreaming(t, f, part, cohereMarkers)
			}
		}
		// An answer with reasoning.
		part := otherRenderAnswer(t, tt, nil, "It is sunny.", "The user greets me.")
		got, err := f.Parse(part)
		require.NoError(t, err)
		assert.Equal(t, "It is sunny.", got.Content, "%s: %q", name, part)
		checkStreaming(t, f, part, cohereMarkers)
	}
}

func TestCommandR7BReasoning(t *testing.T) {
	f := commandR7BFormat()
	for _, reply := range []string{
		// Thinking opened by the generation prompt (Cohere2MoE).
		"I will call the tool.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Zürich 東京 😀\", \"days\": 3}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>",
		"<|START_THINKING|>I will call the tool.<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Zürich 東京 😀\", \"days\": 3}}]<|END_ACTION|>",
	} {
		got, err := f.Parse(reply)
		require.NoError(t, err)
		assert.Equal(t, "I will call the tool.", got.Reasoning)
		assert.Empty(t, got.Content)
		requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
		assert.Equal(t, "0", got.Calls[0].ID)
		checkStreaming(t, f, reply, cohereMarkers)
	}
	reply := "<|START_THINKING|><|END_THINKING|><|START_RESPONSE|>Hello!<|END_RESPONSE|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "Hello!"}, got)
	// A reply with no markers at all is an answer.
	got, err = f.Parse("Just text.")
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "Just text."}, got)
}

func TestCommandR7BMalformed(t *testing.T) {
	otherCheckMalformed(t, commandR7BFormat(), []otherMalformed{
		{reply: `<|START_RESPONSE|>Hi<|END_RESPONSE|><|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}`, offset: -1, content: "Hi"},
		{reply: `<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": tru}}]<|END_ACTION|>`, offset: 56},
		{reply: `<|START_ACTION|>[{"parameters": {}}]<|END_ACTION|>`, offset: 17},
		{reply: `<|START_ACTION|>[{"tool_name": "f", "parameters": [1]}]<|END_ACTION|>`, offset: 50},
		{reply: `<|START_ACTION|>{"tool_name": "f"}<|END_ACTION|>`, offset: 16},
		{reply: `<|START_ACTION|>[{"tool_name": "f"}] x<|END_ACTION|>`, offset: 37},
	})
}

func TestCommandR7BGrammar(t *testing.T) {
	otherCheckGrammar(t, commandR7BFormat(), cohereMarkers)
}

func TestCommandRRoundTrip(t *testing.T) {
	f := commandRFormat()
	tt := otherLoadTemplate(t, "CohereForAI-c4ai-command-r-plus-tool_use")
	for _, calls := range otherCallSets() {
		part, err := otherRenderCalls(t, tt, nil, "", calls)
		require.NoError(t, err)
		// The template follows the call with the next system turn, as if
		// the tool results came next; the reply ends before it.
		reply := otherCutAt(part, "<|START_OF_TURN_TOKEN|>")
		got, err := f.Parse(reply)
		require.NoError(t, err, reply)
		requireCalls(t, calls, got.Calls, "calls of %q", reply)
		assert.Empty(t, got.Content)
		checkStreaming(t, f, reply, []string{"Action:", "```json", cohereEOT})
	}
	reply := "I will look up the weather.\nAction: ```json\n[\n    {\n        \"tool_name\": \"get_weather\",\n        \"parameters\": {\n            \"city\": \"Zürich 東京 😀\",\n            \"days\": 3\n        }\n    }\n]\n```<|END_OF_TURN_TOKEN|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "I will look up the weather.", got.Content)
	requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, []string{"Action:", "```json", cohereEOT})
}

func TestCommandRMalformed(t *testing.T) {
	otherCheckMalformed(t, commandRFormat(), []otherMalformed{
		{reply: "Plan.\nAction: ```json\n[{\"tool_name\": \"f\", \"parameters\": {}}", offset: -1, content: "Plan."},
		{reply: "Action: [{\"tool_name\": \"f\"}]", offset: 8},
		{reply: "Action: ```json\n[{\"tool_name\": 3}]\n```", offset: 31},
	})
}

func TestCommandRGrammar(t *testing.T) {
	otherCheckGrammar(t, commandRFormat(), []string{"Action:", "```json", "```", cohereEOT})
}

// otherCutAt cuts s before the first marker.
func otherCutAt(s, marker string) string {
	for i := 0; i+len(marker) <= len(s); i++ {
		if s[i:i+len(marker)] == marker {
			return s[:i]
		}
	}
	return s
}
