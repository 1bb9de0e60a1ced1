package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNemotronV2Templates(t *testing.T) {
	jsonCheckFamily(t, "nemotron-v2", []jsonCase{
		// As the last turn, the template writes content and calls as two
		// assistant turns.
		{template: "NVIDIA-Nemotron-Nano-v2", noContent: true},
		{template: "NVIDIA-Nemotron-Nano-v2", noContent: true, kwargs: map[string]any{"enable_thinking": false}},
	})
}

func TestNemotronV2Parse(t *testing.T) {
	f, err := Lookup("nemotron-v2")
	require.NoError(t, err)
	p, err := f.Parse("<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"q\": \"]</TOOLCALL>\"}}]</TOOLCALL>\n<SPECIAL_12>\n")
	require.NoError(t, err)
	require.Equal(t, []Call{{Name: "f", Arguments: json.RawMessage(`{"q": "]</TOOLCALL>"}`)}}, p.Calls)
	jsonCheckMalformed(t, f, `Let me see.<TOOLCALL>[{"name": "f", "arguments": {}}]junk`, "Let me see.", len(`Let me see.<TOOLCALL>[{"name": "f", "arguments": {}}]`))
	jsonCheckMalformed(t, f, `<TOOLCALL>[{"name": "f", "arguments": "not json"}]</TOOLCALL>`, "", len(`<TOOLCALL>[{"name": "f", "arguments": `))
}

func TestNemotronV2Grammar(t *testing.T) { jsonCheckGrammar(t, "nemotron-v2") }
