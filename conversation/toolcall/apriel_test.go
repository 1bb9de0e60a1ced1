package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAprielTemplates(t *testing.T) {
	jsonCheckFamily(t, "apriel", []jsonCase{
		{template: "unsloth-Apriel-1.5"},
		{template: "Apriel-1.6-15b-Thinker-fixed"},
	})
}

func TestAprielMalformed(t *testing.T) {
	f, err := Lookup("apriel")
	require.NoError(t, err)
	// JSON lines are MiniMax-M1's, not Apriel's.
	jsonCheckMalformed(t, f, "<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_calls>", "", len("<tool_calls>\n"))
	jsonCheckMalformed(t, f, "<tool_calls>[{\"name\": \"f\", \"arguments\": {}}, {\"name\": \"g\"", "", -1)
}

func TestAprielGrammar(t *testing.T) { jsonCheckGrammar(t, "apriel") }

// Apriel 1.5 reasons between <thinking> and </thinking> before its calls.
func TestAprielThinking(t *testing.T) {
	f, err := Lookup("apriel")
	require.NoError(t, err)
	reply := "<thinking>Weather needs a tool.</thinking>\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}]</tool_calls>\n<|end|>"
	p, err := f.Parse(reply)
	require.NoError(t, err)
	require.Equal(t, "Weather needs a tool.", p.Reasoning)
	require.Equal(t, []Call{{Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)}}, p.Calls)
	checkStreaming(t, f, reply, jsonFamilyMarkers(f))
}
