package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// firefunctionCase renders through firefunction v2's template, which takes
// the tools as a JSON string in "functions" and always appends the
// generation prompt.
func firefunctionCase(t *testing.T) jsonCase {
	functions, err := json.MarshalIndent(jsonTestTools, "", "  ")
	require.NoError(t, err)
	return jsonCase{
		template:   "fireworks-ai-llama-3-firefunction-v2",
		kwargs:     map[string]any{"functions": string(functions), "datetime": "Jul 26 2024 12:00:00 GMT"},
		trimSuffix: "<|start_header_id|>assistant<|end_header_id|>\n\n",
	}
}

func TestFirefunctionV2Templates(t *testing.T) {
	jsonCheckFamily(t, "firefunction-v2", []jsonCase{firefunctionCase(t)})
}

func TestFirefunctionV2Parse(t *testing.T) {
	f, err := Lookup("firefunction-v2")
	require.NoError(t, err)
	p, err := f.Parse(`functools[{"name": "f", "arguments": {"a": [1, {"b": null}]}}]<|eot_id|>`)
	require.NoError(t, err)
	require.Equal(t, []Call{{Name: "f", Arguments: json.RawMessage(`{"a": [1, {"b": null}]}`)}}, p.Calls)
	// The word alone is content.
	p, err = f.Parse("Python's functools module caches results.")
	require.NoError(t, err)
	require.Equal(t, "Python's functools module caches results.", p.Content)
	require.Empty(t, p.Calls)

	jsonCheckMalformed(t, f, `Sure functools[{"name": "f", "arguments": {}},]`, "Sure", len(`Sure functools[{"name": "f", "arguments": {}},`))
	jsonCheckMalformed(t, f, `functools[]`, "", len(`functools[`))
	jsonCheckMalformed(t, f, `functools[{"name": "f", "arguments": {}}`, "", -1)
}

func TestFirefunctionV2Grammar(t *testing.T) { jsonCheckGrammar(t, "firefunction-v2") }
