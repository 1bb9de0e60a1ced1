package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMistralV3Templates(t *testing.T) {
	jsonCheckFamily(t, "mistral-v3", []jsonCase{{
		// The template writes "arguments" before "name" (sorted keys); the
		// model and the grammar write the name first.
		template: "mistralai-Mistral-Nemo-Instruct-2407", noSystem: true, renderOrder: true,
	}})
}

func TestMistralTemplates(t *testing.T) {
	jsonCheckFamily(t, "mistral", []jsonCase{
		{template: "Mistral-Small-3.2-24B-Instruct-2506"},
		{template: "mistralai-Ministral-3-14B-Reasoning-2512"},
		{template: "unsloth-mistral-Devstral-Small-2507"},
	})
}

func TestMistralParse(t *testing.T) {
	f, err := Lookup("mistral")
	require.NoError(t, err)
	v3, err := Lookup("mistral-v3")
	require.NoError(t, err)
	for _, tc := range []struct {
		reply, content string
		calls          []Call
	}{
		{"Bonjour.</s>", "Bonjour.", nil},
		{"[TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{\"x\": 1}[TOOL_CALLS]g[ARGS]{}</s>", "",
			[]Call{{ID: "a1b2c3d4e", Name: "f", Arguments: json.RawMessage(`{"x": 1}`)}, {Name: "g", Arguments: json.RawMessage(`{}`)}}},
		{"Checking.[TOOL_CALLS]get_weather[ARGS]{\"location\": \"[ARGS] \\\"x\\\"\"}", "Checking.",
			[]Call{{Name: "get_weather", Arguments: json.RawMessage(`{"location": "[ARGS] \"x\""}`)}}},
		// The list syntax is read too.
		{`[TOOL_CALLS][{"name": "f", "arguments": {}, "id": "abcdefghi"}]</s>`, "",
			[]Call{{ID: "abcdefghi", Name: "f", Arguments: json.RawMessage(`{}`)}}},
	} {
		p, err := f.Parse(tc.reply)
		require.NoError(t, err, tc.reply)
		require.Equal(t, tc.content, p.Content, tc.reply)
		require.Equal(t, tc.calls, p.Calls, tc.reply)
		checkStreaming(t, f, tc.reply, jsonFamilyMarkers(f))
	}
	// mistral-v3 reads only lists: the name[ARGS] syntax is malformed for it.
	jsonCheckMalformed(t, v3, "[TOOL_CALLS]f[ARGS]{}", "", len("[TOOL_CALLS]"))
	p, err := v3.Parse(`[TOOL_CALLS] [{"arguments": {"a": "b"}, "name": "f", "id": "abcdefghi"}, {"name": "g", "arguments": {}}]</s>`)
	require.NoError(t, err)
	require.Equal(t, []Call{{ID: "abcdefghi", Name: "f", Arguments: json.RawMessage(`{"a": "b"}`)}, {Name: "g", Arguments: json.RawMessage(`{}`)}}, p.Calls)
}

func TestMistralMalformed(t *testing.T) {
	f, err := Lookup("mistral")
	require.NoError(t, err)
	for _, tc := range []struct{ reply, content, at string }{
		{"[TOOL_CALLS]get_weather[ARGS]{\"location\": ", "", ""},
		{"[TOOL_CALLS]get weather[ARGS]{}", "", " weather"},
		{"[TOOL_CALLS][ARGS]{}", "", "[ARGS]"},
		{"Hi [TOOL_CALLS]f[ARGS][1]", "Hi", "[1]"},
		{"[TOOL_CALLS]f[CALL_ID]a b[ARGS]{}", "", " b"},
		{"[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}", "", ""},
	} {
		off := -1
		if tc.at != "" {
			off = jsonAt(tc.reply, tc.at)
		}
		jsonCheckMalformed(t, f, tc.reply, tc.content, off)
	}
}

func TestMistralGrammar(t *testing.T)   { jsonCheckGrammar(t, "mistral") }
func TestMistralV3Grammar(t *testing.T) { jsonCheckGrammar(t, "mistral-v3") }

// Ministral 3 Reasoning writes its reasoning as [THINK]…[/THINK] before the
// answer or the calls.
func TestMistralThinkingTemplate(t *testing.T) {
	f, err := Lookup("mistral")
	require.NoError(t, err)
	want := jsonTestCalls(3)
	content := []any{map[string]any{"type": "thinking", "thinking": "The user wants the weather; call get_weather."}}
	reply, ok := jsonRender(t, jsonCase{template: "mistralai-Ministral-3-14B-Reasoning-2512"}, content, want)
	require.True(t, ok)
	require.Contains(t, reply, "[THINK]")
	p, err := f.Parse(reply)
	require.NoError(t, err, reply)
	requireCalls(t, want, p.Calls)
	require.Equal(t, "The user wants the weather; call get_weather.", p.Reasoning)
	require.Empty(t, p.Content)
	checkStreaming(t, f, reply, jsonFamilyMarkers(f))
}
