package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var hy3Markers = []string{hy3ThinkOpen, hy3ThinkClose, hy3CallsOpen, hy3CallsClose, "<tool_call:opensource>", "<arg_key:opensource>", "<｜hy_eos:opensource｜>"}

func TestHy3RoundTrip(t *testing.T) {
	f := hy3Format()
	tt := otherLoadTemplate(t, "tencent-Hy3")
	for _, kwargs := range []map[string]any{nil, {"reasoning_effort": "high"}} {
		for _, part := range otherRoundTrip(t, f, tt, kwargs, 0) {
			checkStreaming(t, f, part, hy3Markers)
		}
	}
	// Reasoning the generation prompt opened, then text and a call.
	reply := "The user wants weather.</think:opensource>Checking.<tool_calls:opensource>\n<tool_call:opensource>get_weather<tool_sep:opensource>\n<arg_key:opensource>city</arg_key:opensource>\n<arg_value:opensource>Zürich 東京 😀</arg_value:opensource>\n<arg_key:opensource>days</arg_key:opensource>\n<arg_value:opensource>3</arg_value:opensource>\n</tool_call:opensource>\n</tool_calls:opensource><｜hy_eos:opensource｜>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "The user wants weather.", got.Reasoning)
	assert.Equal(t, "Checking.", got.Content)
	requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, hy3Markers)
	// A JSON value may hold the closing tag inside a string.
	reply = "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_key:opensource>o</arg_key:opensource><arg_value:opensource>{\"x\": \"</arg_value:opensource>\"}</arg_value:opensource></tool_call:opensource></tool_calls:opensource>"
	got, err = f.Parse(reply)
	require.NoError(t, err)
	assert.JSONEq(t, `{"o": {"x": "</arg_value:opensource>"}}`, string(got.Calls[0].Arguments))
}

func TestHy3Malformed(t *testing.T) {
	otherCheckMalformed(t, hy3Format(), []otherMalformed{
		{reply: "Hi<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_key:opensource>a</arg_key:opensource><arg_value:opensource>1", offset: -1, content: "Hi"},
		{reply: "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_value:opensource>1</arg_value:opensource></tool_call:opensource></tool_calls:opensource>", offset: 67},
		{reply: "<tool_calls:opensource>f(a=1)</tool_calls:opensource>", offset: 23},
	})
}

func TestHy3Grammar(t *testing.T) {
	otherCheckGrammar(t, hy3Format(), append(hy3Markers, "</arg_value:opensource>", "<arg_value:opensource>", "</tool_call:opensource>", "<tool_sep:opensource>", "</arg_key:opensource>"))
}
