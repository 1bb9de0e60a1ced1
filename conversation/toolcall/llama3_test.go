package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLlama3Templates(t *testing.T) {
	jsonCheckFamily(t, "llama3", []jsonCase{
		{template: "meta-llama-Llama-3.1-8B-Instruct", single: true},
		{template: "meta-llama-Llama-3.2-3B-Instruct", single: true},
		{template: "meta-llama-Llama-3.3-70B-Instruct", single: true},
	})
}

// Llama 3.1 / 3.3 call builtin tools Python-style behind <|python_tag|>
// and end the turn with <|eom_id|>.
func TestLlama3BuiltinTemplates(t *testing.T) {
	f, err := Lookup("llama3")
	require.NoError(t, err)
	for _, name := range []string{"meta-llama-Llama-3.1-8B-Instruct", "meta-llama-Llama-3.3-70B-Instruct"} {
		c := jsonCase{template: name, kwargs: map[string]any{"builtin_tools": []string{"brave_search", "wolfram_alpha"}}}
		want := []Call{{Name: "brave_search", Arguments: json.RawMessage(`{"query": "weather in Zürich 東京 😀"}`)}}
		reply, ok := jsonRender(t, c, "", want)
		require.True(t, ok)
		require.Contains(t, reply, "<|python_tag|>brave_search.call(")
		p, err := f.Parse(reply)
		require.NoError(t, err, reply)
		requireCalls(t, want, p.Calls)
		require.Empty(t, p.Content)
		checkStreaming(t, f, reply, jsonFamilyMarkers(f))
	}
}

func TestLlama3Parse(t *testing.T) {
	f, err := Lookup("llama3")
	require.NoError(t, err)
	for _, tc := range []struct {
		reply, content string
		calls          []Call
	}{
		{"Hello! How can I help?<|eot_id|>", "Hello! How can I help?", nil},
		// JSON that is not a call is content.
		{`{"answer": 42}<|eot_id|>`, `{"answer": 42}`, nil},
		{`{"name": "Bob", "age": 7}`, `{"name": "Bob", "age": 7}`, nil},
		{"{ not json", "{ not json", nil},
		{`{"type": "function", "name": "f", "parameters": {"a": "b"}}<|eom_id|>`, "",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{"a": "b"}`)}}},
		{`{"name": "f", "arguments": {}}`, "", []Call{{Name: "f", Arguments: json.RawMessage(`{}`)}}},
		// Several calls separated by ';' or newlines.
		{"{\"name\": \"f\", \"parameters\": {\"x\": 1}}; {\"name\": \"g\", \"parameters\": {}}\n{\"name\": \"h\", \"parameters\": {}}<|eot_id|>", "",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{"x": 1}`)}, {Name: "g", Arguments: json.RawMessage(`{}`)}, {Name: "h", Arguments: json.RawMessage(`{}`)}}},
		// A call, then text.
		{"{\"name\": \"f\", \"parameters\": {}}\nDone.", "Done.", []Call{{Name: "f", Arguments: json.RawMessage(`{}`)}}},
		// <|python_tag|>: JSON, builtin calls, raw code.
		{`<|python_tag|>{"name": "f", "parameters": {"k": [1]}}<|eom_id|>`, "", []Call{{Name: "f", Arguments: json.RawMessage(`{"k": [1]}`)}}},
		{`<|python_tag|>wolfram_alpha.call(query="2+2", n=3, exact=True, tag='it\'s')<|eom_id|>`, "",
			[]Call{{Name: "wolfram_alpha", Arguments: json.RawMessage(`{"query": "2+2", "n": 3, "exact": true, "tag": "it's"}`)}}},
		{"<|python_tag|>import math\nprint(math.pi)<|eom_id|>", "",
			[]Call{{Name: "code_interpreter", Arguments: json.RawMessage(`{"code": "import math\nprint(math.pi)"}`)}}},
		{"Let me search.<|python_tag|>brave_search.call(query=\"x\")", "Let me search.",
			[]Call{{Name: "brave_search", Arguments: json.RawMessage(`{"query": "x"}`)}}},
	} {
		p, err := f.Parse(tc.reply)
		require.NoError(t, err, tc.reply)
		require.Equal(t, tc.content, p.Content, tc.reply)
		require.Equal(t, tc.calls, p.Calls, tc.reply)
		checkStreaming(t, f, tc.reply, jsonFamilyMarkers(f))
	}
}

func TestLlama3Malformed(t *testing.T) {
	f, err := Lookup("llama3")
	require.NoError(t, err)
	for _, tc := range []struct{ reply, content, at string }{
		{`{"name": "f", "parameters": {"a": `, "", ""},
		{`{"name": "f", "parameters": {"a": tru}}`, "", "}}"},
		{`{"name": "f", "parameters": 3}`, "", "3"},
		{`<|python_tag|>brave_search.call(query=)`, "", ")"},
		{`Hi<|python_tag|>brave_search.call(query="x"`, "Hi", ""},
		{`<|python_tag|>{"name": "f"`, "", ""},
	} {
		off := -1
		if tc.at != "" {
			off = jsonAt(tc.reply, tc.at)
		}
		jsonCheckMalformed(t, f, tc.reply, tc.content, off)
	}
}

func TestLlama3Grammar(t *testing.T) { jsonCheckGrammar(t, "llama3") }
