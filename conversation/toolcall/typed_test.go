package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A string parameter written as 3 in an XML-style syntax reads as the
// number 3 without the schema, and as the string "3" with it, also
// through the reasoning wrapper.
func TestWithToolsTypesValues(t *testing.T) {
	f, err := Lookup("qwen3-coder")
	require.NoError(t, err)
	reply := "<tool_call>\n<function=set_code>\n<parameter=code>\n3\n</parameter>\n</function>\n</tool_call>"
	p, err := f.Parse(reply)
	require.NoError(t, err)
	require.Len(t, p.Calls, 1)
	assert.JSONEq(t, `{"code": 3}`, string(p.Calls[0].Arguments))

	tools := []Tool{{Name: "set_code", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}}}`)}}
	for _, g := range []Format{WithTools(f, tools), WithTools(WithThinking(f, Thinking{Open: "<think>", Close: "</think>"}), tools)} {
		p, err = g.Parse("<think>x</think>" + reply)
		require.NoError(t, err)
		require.Len(t, p.Calls, 1)
		assert.JSONEq(t, `{"code": "3"}`, string(p.Calls[0].Arguments), g.Name())
		partial := g.ParsePartial("<think>x</think>" + reply)
		require.Len(t, partial.Calls, 1)
		assert.JSONEq(t, `{"code": "3"}`, string(partial.Calls[0].Arguments))
	}
	// Formats whose syntax writes JSON types are unchanged.
	h, err := Lookup("hermes")
	require.NoError(t, err)
	assert.Equal(t, h, WithTools(h, tools))
}
