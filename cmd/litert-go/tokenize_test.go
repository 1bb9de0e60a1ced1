package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWithStdin runs litert-go in-process with the given stdin.
func runWithStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), stdio{strings.NewReader(stdin), &out, &errOut}, args)
	return code, out.String(), errOut.String()
}

func vocabPath(t *testing.T, name string) string {
	p := filepath.Join("..", "..", "..", "shared", "testdata", "vocab", "ggml-vocab-"+name+".gguf")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	return p
}

func TestTokenizeCLI(t *testing.T) {
	stories := filepath.Join("..", "..", "..", "shared", "testdata", "models", "stories260K.gguf")
	if _, err := os.Stat(stories); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	code, out, errOut := runWithStdin(t, "Once upon a time", "tokenize", "-m", stories)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "[1,403,407,261,378]\n", out)

	code, out, errOut = runWithStdin(t, "Once upon a time", "tokenize", "-m", stories, "--add-special=false")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "[403,407,261,378]\n", out)

	qwen := vocabPath(t, "qwen2")
	// Special tokens are parsed by default, not with --parse-special=false.
	code, out, errOut = runWithStdin(t, "<|im_start|>hi", "tokenize", "-m", qwen)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "[151644,"), out)
	code, out, errOut = runWithStdin(t, "<|im_start|>hi", "tokenize", "-m", qwen, "--parse-special=false")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "151644")

	// stdin is taken byte for byte, NUL and trailing newlines included.
	code, out, errOut = runWithStdin(t, "a\x00b\n\n", "tokenize", "-m", qwen, "--add-special=false")
	require.Equal(t, 0, code, errOut)
	var ids []int32
	require.NoError(t, json.Unmarshal([]byte(out), &ids))
	code, text, errOut := runWithStdin(t, out, "detokenize", "-m", qwen)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "a\x00b\n\n", text)

	// --jsonl: one model load, many strings.
	in := `"Hello world"` + "\n" + `""` + "\n" + `"<|im_end|>"` + "\n"
	code, out, errOut = runWithStdin(t, in, "tokenize", "-m", qwen, "--jsonl")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "[9707,1879]\n[]\n[151645]\n", out)
	code, out, errOut = runWithStdin(t, "[9707,1879]\n[]\n[151645]\n", "detokenize", "-m", qwen, "--jsonl", "--special")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `"Hello world"`+"\n"+`""`+"\n"+`"<|im_end|>"`+"\n", out)
}

func TestTokenizeCLIErrors(t *testing.T) {
	qwen := vocabPath(t, "qwen2")
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"x", []string{"tokenize"}, "missing -m"},
		{"x", []string{"tokenize", "-m", "/nonexistent.gguf"}, "nonexistent"},
		{"x", []string{"tokenize", "-m", qwen, "--add-special=maybe"}, "want auto or false"},
		{"not json\n", []string{"tokenize", "-m", qwen, "--jsonl"}, "line 1"},
		{"[1, 2", []string{"detokenize", "-m", qwen}, "JSON array"},
		{"[1, 99999999]", []string{"detokenize", "-m", qwen}, "out of range"},
		{"[1]\n[-1]\n", []string{"detokenize", "-m", qwen, "--jsonl"}, "line 2"},
	} {
		code, _, errOut := runWithStdin(t, c.stdin, c.args...)
		assert.Equal(t, 1, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
}
