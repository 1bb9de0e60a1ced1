package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/hub/hubtest"
	"github.com/litert-go/litert-go/models/ggml"
)

func writePNG(t *testing.T, dir string, w, h int) string {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))))
	path := filepath.Join(dir, "pic.png")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// TestChatMediaCommands: /image and /audio check the file and attach it to
// the next message; a model without an mmproj refuses it with a clear
// error, and the chat goes on.
func TestChatMediaCommands(t *testing.T) {
	model := chatTestModel(t)
	dir := t.TempDir()
	pic := writePNG(t, dir, 3, 2)
	out, errOut, code := runChatPipe(t, "/image "+pic+"\nWhat is it?\n/image "+filepath.Join(dir, "absent.png")+"\n/audio\n/audio "+pic+"\nhi\n",
		"-m", model, "--max-tokens", "2", "--temp", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "["+pic+": png image, 3×2, attached to the next message]")
	assert.Contains(t, errOut, "has no vision encoder")
	assert.Contains(t, errOut, "absent.png")
	assert.Contains(t, errOut, "/audio needs a file name")
	assert.Contains(t, errOut, pic+": not a WAV, MP3 or FLAC file")
	only, _, code := runChatPipe(t, "hi\n", "-m", model, "--max-tokens", "2", "--temp", "0")
	require.Equal(t, 0, code)
	assert.Equal(t, only, out, "the message after the failed one is answered as if alone: the image was not kept")
}

// TestGenerateMediaFlags: --image and --audio need an encoder; without
// --mmproj the error says so before anything runs.
func TestGenerateMediaFlags(t *testing.T) {
	model := chatTestModel(t)
	pic := writePNG(t, t.TempDir(), 4, 4)
	var out, errb bytes.Buffer
	code := run(context.Background(), stdio{strings.NewReader(""), &out, &errb}, []string{"generate", "-m", model, "-p", "What is it?", "--image", pic, "-n", "2"})
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "has no vision encoder")
	assert.Empty(t, out.String())
}

// TestLogitsMediaFlags: --image needs -p and an encoder; the marker count
// must match the media.
func TestLogitsMediaFlags(t *testing.T) {
	model := chatTestModel(t)
	pic := writePNG(t, t.TempDir(), 4, 4)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ids", "1,2", "--image", pic}, "--image and --audio need the prompt as -p"},
		{[]string{"-p", "What is it?", "--image", pic}, "has no vision encoder"},
		{[]string{"-p", "<__media__> and <__media__>", "--image", pic}, `the prompt holds 2 media markers "<__media__>" for 1 media`},
		{[]string{"-p", "x", "--image", pic + ".absent"}, "pic.png.absent"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), stdio{strings.NewReader(""), &out, &errb}, append([]string{"logits", "-m", model}, tc.args...))
		assert.Equal(t, 1, code, tc.args)
		assert.Contains(t, errb.String(), tc.want, tc.args)
	}
}

// synthMMProj writes the language model of shape and the tiny LFM2-VL
// mmproj (seed 1).
func synthMMProj(t *testing.T, shape string) (lm, mmproj string) {
	dir := t.TempDir()
	lm, mmproj = filepath.Join(dir, "lm.gguf"), filepath.Join(dir, "mmproj.gguf")
	require.NoError(t, synth.WriteFile(lm, shape, synth.Options{Seed: 1}))
	require.NoError(t, synth.WriteMMProj(mmproj, "lfm2", 1, ggml.F32))
	return lm, mmproj
}

// TestMMProjCommands: with --mmproj, logits of a raw prompt with an image
// equal llama.cpp's libmtmd (the encoder package's e2e reference), and
// generate and chat answer a message with an image.
func TestMMProjCommands(t *testing.T) {
	data, err := os.ReadFile("../../encoder/testdata/llamacpp/e2e/lfm2-80x48.json")
	require.NoError(t, err)
	var ref struct {
		Model  string
		Prompt string
		W, H   int
		Chunks []struct {
			Tokens  []int32 `json:"tokens"`
			NTokens int     `json:"n_tokens"`
		}
		Logits []float32
	}
	require.NoError(t, json.Unmarshal(data, &ref))
	lm, mmproj := synthMMProj(t, ref.Model)
	img := image.NewRGBA(image.Rect(0, 0, ref.W, ref.H))
	for i := range 3 * ref.W * ref.H {
		img.Pix[i/3*4+i%3] = uint8((uint32(i) * 2654435761) >> 24)
		img.Pix[i/3*4+3] = 255
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	pic := filepath.Join(t.TempDir(), "pic.png")
	require.NoError(t, os.WriteFile(pic, b.Bytes(), 0o644))

	out, code := runModelCmd(t, "logits", "-m", lm, "--backend", "go", "--mmproj", mmproj, "--image", pic, "-p", ref.Prompt)
	require.Equal(t, 0, code)
	lines := readLogitsLines(t, []byte(out))
	require.Len(t, lines, 2)
	var want []int32
	want = append(want, ref.Chunks[0].Tokens...)
	for range ref.Chunks[1].NTokens {
		want = append(want, -1)
	}
	want = append(want, ref.Chunks[2].Tokens...)
	assert.Equal(t, want, lines[0].PromptTokens, "text tokens around the image's positions, as mtmd_tokenize cuts them")
	require.Len(t, lines[1].Logits, len(ref.Logits))
	for i, r := range ref.Logits {
		require.InDelta(t, r, lines[1].Logits[i], 1e-3, "logit %d", i)
	}

	out, code = runModelCmd(t, "generate", "-m", lm, "--backend", "go", "--mmproj", mmproj, "--image", pic, "-p", "What is it?", "-n", "3", "--temp", "0")
	require.Equal(t, 0, code)
	assert.NotEmpty(t, out)
	stdout, stderr, code := runChatPipe(t, "/image "+pic+"\nWhat is it?\n", "-m", lm, "--backend", "go", "--mmproj", mmproj, "--max-tokens", "3", "--temp", "0")
	require.Equal(t, 0, code, stderr)
	assert.NotEmpty(t, stdout)
	assert.Contains(t, stderr, "attached to the next message")
}

// TestHubMMProj: a Hub name in -m brings the repository's mmproj, as
// llama.cpp's -hf does, so an image needs no --mmproj.
func TestHubMMProj(t *testing.T) {
	lm, mmproj := synthMMProj(t, "tiny-llama3.2-1b")
	files := map[string][]byte{}
	for name, path := range map[string]string{"tiny-F32.gguf": lm, "mmproj-tiny-F32.gguf": mmproj} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		files[name] = b
	}
	h := hubtest.NewServer()
	t.Cleanup(h.Close)
	h.Add("someone/tiny-vl-GGUF", "0123456789abcdef0123456789abcdef01234567", files)
	t.Setenv("HF_ENDPOINT", h.URL)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HF_TOKEN", "")
	pic := writePNG(t, t.TempDir(), 8, 8)
	out, code := runModelCmd(t, "logits", "-m", "hf.co/someone/tiny-vl-GGUF", "--backend", "go", "--image", pic, "-p", "What is it?")
	require.Equal(t, 0, code)
	lines := readLogitsLines(t, []byte(out))
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0].PromptTokens, int32(-1), "the image's positions")
}
