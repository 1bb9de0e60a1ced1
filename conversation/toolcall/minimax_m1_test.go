package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMinimaxM1Templates(t *testing.T) {
	jsonCheckFamily(t, "minimax-m1", []jsonCase{{template: "MiniMax-M1"}})
}

func TestMinimaxM1Parse(t *testing.T) {
	f, err := Lookup("minimax-m1")
	require.NoError(t, err)
	// A list inside the tags is read too.
	p, err := f.Parse("<tool_calls>\n[{\"name\": \"f\", \"arguments\": {}}]\n{\"name\": \"g\", \"arguments\": {\"a\": 1}}\n</tool_calls><end_of_sentence>")
	require.NoError(t, err)
	require.Equal(t, []Call{{Name: "f", Arguments: json.RawMessage(`{}`)}, {Name: "g", Arguments: json.RawMessage(`{"a": 1}`)}}, p.Calls)
	jsonCheckMalformed(t, f, "<tool_calls>\n</tool_calls>", "", len("<tool_calls>\n"))
	jsonCheckMalformed(t, f, "<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\nget_weather\n</tool_calls>", "", len("<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n"))
}

func TestMinimaxM1Grammar(t *testing.T) { jsonCheckGrammar(t, "minimax-m1") }
