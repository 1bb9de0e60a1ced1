package conversation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolFormats(t *testing.T) {
	cases := []struct {
		format, reply, content string
		calls                  []ToolCall
	}{
		{"hermes", "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", \"unit\": \"c\"}}\n</tool_call>",
			"Let me check.", []ToolCall{{Name: "get_weather", Arguments: []byte(`{"location": "Paris", "unit": "c"}`)}}},
		{"hermes", "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": [1, 2]}}\n</tool_call>",
			"", []ToolCall{{Name: "a", Arguments: []byte(`{}`)}, {Name: "b", Arguments: []byte(`{"x": [1, 2]}`)}}},
		{"llama3", `{"name": "get_weather", "parameters": {"location": "Paris"}}`,
			"", []ToolCall{{Name: "get_weather", Arguments: []byte(`{"location": "Paris"}`)}}},
		{"llama3", `<|python_tag|>{"name": "a", "parameters": {"q": 1}}; {"name": "b", "parameters": {}}`,
			"", []ToolCall{{Name: "a", Arguments: []byte(`{"q": 1}`)}, {Name: "b", Arguments: []byte(`{}`)}}},
		{"llama3", `<|python_tag|>brave_search.call(query="weather in Paris")`,
			"", []ToolCall{{Name: "brave_search", Arguments: []byte(`{"query":"weather in Paris"}`)}}},
		{"gemma3", "Sure.\n```tool_code\nget_weather(location=\"Paris\", days=3, detailed=True, tags=['a', \"b\"])\n```",
			"Sure.", []ToolCall{{Name: "get_weather", Arguments: []byte(`{"location":"Paris","days":3,"detailed":true,"tags":["a","b"]}`)}}},
		{"functiongemma", "<start_function_call>call:get_weather{location:<escape>Paris, FR<escape>,days:3,opts:{metric:true}}<end_function_call>",
			"", []ToolCall{{Name: "get_weather", Arguments: []byte(`{"location":"Paris, FR","days":3,"opts":{"metric":true}}`)}}},
		{"gemma4", `<|tool_call>call:f{a:<|"|>x<|"|>,b:[1,2]}<tool_call|>`,
			"", []ToolCall{{Name: "f", Arguments: []byte(`{"a":"x","b":[1,2]}`)}}},
		{"mistral", `[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]`,
			"", []ToolCall{{Name: "f", Arguments: []byte(`{"a": 1}`)}, {Name: "g", Arguments: []byte(`{}`)}}},
		{"mistral", `[TOOL_CALLS]f[CALL_ID]abc123456[ARGS]{"a": 1}`,
			"", []ToolCall{{ID: "abc123456", Name: "f", Arguments: []byte(`{"a": 1}`)}}},
		{"hermes", "Just text, no calls.", "Just text, no calls.", nil},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			f, err := LookupToolFormat(c.format)
			require.NoError(t, err)
			content, calls, err := f.Parse(c.reply)
			require.NoError(t, err)
			assert.Equal(t, c.content, content)
			require.Len(t, calls, len(c.calls))
			for i := range calls {
				assert.Equal(t, c.calls[i].Name, calls[i].Name)
				assert.JSONEq(t, string(c.calls[i].Arguments), string(calls[i].Arguments))
				assert.Equal(t, string(c.calls[i].Arguments), string(calls[i].Arguments), "key order and text kept")
				assert.NotEmpty(t, calls[i].ID)
			}
		})
	}
}

func TestToolFormatErrors(t *testing.T) {
	bad := map[string]string{
		"hermes":        "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": }\n</tool_call>",
		"llama3":        `{"parameters": {}}`,
		"gemma3":        "```tool_code\nf(1, 2)\n```",
		"functiongemma": "<start_function_call>call:f{a:<escape>x}<end_function_call>",
		"mistral":       `[TOOL_CALLS]f{"a":1}`,
	}
	for name, reply := range bad {
		f, err := LookupToolFormat(name)
		require.NoError(t, err)
		_, calls, err := f.Parse(reply)
		var tce *ToolCallError
		require.ErrorAs(t, err, &tce, name)
		assert.Equal(t, name, tce.Format)
		assert.Nil(t, calls)
	}
	_, err := LookupToolFormat("nope")
	assert.ErrorContains(t, err, "known: functiongemma, gemma3")
}

func TestVisible(t *testing.T) {
	f, _ := LookupToolFormat("hermes")
	assert.Equal(t, 5, f.Visible("Hello<tool_"))
	assert.Equal(t, 6, f.Visible("Hello <tool_call>{"))
	assert.Equal(t, 11, f.Visible("Hello world"))
	l, _ := LookupToolFormat("llama3")
	assert.Equal(t, 0, l.Visible("  {\"name\""))
	assert.Equal(t, 0, l.Visible("  "))
	assert.Equal(t, 2, l.Visible("Hi"))
}

func TestDetectToolFormat(t *testing.T) {
	dir := "../../shared/testdata/templates"
	want := map[string]string{
		"Qwen-Qwen3-0.6B.jinja":                      "hermes",
		"HuggingFaceTB-SmolLM3-3B.jinja":             "hermes",
		"meta-llama-Llama-3.1-8B-Instruct.jinja":     "llama3",
		"Mistral-Small-3.2-24B-Instruct-2506.jinja":  "mistral",
		"mistralai-Mistral-Nemo-Instruct-2407.jinja": "mistral",
		"google-gemma-4-31B-it.jinja":                "gemma4",
	}
	for file, name := range want {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Skipf("templates absent: %v", err)
		}
		assert.Equal(t, name, DetectToolFormat(string(src)).Name, file)
	}
}

func FuzzToolFormats(f *testing.F) {
	f.Add("<tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call>")
	f.Add("```tool_code\nf(a=[1,{'b': None}])\n```")
	f.Add("<start_function_call>call:f{a:{b:[<escape>x<escape>]}}<end_function_call>")
	f.Add(`[TOOL_CALLS]f[ARGS]{}`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, tf := range toolFormats() {
			_, calls, err := tf.Parse(s)
			if err != nil {
				continue
			}
			for _, c := range calls {
				if c.Name == "" {
					t.Fatalf("%s: call without a name from %q", tf.Name, s)
				}
			}
			_ = tf.Visible(s)
		}
	})
}
