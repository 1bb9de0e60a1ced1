package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const quantizeModelDir = "../../../shared/testdata/models"

func quantizeFixture(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(quantizeModelDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("test model %s absent (%v); it lives in shared/testdata/models", path, err)
	}
	return path
}

func runQuantizeCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), stdio{strings.NewReader(""), &out, &errb}, args)
	return code, out.String(), errb.String()
}

func TestQuantizeCommandMatchesLlamaCpp(t *testing.T) {
	src := quantizeFixture(t, "stories260K.gguf")
	want, err := os.ReadFile(quantizeFixture(t, "stories260K-Q8_0.gguf"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "q8.gguf")
	// Flags after the file names, as llama-quantize users type them.
	code, stdout, stderr := runQuantizeCmd("quantize", src, out, "--type", "q8_0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "wrote "+out+": q8_0, 48 tensors")
	assert.Contains(t, stdout, "(5 tensors used a fallback type)")
	assert.Empty(t, stderr, "no progress bar when stderr is not a terminal")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "output differs from llama.cpp's stories260K-Q8_0.gguf")

	// llama-quantize's positional form.
	out2 := filepath.Join(t.TempDir(), "q4.gguf")
	code, _, stderr = runQuantizeCmd("quantize", src, out2, "Q4_0")
	require.Equal(t, 0, code, stderr)
	want, err = os.ReadFile(quantizeFixture(t, "stories260K-Q4_0.gguf"))
	require.NoError(t, err)
	got, err = os.ReadFile(out2)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "output differs from llama.cpp's stories260K-Q4_0.gguf")
}

func TestQuantizeCommandDryRunAndErrors(t *testing.T) {
	src := quantizeFixture(t, "stories260K.gguf")
	code, stdout, stderr := runQuantizeCmd("quantize", "--dry-run", src, "--type", "q4_k_m")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `blk\.2\.attn_v\.weight\s+\[64 32\]\s+F32 -> Q8_0 \(fallback\)`, stdout)
	assert.Regexp(t, `output_norm\.weight\s+\[64\]\s+F32 -> F32\n`, stdout)

	code, _, stderr = runQuantizeCmd("quantize", src, filepath.Join(t.TempDir(), "x.gguf"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing --type")

	code, _, stderr = runQuantizeCmd("quantize", src, filepath.Join(t.TempDir(), "x.gguf"), "--type", "q9")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `unknown type "q9"`)

	code, _, stderr = runQuantizeCmd("quantize", src, "--type", "q8_0")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "want IN and OUT files, got 1 arguments")

	code, _, stderr = runQuantizeCmd("quantize", "nope.gguf", filepath.Join(t.TempDir(), "x.gguf"), "--type", "q8_0")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "nope.gguf")
}
