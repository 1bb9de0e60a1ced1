package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFunctionaryV31Templates(t *testing.T) {
	jsonCheckFamily(t, "functionary-v3.1", []jsonCase{{template: "meetkai-functionary-medium-v3.1"}})
}

func TestFunctionaryV32Templates(t *testing.T) {
	jsonCheckFamily(t, "functionary-v3.2", []jsonCase{{template: "meetkai-functionary-medium-v3.2", stringArgs: true}})
}

// Functionary v3.1 writes the python tool's arguments behind <|python_tag|>.
func TestFunctionaryV31PythonTemplate(t *testing.T) {
	f, err := Lookup("functionary-v3.1")
	require.NoError(t, err)
	want := []Call{{Name: "python", Arguments: json.RawMessage(`{"code": "print(\"Zürich\")\nx = 1"}`)}}
	reply, ok := jsonRender(t, jsonCase{template: "meetkai-functionary-medium-v3.1"}, "", want)
	require.True(t, ok)
	require.Contains(t, reply, "<|python_tag|>")
	p, err := f.Parse(reply)
	require.NoError(t, err, reply)
	requireCalls(t, want, p.Calls)
	checkStreaming(t, f, reply, jsonFamilyMarkers(f))
}

func TestFunctionaryParse(t *testing.T) {
	v31, err := Lookup("functionary-v3.1")
	require.NoError(t, err)
	v32, err := Lookup("functionary-v3.2")
	require.NoError(t, err)
	for _, tc := range []struct {
		f              Format
		reply, content string
		calls          []Call
	}{
		{v31, "Hello.<|eot_id|>", "Hello.", nil},
		{v31, "<function=f>{\"a\": \"</function>\"}</function><function=g> {}</function><|eom_id|>", "",
			[]Call{{Name: "f", Arguments: json.RawMessage(`{"a": "</function>"}`)}, {Name: "g", Arguments: json.RawMessage(`{}`)}}},
		// Raw code, and the closing tag left out at the end.
		{v31, "Running it.<|python_tag|>import os\nprint(os.getcwd())<|eom_id|>", "Running it.",
			[]Call{{Name: "python", Arguments: json.RawMessage(`{"code": "import os\nprint(os.getcwd())"}`)}}},
		{v31, "<function=f>{\"a\": 1}<|eom_id|>", "", []Call{{Name: "f", Arguments: json.RawMessage(`{"a": 1}`)}}},
		// v3.2: text to all, calls, raw python; a reply without a recipient is content.
		{v32, "all\nLet me check.>>>get_weather\n{\"location\": \"Paris\"}>>>python\nprint(1)\n<|eot_id|>", "Let me check.",
			[]Call{{Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)}, {Name: "python", Arguments: json.RawMessage(`{"code": "print(1)"}`)}}},
		{v32, "get_weather\n{\"location\": \"Paris\"}\n>>>all\nDone.", "Done.", []Call{{Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)}}},
		{v32, "Hello there\nfriend.<|eot_id|>", "Hello there\nfriend.", nil},
		{v32, "Hello\nfriend.", "Hello\nfriend.", nil},
		{v32, "all\n", "", nil},
		// Content ending in '>' before the separator.
		{v32, "all\nso ->>>>get_weather\n{}", "so ->", []Call{{Name: "get_weather", Arguments: json.RawMessage(`{}`)}}},
	} {
		p, err := tc.f.Parse(tc.reply)
		require.NoError(t, err, tc.reply)
		require.Equal(t, tc.content, p.Content, tc.reply)
		require.Equal(t, tc.calls, p.Calls, tc.reply)
		checkStreaming(t, tc.f, tc.reply, jsonFamilyMarkers(tc.f))
	}
}

func TestFunctionaryMalformed(t *testing.T) {
	v31, err := Lookup("functionary-v3.1")
	require.NoError(t, err)
	v32, err := Lookup("functionary-v3.2")
	require.NoError(t, err)
	jsonCheckMalformed(t, v31, "<function=f>{\"a\": }</function>", "", len("<function=f>{\"a\": "))
	jsonCheckMalformed(t, v31, "<function=f x>{}</function>", "", len("<function=f"))
	jsonCheckMalformed(t, v31, "<function=f>{}</func>", "", len("<function=f>{}"))
	jsonCheckMalformed(t, v31, "Hi<function=f>{\"a\"", "Hi", -1)
	jsonCheckMalformed(t, v32, "get_weather\n{\"location\": [}", "", len("get_weather\n{\"location\": ["))
	jsonCheckMalformed(t, v32, "all\nOne moment.>>>get_weather\nParis", "One moment.", len("all\nOne moment.>>>get_weather\n"))
}

func TestFunctionaryV31Grammar(t *testing.T) { jsonCheckGrammar(t, "functionary-v3.1") }
func TestFunctionaryV32Grammar(t *testing.T) { jsonCheckGrammar(t, "functionary-v3.2") }
