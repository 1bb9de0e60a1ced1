package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var solarMarkers = []string{"<|begin|>", "<|think|>", "<|content|>", "<|end|>", "<|tool_calls|>", "<|calls|>", solarCallBegin, solarCallName, solarCallArgs, solarCallEnd}

func TestSolarRoundTrip(t *testing.T) {
	f := solarFormat()
	tt := otherLoadTemplate(t, "upstage-Solar-Open-100B")
	for _, kwargs := range []map[string]any{nil, {"reasoning_effort": "low"}} {
		for _, part := range otherRoundTrip(t, f, tt, kwargs, 0) {
			checkStreaming(t, f, part, solarMarkers)
			got, err := f.Parse(part)
			require.NoError(t, err)
			assert.Equal(t, "call00001", got.Calls[0].ID)
		}
	}
	part := otherRenderAnswer(t, tt, nil, "It is sunny.", "")
	got, err := f.Parse(part)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "It is sunny."}, got, part)
	reply := "<|think|>The user asks.<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{\"city\": \"Zürich 東京 😀\", \"days\": 3}<|tool_call:end|><|calls|>"
	got, err = f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "The user asks.", got.Reasoning)
	requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, solarMarkers)
}

func TestSolarMalformed(t *testing.T) {
	otherCheckMalformed(t, solarFormat(), []otherMalformed{
		{reply: "<|content|>Hi<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>{\"a\": 1", offset: -1, content: "Hi"},
		{reply: "<|tool_calls|><|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>[1]<|tool_call:end|><|calls|>", offset: 71},
		{reply: "<|tool_calls|><|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>{}<|calls|>", offset: 73},
		{reply: "<|tool_calls|>{}<|calls|>", offset: 14},
	})
}

func TestSolarGrammar(t *testing.T) {
	otherCheckGrammar(t, solarFormat(), solarMarkers)
}
