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

	"github.com/litert-go/litert-go/hub/hubtest"
)

// fakeHubEnv serves the test data's stories260K files as the repository
// ggml-org/stories260K-GGUF on a fake Hub and points HF_ENDPOINT and
// HF_HOME at it and at a fresh cache.
func fakeHubEnv(t *testing.T) (*hubtest.Server, string) {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range []string{"stories260K-Q8_0.gguf", "stories260K-Q4_0.gguf"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "testdata", "models", name))
		if err != nil {
			t.Skipf("fixture absent: %v", err)
		}
		files[name] = b
	}
	h := hubtest.NewServer()
	t.Cleanup(h.Close)
	h.Add("ggml-org/stories260K-GGUF", "fedcba9876543210fedcba9876543210fedcba98", files)
	home := t.TempDir()
	t.Setenv("HF_ENDPOINT", h.URL)
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HF_TOKEN", "")
	return h, home
}

// TestPullCommand pulls, lists, and uses a Hub name in -m: the tokenizer
// of the pulled file gives llama.cpp's ids for "Once upon a time"
// (testdata/models/stories260K.md).
func TestPullCommand(t *testing.T) {
	h, home := fakeHubEnv(t)
	code, out, errOut := runCmd(t, "pull", "hf.co/ggml-org/stories260K-GGUF:q8_0")
	require.Equal(t, 0, code, errOut)
	path := strings.TrimSpace(out)
	assert.Equal(t, filepath.Join(home, "hub", "models--ggml-org--stories260K-GGUF", "snapshots", "fedcba9876543210fedcba9876543210fedcba98", "stories260K-Q8_0.gguf"), path)
	assert.Contains(t, errOut, "pulled hf.co/ggml-org/stories260K-GGUF:q8_0 (370.3 KiB in ")

	// -m takes the name; the cached file is used, nothing is downloaded.
	var stdout, stderr bytes.Buffer
	code = run(context.Background(), stdio{strings.NewReader("Once upon a time"), &stdout, &stderr}, []string{"tokenize", "-m", "hf.co/ggml-org/stories260K-GGUF:Q8_0"})
	out, errOut = stdout.String(), stderr.String()
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "[1,403,407,261,378]", strings.TrimSpace(out))
	assert.Equal(t, []string{"stories260K-Q8_0.gguf "}, h.Downloads())

	// Without a tag: no Q4_K_M file, so Q4_0, pulled on first use by -m.
	code, out, errOut = runCmd(t, "info", "-m", "hf.co/ggml-org/stories260K-GGUF")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "stories260K-Q4_0.gguf")
	assert.Regexp(t, `quant:\s+Q4_0 \(`, out)

	code, out, errOut = runCmd(t, "ls")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `hf.co/ggml-org/stories260K-GGUF\s+Q4_0\s+270.5 KiB\s+stories260K-Q4_0.gguf`, out)
	assert.Regexp(t, `hf.co/ggml-org/stories260K-GGUF\s+Q8_0\s+370.3 KiB\s+stories260K-Q8_0.gguf`, out)

	// Offline, with the Hub gone: the cache answers; an unknown tag is named.
	h.Close()
	code, out, errOut = runCmd(t, "pull", "--offline", "hf.co/ggml-org/stories260K-GGUF:Q8_0")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, path, strings.TrimSpace(out))
	code, _, errOut = runCmd(t, "pull", "--offline", "hf.co/ggml-org/stories260K-GGUF:Q6_K")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "has no Q6_K file; its GGUF files are stories260K-Q4_0.gguf, stories260K-Q8_0.gguf")
}

// TestPullErrors: a bad name or unknown repository is a clear error.
func TestPullCommandErrors(t *testing.T) {
	fakeHubEnv(t)
	code, _, errOut := runCmd(t, "pull", "hf.co/nobody")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `want hf.co/OWNER/REPO[:QUANT]`)
	code, _, errOut = runCmd(t, "generate", "-m", "hf.co/nobody/nothing-GGUF", "-p", "hi")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-m: hub: hf.co/nobody/nothing-GGUF: ")
	assert.Contains(t, errOut, "401 not found (a private or gated repository also needs HF_TOKEN)")
	code, _, errOut = runCmd(t, "ls")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "no models in ")
}
