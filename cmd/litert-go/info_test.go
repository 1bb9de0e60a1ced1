package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/native"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCmd runs litert-go in-process and returns its exit status and output.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), stdio{strings.NewReader(""), &out, &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestInfoJSON(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "models", "stories260K-Q4_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	code, out, errOut := runCmd(t, "info", "-m", path, "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	for _, key := range []string{"architecture", "parameters", "n_layer", "n_embd", "n_head", "n_head_kv", "n_vocab",
		"context_length", "tensor_types", "tokenizer_model", "tokenizer_pre", "has_chat_template", "file_bytes"} {
		assert.Contains(t, got, key)
	}
	assert.Equal(t, "llama", got["architecture"])
	assert.EqualValues(t, 5, got["n_layer"])
	assert.EqualValues(t, 512, got["n_vocab"])
	assert.EqualValues(t, 292800, got["parameters"])
	types := got["tensor_types"].(map[string]any)
	assert.Contains(t, types, "Q4_0")
	assert.Equal(t, false, got["has_chat_template"])
}

func TestInfoVocabOnlyText(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "vocab", "ggml-vocab-qwen2.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	code, out, errOut := runCmd(t, "info", "-m", path)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "151936 tokens, tokenizer gpt2 (pre qwen2)")
	assert.Contains(t, out, "chat template:     yes")
	assert.Contains(t, out, "(0 tensors)")
}

func TestInfoErrors(t *testing.T) {
	code, _, errOut := runCmd(t, "info")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "missing -m")
	code, _, errOut = runCmd(t, "info", "-m", filepath.Join(t.TempDir(), "nope.gguf"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "nope.gguf")
}

func TestSynthThenInfo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.gguf")
	tmpl := filepath.Join(dir, "t.jinja")
	require.NoError(t, os.WriteFile(tmpl, []byte("{% for t in tools %}{{ t }}{% endfor %}"), 0o644))
	code, _, errOut := runCmd(t, "synth", "--shape", "tiny-qwen2.5-0.5b", "--type", "q4_k_m", "--seed", "3",
		"--chat-template", tmpl, "-o", out)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "wrote "+out)

	code, js, errOut := runCmd(t, "info", "-m", out, "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &got))
	assert.Equal(t, "qwen2", got["architecture"])
	assert.EqualValues(t, 4, got["n_layer"])
	assert.EqualValues(t, 15, got["file_type"])
	assert.Equal(t, true, got["chat_template_tools"])
	assert.Equal(t, "gpt2", got["tokenizer_model"])

	code, _, errOut = runCmd(t, "synth", "--shape", "tiny-qwen2.5-0.5b", "--type", "q3_k_xl", "-o", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "q3_k_xl")
	code, _, errOut = runCmd(t, "synth", "--shape", "nope", "-o", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown shape "nope"`)
	code, _, _ = runCmd(t, "synth", "--shape", "tiny-qwen3-0.6b")
	assert.Equal(t, 1, code)
}

// TestBackendFallbackNote: when --backend auto cannot load the native
// library, the model-running commands say so once on stderr (issue 22),
// unless the Go kernels were asked for or LITERT_BACKEND_NOTE=0.
func TestBackendFallbackNote(t *testing.T) {
	model := storiesDir + "stories260K.gguf"
	if _, err := os.Stat(model); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "liblitert.so")
	t.Setenv(native.LibEnv, missing)
	const note = "litert-go: note: running the pure-Go kernels"
	gen := []string{"generate", "-m", model, "-p", "Once upon", "-n", "2", "-t", "1"}

	code, _, errOut := runCmd(t, gen...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, strings.Count(errOut, note), errOut)
	assert.Contains(t, errOut, missing+": not found", "the note says why")

	code, _, errOut = runCmd(t, append(gen, "--backend", "go")...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, note, "the Go kernels were asked for")

	t.Setenv(backendNoteEnv, "0")
	code, _, errOut = runCmd(t, gen...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, note)

	// info names the same reason on its backend line.
	code, out, errOut := runCmd(t, "info", "-m", model)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "backend:           go (pure-Go kernels: native: C kernel library unavailable ("+missing+": not found")
}

// TestInfoNewArchitectures: info describes what the Gemma 2 and Granite
// shapes add (soft-caps, multipliers), read from the file synth wrote.
func TestInfoNewArchitectures(t *testing.T) {
	dir := t.TempDir()
	for shape, want := range map[string]string{
		"tiny-gemma2-2b":     "soft-caps:",
		"tiny-granite3.3-2b": "multipliers:",
		"tiny-smollm3-3b":    "architecture:      smollm3",
		"tiny-phi4-mini":     "architecture:      phi3",
		"tiny-olmo2-1b":      "architecture:      olmo2",
		"tiny-exaone4-1.2b":  "architecture:      exaone4",
	} {
		out := filepath.Join(dir, shape+".gguf")
		code, _, errOut := runCmd(t, "synth", "--shape", shape, "--type", "f32", "--seed", "1", "-o", out)
		require.Equal(t, 0, code, errOut)
		code, text, errOut := runCmd(t, "info", "-m", out)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, text, want, shape)
	}
}

func TestInfoExperts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moe.gguf")
	code, _, errOut := runCmd(t, "synth", "--shape", "tiny-qwen3moe-30b-a3b", "--type", "q8_0", "-o", path)
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runCmd(t, "info", "-m", path)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "architecture:      qwen3moe")
	assert.Contains(t, out, "experts:           16 per block, 4 per token (expert FFN 64)")
}
