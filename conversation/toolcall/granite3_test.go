package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Granite 3.3's template drops the calls of an assistant turn; its system
// prompt asks for <|tool_call|> and a JSON list.
func TestGraniteTemplateRendersNoCalls(t *testing.T) {
	reply, ok := jsonRender(t, jsonCase{template: "ibm-granite-granite-3.3-2B-Instruct"}, "", jsonTestCalls(1))
	require.True(t, ok)
	require.NotContains(t, reply, "get_weather")
}

func TestGraniteParse(t *testing.T) {
	f, err := Lookup("granite")
	require.NoError(t, err)
	want := jsonTestCalls(3)
	reply := `<|tool_call|>[{"name": "get_weather", "arguments": ` + string(want[0].Arguments) +
		`}, {"name": "search_web", "arguments": ` + string(want[1].Arguments) +
		`}, {"name": "get_weather", "arguments": ` + string(want[2].Arguments) + `}]<|end_of_text|>`
	p, err := f.Parse(reply)
	require.NoError(t, err)
	requireCalls(t, want, p.Calls)
	require.Empty(t, p.Content)
	checkStreaming(t, f, reply, jsonFamilyMarkers(f))
	require.Equal(t, "granite", jsonFirstRoundTrip(reply, want))

	p, err = f.Parse("I can't do that.<|end_of_text|>")
	require.NoError(t, err)
	require.Equal(t, "I can't do that.", p.Content)

	jsonCheckMalformed(t, f, `<|tool_call|>{"name": "f", "arguments": {}}`, "", len("<|tool_call|>"))
	jsonCheckMalformed(t, f, `<|tool_call|>[{"name": "f", "arguments": {}}`, "", -1)
}

func TestGraniteGrammar(t *testing.T) { jsonCheckGrammar(t, "granite") }

// Phi-4-mini: the syntax llama.cpp's Phi-4 handler documents,
// <|tool_call|>[{"name": …, "arguments": …}]<|/tool_call|>, ending the
// turn with <|end|>.
func TestPhi4Parse(t *testing.T) {
	f, err := Lookup("phi4")
	require.NoError(t, err)
	want := jsonTestCalls(3)
	reply := `I'll check both.<|tool_call|>[{"name": "get_weather", "arguments": ` + string(want[0].Arguments) +
		`}, {"name": "search_web", "arguments": ` + string(want[1].Arguments) +
		`}, {"name": "get_weather", "arguments": ` + string(want[2].Arguments) + `}]<|/tool_call|><|end|>`
	p, err := f.Parse(reply)
	require.NoError(t, err)
	requireCalls(t, want, p.Calls)
	require.Equal(t, "I'll check both.", p.Content)
	checkStreaming(t, f, reply, jsonFamilyMarkers(f))
	require.Equal(t, "phi4", jsonFirstRoundTrip(reply[len("I'll check both."):], want))

	p, err = f.Parse(`<|tool_call|>[{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]<|/tool_call|>`)
	require.NoError(t, err)
	require.Equal(t, []Call{{Name: "f", Arguments: json.RawMessage(`{"x": 1}`)}}, p.Calls)

	// The closing marker is required.
	jsonCheckMalformed(t, f, `<|tool_call|>[{"name": "f", "arguments": {}}]<|end|>`, "", len(`<|tool_call|>[{"name": "f", "arguments": {}}]`))
	jsonCheckMalformed(t, f, `<|tool_call|>[{"name": "f", "arguments": {}}]`, "", -1)
}

func TestPhi4Grammar(t *testing.T) { jsonCheckGrammar(t, "phi4") }
