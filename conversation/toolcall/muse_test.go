package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var museMarkers = []string{museStart, museMessage, museEOM, museEOT, museCallsOpen, museCallsClose, "to=self", "to=user"}

func TestMuseRoundTrip(t *testing.T) {
	f := museFormat()
	tt := otherLoadTemplate(t, "muse-glimmer")
	for _, part := range otherRoundTrip(t, f, tt, nil, 0) {
		checkStreaming(t, f, part, museMarkers)
	}
	part := otherRenderAnswer(t, tt, nil, "It is sunny.", "The user greets me.")
	got, err := f.Parse(part)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "It is sunny.", Reasoning: "The user greets me."}, got, part)
	checkStreaming(t, f, part, museMarkers)
	base := tt.base
	base.Tools = otherTools()
	base.Messages = nil
	reply := " to=self<|message|>Plan.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Zürich 東京 😀</atem:parameter>\n<atem:parameter name=\"days\">3</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>"
	got, err = f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "Plan.", got.Reasoning)
	requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, museMarkers)
}

func TestMuseMalformed(t *testing.T) {
	otherCheckMalformed(t, museFormat(), []otherMalformed{
		{reply: " to=user<|message|>Hi<|eom|><|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1", offset: -1, content: "Hi"},
		{reply: " to=f<|message|><atem:function_calls>\n<invoke name=\"f\"></invoke>\n</atem:function_calls>", offset: 38},
	})
}

func TestMuseGrammar(t *testing.T) {
	otherCheckGrammar(t, museFormat(), append(museMarkers, `<atem:invoke name="`, `<atem:parameter name="`, "</atem:parameter>", "</atem:invoke>", " to="))
}
