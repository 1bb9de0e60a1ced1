package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), stdio{strings.NewReader(stdin), &out, &errb}, args)
	return out.String(), errb.String(), code
}

func TestTemplateRenderCLI(t *testing.T) {
	tmpl := filepath.Join("..", "..", "..", "shared", "testdata", "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	if _, err := os.Stat(tmpl); err != nil {
		t.Skip("templates fixture absent")
	}
	req := `{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true, "unknown": 1}`
	out, errOut, code := runCLI(t, req, "template", "render", "--template", tmpl)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", out)

	raising := filepath.Join(t.TempDir(), "raise.jinja")
	require.NoError(t, os.WriteFile(raising, []byte(`{{ raise_exception("roles must alternate") }}`), 0o644))
	out, errOut, code = runCLI(t, req, "template", "render", "--template", raising)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "roles must alternate")

	_, errOut, code = runCLI(t, "{not json", "template", "render", "--template", tmpl)
	assert.Equal(t, 1, code)
	assert.NotEmpty(t, errOut)
}

// TestTemplateRenderLimitCLI renders the doubling template of issue #14:
// it took the CLI to 19.4 GB; now it fails at once, naming the file, the
// line and the limit.
func TestTemplateRenderLimitCLI(t *testing.T) {
	tmpl := filepath.Join(t.TempDir(), "double.jinja")
	src := "{% set s = namespace(v='xxxxxxxxxx') %}\n{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v|length }}"
	require.NoError(t, os.WriteFile(tmpl, []byte(src), 0o644))
	out, errOut, code := runCLI(t, `{"messages": []}`, "template", "render", "--template", tmpl)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, tmpl+": render chat template: line 2: value size limit exceeded (16777216 bytes)")
}

func TestGenerateConstrainedCLI(t *testing.T) {
	model := filepath.Join("..", "..", "..", "shared", "testdata", "models", "stories260K.gguf")
	if _, err := os.Stat(model); err != nil {
		t.Skip("stories260K fixture absent")
	}
	out, errOut, code := runCLI(t, "", "generate", "-m", model, "-p", "Once upon a time", "-n", "60",
		"--regex", `[A-Z][a-z]+ (the|a) [a-z]+\.`, "--temp", "1", "--seed", "2")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^[A-Z][a-z]+ (the|a) [a-z]+\.$`, out)

	schema := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(schema, []byte(`{"type":"object","properties":{"age":{"type":"integer","minimum":1,"maximum":9}},"required":["age"]}`), 0o644))
	out, errOut, code = runCLI(t, "", "generate", "-m", model, "-p", "Once upon a time", "-n", "60", "--json-schema", schema, "--seed", "2")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^\{"age": [1-9]\}$`, out)

	_, errOut, code = runCLI(t, "", "generate", "-m", model, "-p", "x", "--regex", "(")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--regex")
	_, errOut, code = runCLI(t, "", "generate", "-m", model, "-p", "x", "--regex", "a", "--grammar", "g.gbnf")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "only one of")
}

// --now and the request's "now" fix the date Llama 3.2's template prints.
func TestTemplateRenderNowCLI(t *testing.T) {
	tmpl := filepath.Join("..", "..", "..", "shared", "testdata", "templates", "meta-llama-Llama-3.2-3B-Instruct.jinja")
	if _, err := os.Stat(tmpl); err != nil {
		t.Skip("templates fixture absent")
	}
	req := `{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true}`
	want := "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	for _, now := range []string{"2024-07-26T12:00:00", "2024-07-26T23:30:00-07:00"} {
		out, errOut, code := runCLI(t, req, "template", "render", "--template", tmpl, "--now", now)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, want, out, now)
	}
	out, errOut, code := runCLI(t, `{"messages": [{"role": "user", "content": "Hi"}], "now": "2031-01-02T03:04:05Z"}`,
		"template", "render", "--template", tmpl, "--now", "2024-07-26T12:00:00")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Today Date: 02 Jan 2031\n", "the request's now wins over the flag")

	_, errOut, code = runCLI(t, req, "template", "render", "--template", tmpl, "--now", "tomorrow")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--now")
	_, errOut, code = runCLI(t, `{"messages": [], "now": "soon"}`, "template", "render", "--template", tmpl)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "now")
}

// generate --chat-template renders -p as a user message with the given
// template: the prompt (printed by -v) and the completion change, and BOS
// written by the template is not doubled.
func TestGenerateChatTemplateCLI(t *testing.T) {
	model := filepath.Join("..", "..", "..", "shared", "testdata", "models", "stories260K.gguf")
	if _, err := os.Stat(model); err != nil {
		t.Skip("stories260K fixture absent")
	}
	tmpl := filepath.Join(t.TempDir(), "story.jinja")
	require.NoError(t, os.WriteFile(tmpl, []byte(`{{ bos_token }}Lily said: "{{ messages[0]['content'] }}"{% if add_generation_prompt %} Then{% endif %}`), 0o644))
	promptLine := regexp.MustCompile(`prompt \((\d+) tokens\):\n`)

	plainOut, plainErr, code := runCLI(t, "", "generate", "-m", model, "-p", "Once upon a time", "-n", "12", "--temp", "0", "-v")
	require.Equal(t, 0, code, plainErr)
	m := promptLine.FindStringSubmatch(plainErr)
	require.NotNil(t, m, plainErr)
	assert.Contains(t, plainErr, "):\nOnce upon a time\n")
	plainTokens, _ := strconv.Atoi(m[1])

	out, errOut, code := runCLI(t, "", "generate", "-m", model, "-p", "Once upon a time", "-n", "12", "--temp", "0", "-v", "--chat-template", tmpl)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "):\n<s>Lily said: \"Once upon a time\" Then\n", "the template rendered the prompt")
	m = promptLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	tmplTokens, _ := strconv.Atoi(m[1])
	assert.Greater(t, tmplTokens, plainTokens)
	assert.NotEqual(t, plainOut, out, "another prompt, another greedy completion")

	// The same text given raw (BOS added by the tokenizer) has as many
	// tokens: the template's "<s>" is the one BOS.
	_, rawErr, code := runCLI(t, "", "generate", "-m", model, "-p", `Lily said: "Once upon a time" Then`, "-n", "1", "--temp", "0", "-v")
	require.Equal(t, 0, code, rawErr)
	m = promptLine.FindStringSubmatch(rawErr)
	require.NotNil(t, m, rawErr)
	assert.Equal(t, strconv.Itoa(tmplTokens), m[1])

	bad := filepath.Join(t.TempDir(), "bad.jinja")
	require.NoError(t, os.WriteFile(bad, []byte(`{% if %}`), 0o644))
	for _, args := range [][]string{{"generate", "-p", "x"}, {"chat"}, {"serve"}} {
		cmd := args[0]
		_, errOut, code := runCLI(t, "", append(args, "-m", model, "--chat-template", bad)...)
		assert.Equal(t, 1, code, cmd)
		assert.Contains(t, errOut, "--chat-template "+bad, cmd)
		_, errOut, code = runCLI(t, "", append(args, "-m", model, "--chat-template", bad+".missing")...)
		assert.Equal(t, 1, code, cmd)
		assert.Contains(t, errOut, "--chat-template", cmd)
	}
}
