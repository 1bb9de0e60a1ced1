package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
