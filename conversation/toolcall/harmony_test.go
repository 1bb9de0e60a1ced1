package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHarmonyRoundTrip(t *testing.T) {
	f := harmonyFmt()
	tt := otherLoadTemplate(t, "openai-gpt-oss-120b")
	// The template renders the first call of a turn only.
	for _, part := range otherRoundTrip(t, f, tt, nil, 1) {
		checkStreaming(t, f, part, harmonyMarkers())
	}
	// Content with a call is rendered as the analysis message before it.
	got, part := otherCheckContentCalls(t, f, tt, "Let me check.", otherCallSets()[0], harmonyMarkers())
	assert.Equal(t, "Let me check.", got.Reasoning, part)
	// An answer.
	part = otherRenderAnswer(t, tt, nil, "It is sunny.", "")
	got, err := f.Parse(part)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "It is sunny."}, got, part)
}

func TestHarmonyReplies(t *testing.T) {
	f := harmonyFmt()
	three := otherCallSets()[1]
	cases := []struct {
		reply     string
		content   string
		reasoning string
		calls     []Call
	}{
		{reply: `<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Zürich 東京 😀", "days": 3}<|call|>`,
			reasoning: "Need weather.", calls: otherCallSets()[0]},
		{reply: `<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>`, content: "It is sunny.", reasoning: "Think."},
		{reply: `<|channel|>commentary<|message|>Checking now.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Zürich 東京 😀", "days": 3}<|call|>`,
			content: "Checking now.", calls: otherCallSets()[0]},
		// Several calls, one message each (as a multi-step history holds them).
		{reply: `<|channel|>commentary to=functions.get_weather json<|message|>` + string(three[0].Arguments) + `<|call|><|start|>assistant to=functions.search_docs<|channel|>commentary json<|message|>` + string(three[1].Arguments) +
			`<|call|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>` + string(three[2].Arguments), calls: three},
		{reply: "Plain text.", content: "Plain text."},
	}
	for _, c := range cases {
		got, err := f.Parse(c.reply)
		require.NoError(t, err, c.reply)
		assert.Equal(t, c.content, got.Content, c.reply)
		assert.Equal(t, c.reasoning, got.Reasoning, c.reply)
		requireCalls(t, c.calls, got.Calls, "calls of %q", c.reply)
		checkStreaming(t, f, c.reply, harmonyMarkers())
	}
	got, err := f.Parse(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "x"}<|call|>`)
	require.NoError(t, err)
	assert.Equal(t, json.RawMessage(`{"city": "x"}`), got.Calls[0].Arguments, "arguments verbatim")
}

func TestHarmonyMalformed(t *testing.T) {
	otherCheckMalformed(t, harmonyFmt(), []otherMalformed{
		{reply: `<|channel|>final<|message|>Hi<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1`, offset: -1, content: "Hi"},
		{reply: `<|channel|>commentary to=functions.f json<|message|>{"a": tru}<|call|>`, offset: 58},
		{reply: `<|channel|>commentary to=functions.f json<|message|>[1]<|call|>`, offset: 52},
		{reply: `<|channel|>commentary to=functions.f json<|message|>{} x<|call|>`, offset: 55},
		{reply: `<|channel|>commentary to=functions.f json`, offset: 0},
	})
}

func TestHarmonyGrammar(t *testing.T) {
	otherCheckGrammar(t, harmonyFmt(), harmonyMarkers())
}
