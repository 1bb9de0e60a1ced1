package toolcall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKimiK2RoundTrip(t *testing.T) {
	f := kimiK2()
	for _, c := range []taggedCase{
		{template: "moonshotai-Kimi-K2.jinja"},
		{template: "moonshotai-Kimi-K2.jinja", content: "Let me check."},
	} {
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

// Kimi-K2-Instruct and Kimi-K2-Thinking cannot render tool calls: they
// call list.append, which jinja2's sandbox (and ours) refuses. Their call
// syntax is K2's; this pins that they still raise, so that a renderer
// change that lets them render is noticed and they join the round trip.
func TestKimiK2TemplatesThatRaise(t *testing.T) {
	for _, name := range []string{"Kimi-K2-Instruct.jinja", "Kimi-K2-Thinking.jinja"} {
		_, ok := taggedRender(t, name, nil, taggedOneCall, taggedRenderOpts{})
		require.False(t, ok, name)
	}
}

func TestKimiK2CallID(t *testing.T) {
	got, err := kimiK2().Parse("Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:7<|tool_call_argument_begin|>{\"location\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|><|im_end|>")
	require.NoError(t, err)
	require.Equal(t, "Checking.", got.Content)
	require.Equal(t, []Call{{ID: "functions.get_weather:7", Name: "get_weather", Arguments: []byte(`{"location": "Oslo"}`)}}, got.Calls)
}

func TestKimiK2Grammar(t *testing.T) { taggedGrammarWalk(t, kimiK2()) }

func TestKimiK2Malformed(t *testing.T) {
	taggedCheckMalformed(t, kimiK2(), []taggedBad{
		{reply: "Hi." + kimiSectionBegin + kimiCallBegin + "functions.get_weather:0" + kimiArgBegin + `{"location"`, at: kimiCallBegin, content: "Hi."},
		{reply: "Hi." + kimiSectionBegin + kimiCallBegin + "functions.get_weather:0" + kimiArgBegin + `{"a":1,}` + kimiCallEnd + kimiSectionEnd, at: `{"a"`, content: "Hi."},
		{reply: "Hi." + kimiSectionBegin + kimiCallBegin + "functions.get_weather:0" + kimiCallEnd + kimiSectionEnd, at: "functions.", content: "Hi."},
		{reply: "Hi." + kimiSectionBegin + "{}" + kimiSectionEnd, at: "{}", content: "Hi."},
	})
}
