package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func toolcallFixture(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "shared", "testdata"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	return p
}

func parseOut(t *testing.T, out string) parsedReply {
	t.Helper()
	var p parsedReply
	require.NoError(t, json.Unmarshal([]byte(out), &p), out)
	return p
}

func TestToolcallParseCLI(t *testing.T) {
	qwen := toolcallFixture(t, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	llama := toolcallFixture(t, "templates", "meta-llama-Llama-3.2-3B-Instruct.jinja")

	reply := "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n" +
		"<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"
	out, errOut, code := runCLI(t, reply, "toolcall", "parse", "--template", qwen)
	require.Equal(t, 0, code, errOut)
	p := parseOut(t, out)
	assert.Equal(t, "hermes", p.Format)
	assert.Equal(t, "Let me check.", p.Content)
	assert.Empty(t, p.Reasoning)
	require.Len(t, p.ToolCalls, 2, out)
	assert.Equal(t, "get_weather", p.ToolCalls[0].Name)
	assert.JSONEq(t, `{"city": "Paris", "days": 2}`, string(p.ToolCalls[0].Arguments))
	assert.Equal(t, "get_time", p.ToolCalls[1].Name)
	assert.JSONEq(t, `{}`, string(p.ToolCalls[1].Arguments))

	// The same from the model file, whose GGUF carries the Qwen template.
	demo := toolcallFixture(t, "models", "litert-demo-tools-q8_0.gguf")
	out, errOut, code = runCLI(t, reply, "toolcall", "parse", "-m", demo)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, p, parseOut(t, out))

	out, errOut, code = runCLI(t, `{"name": "get_weather", "parameters": {"city": "Paris"}}`, "toolcall", "parse", "--template", llama)
	require.Equal(t, 0, code, errOut)
	p = parseOut(t, out)
	assert.Equal(t, "llama3", p.Format)
	assert.Empty(t, p.Content)
	require.Len(t, p.ToolCalls, 1, out)
	assert.Equal(t, "get_weather", p.ToolCalls[0].Name)
	assert.JSONEq(t, `{"city": "Paris"}`, string(p.ToolCalls[0].Arguments))

	// A plain answer: no calls, an empty array.
	out, errOut, code = runCLI(t, "It is sunny in Paris.", "toolcall", "parse", "--template", qwen)
	require.Equal(t, 0, code, errOut)
	assert.JSONEq(t, `{"format":"hermes","content":"It is sunny in Paris.","reasoning":"","tool_calls":[]}`, out)

	// --format overrides the detection.
	out, errOut, code = runCLI(t, reply, "toolcall", "parse", "--template", llama, "--format", "hermes")
	require.Equal(t, 0, code, errOut)
	p = parseOut(t, out)
	assert.Equal(t, "hermes", p.Format)
	assert.Len(t, p.ToolCalls, 2)
}

func TestToolcallParseMalformed(t *testing.T) {
	qwen := toolcallFixture(t, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	reply := "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": }}\n</tool_call>"
	out, errOut, code := runCLI(t, reply, "toolcall", "parse", "--template", qwen)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "malformed hermes tool call at byte ")
	assert.Regexp(t, `at byte \d+ \(line [23], column \d+\): `, errOut)
	assert.Contains(t, errOut, `the call: "<tool_call>`)
}

func TestToolcallCLIErrors(t *testing.T) {
	_, errOut, code := runCLI(t, "", "toolcall", "parse")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-m MODEL or --template FILE")
	_, errOut, code = runCLI(t, "", "toolcall", "parse", "--format", "no-such-format")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown tool-call format "no-such-format"`)
	_, errOut, code = runCLI(t, "", "toolcall", "parse", "-m", "a.gguf", "--template", "b.jinja")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "not both")
	_, errOut, code = runCLI(t, "", "toolcall", "render")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown subcommand "render"`)
	_, _, code = runCLI(t, "", "toolcall")
	assert.Equal(t, 1, code)
	out, errOut, code := runCLI(t, "", "toolcall", "formats")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, len(toolcallNames()), countLines(out))
}

func toolcallNames() []string { return toolcall.Names() }

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}
