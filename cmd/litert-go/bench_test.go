package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
)

func TestBenchJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, synth.WriteFile(path, "tiny-smollm2-135m", synth.Options{Seed: 1, Type: ggml.Q8_0}))
	code, out, errOut := runCmd(t, "bench", "-m", path, "-p", "9", "-n", "3", "-r", "2", "-b", "4", "-c", "64", "--bw=false", "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	for _, key := range []string{"load_ms", "prefill_tps", "decode_tps", "ttft_ms", "peak_rss_mb", "backend", "threads"} {
		assert.Contains(t, got, key)
	}
	assert.Greater(t, got["prefill_tps"], 0.0)
	assert.Greater(t, got["decode_tps"], 0.0)
	assert.EqualValues(t, 9, got["prompt_tokens"])
	assert.EqualValues(t, 2, got["reps"])
	assert.Greater(t, got["weight_mb_per_token"], 0.0)

	assert.Equal(t, "f32", got["kv_type"])

	// a Q8_0 cache: its blocks' size in the KV figure (34 bytes per 32
	// elements against 4 per element)
	code, out, errOut = runCmd(t, "bench", "-m", path, "-p", "9", "-n", "3", "-r", "1", "-b", "4", "-c", "64", "--bw=false", "--json", "--kv", "q8_0")
	require.Equal(t, 0, code, errOut)
	var q8 map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &q8), out)
	assert.Equal(t, "q8_0", q8["kv_type"])
	assert.InDelta(t, got["kv_mb_per_token"].(float64)*34/128, q8["kv_mb_per_token"], 1e-9)
	code, _, errOut = runCmd(t, "bench", "-m", path, "--kv", "q4_k")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "KV cache type Q4_K is not supported")

	code, _, errOut = runCmd(t, "bench", "-m", path, "-p", "60", "-n", "10", "-c", "64")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "more than the context")
}

// TestBenchDepth runs prefill and decode after --depth tokens of context, as
// llama-bench -d: the KV cache a decode step reads grows with the depth, not
// with the prompt, and the depth counts against the context.
func TestBenchDepth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, synth.WriteFile(path, "tiny-smollm2-135m", synth.Options{Seed: 1, Type: ggml.Q8_0}))
	kvMB := func(args ...string) float64 {
		t.Helper()
		code, out, errOut := runCmd(t, append([]string{"bench", "-m", path, "-p", "9", "-n", "3", "-r", "1", "-b", "4", "-c", "64", "--bw=false", "--json"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.Greater(t, got["prefill_tps"], 0.0)
		assert.Greater(t, got["decode_tps"], 0.0)
		return got["kv_mb_per_token"].(float64)
	}
	flat := kvMB()
	deep := kvMB("--depth", "40")
	// the average decode position: 9 + 3/2 after the prompt, 40 + 3/2 at depth 40
	assert.InDelta(t, 41.5/10.5, deep/flat, 1e-9)

	code, out, errOut := runCmd(t, "bench", "-m", path, "-p", "9", "-n", "3", "-r", "1", "-b", "4", "-c", "64", "--bw=false", "--depth", "40")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "9 tokens in batches of 4 at depth 40")
	assert.Contains(t, out, "3 tokens at depth 40")

	code, _, errOut = runCmd(t, "bench", "-m", path, "-p", "30", "-n", "3", "-c", "64", "--depth", "40")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "--depth 40 need 70 tokens, more than the context of 64")
}
