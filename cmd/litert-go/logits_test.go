package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const storiesDir = "../../../shared/testdata/models/"

type logitsLine struct {
	PromptTokens []int32   `json:"prompt_tokens"`
	NVocab       int       `json:"n_vocab"`
	Step         int       `json:"step"`
	Argmax       int32     `json:"argmax"`
	Logits       []float32 `json:"logits"`
}

func readLogitsLines(t *testing.T, data []byte) []logitsLine {
	t.Helper()
	var out []logitsLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logitsLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %d", len(out)+1)
		out = append(out, l)
	}
	return out
}

// runModelCmd runs a litert-go command in-process and returns its stdout.
func runModelCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), stdio{strings.NewReader(""), &out, &errb}, args)
	if code != 0 {
		t.Logf("stderr: %s", errb.String())
	}
	return out.String(), code
}

// TestLogitsMatchesReference regenerates the llama.cpp fixture with the
// logits command: same header, same argmax and every logit within 0.03.
func TestLogitsMatchesReference(t *testing.T) {
	ref, err := os.ReadFile(storiesDir + "stories260K.once_upon.logits.jsonl")
	if err != nil {
		t.Skip("stories260K fixtures absent at " + storiesDir)
	}
	want := readLogitsLines(t, ref)
	out, code := runModelCmd(t, "logits", "-m", storiesDir+"stories260K.gguf", "--backend", "go", "-t", "2",
		"--ids", "1,403,407,261,378", "-n", "32")
	require.Equal(t, 0, code)
	got := readLogitsLines(t, []byte(out))
	require.Len(t, got, len(want))
	assert.True(t, strings.HasPrefix(out, `{"prompt_tokens":[1,403,407,261,378],"n_vocab":512}`+"\n"))
	for i := 1; i < len(want); i++ {
		require.Equal(t, want[i].Step, got[i].Step)
		require.Equal(t, want[i].Argmax, got[i].Argmax, "step %d", got[i].Step)
		assert.InDeltaSlice(t, want[i].Logits, got[i].Logits, 0.03, "step %d", got[i].Step)
	}

	// -p tokenizes to the same prompt; --feed replaces the argmax
	out, code = runModelCmd(t, "logits", "-m", storiesDir+"stories260K.gguf", "--backend", "go",
		"-p", "Once upon a time", "-n", "3", "--feed", "432,383")
	require.Equal(t, 0, code)
	fed := readLogitsLines(t, []byte(out))
	require.Len(t, fed, 4)
	assert.Equal(t, want[0].PromptTokens, fed[0].PromptTokens)
	assert.Equal(t, want[3].Argmax, fed[3].Argmax)

	_, code = runModelCmd(t, "logits", "-m", storiesDir+"stories260K.gguf", "--ids", "1,x")
	assert.Equal(t, 1, code)
	_, code = runModelCmd(t, "logits", "-m", storiesDir+"stories260K.gguf", "--ids", "1", "-n", "3", "--feed", "5")
	assert.Equal(t, 1, code)
}

func TestGenerateGreedy(t *testing.T) {
	if _, err := os.Stat(storiesDir + "stories260K.gguf"); err != nil {
		t.Skip("stories260K fixtures absent at " + storiesDir)
	}
	out, code := runModelCmd(t, "generate", "-m", storiesDir+"stories260K-Q8_0.gguf", "--backend", "go",
		"-p", "Once upon a time", "-n", "32", "--temp", "0")
	require.Equal(t, 0, code)
	assert.Equal(t, ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw", out)

	a, _ := runModelCmd(t, "generate", "-m", storiesDir+"stories260K.gguf", "-p", "Once upon a time", "-n", "20", "--seed", "9")
	b, _ := runModelCmd(t, "generate", "-m", storiesDir+"stories260K.gguf", "-p", "Once upon a time", "-n", "20", "--seed", "9")
	assert.Equal(t, a, b)
	_, code = runModelCmd(t, "generate", "-m", storiesDir+"stories260K.gguf", "-p", "x", "--backend", "gpu")
	assert.Equal(t, 1, code)
}
