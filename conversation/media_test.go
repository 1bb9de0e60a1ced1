package conversation

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wav(rate, channels, bits, frames int) []byte {
	var b bytes.Buffer
	data := frames * channels * bits / 8
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+data))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(channels), uint32(rate), uint32(rate * channels * bits / 8), uint16(channels * bits / 8), uint16(bits)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(data))
	b.Write(make([]byte, data))
	return b.Bytes()
}

func TestLoadMedia(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 7, 5))
	img.Set(1, 1, color.White)
	var pngData bytes.Buffer
	require.NoError(t, png.Encode(&pngData, img))
	path := filepath.Join(t.TempDir(), "x.png")
	require.NoError(t, os.WriteFile(path, pngData.Bytes(), 0o644))

	m, err := LoadMedia(Part{Type: "image", Path: path})
	require.NoError(t, err)
	assert.Equal(t, "png", m.Format)
	assert.Equal(t, [2]int{7, 5}, [2]int{m.Width, m.Height})

	// A lossless WebP header (VP8L) for a 3×2 image.
	webp := []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x02\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	m, err = LoadMedia(Part{Type: "image", Blob: webp})
	require.NoError(t, err)
	assert.Equal(t, "webp", m.Format)
	assert.Equal(t, [2]int{3, 2}, [2]int{m.Width, m.Height})

	m, err = LoadMedia(Part{Type: "audio", Blob: wav(16000, 1, 16, 160)})
	require.NoError(t, err)
	assert.Equal(t, 16000, m.SampleRate)
	assert.Equal(t, 160, m.Samples)

	_, err = LoadMedia(Part{Type: "image", Blob: []byte("hello, not an image")})
	assert.ErrorContains(t, err, "not a readable")
	_, err = LoadMedia(Part{Type: "image", Path: filepath.Join(t.TempDir(), "none.png")})
	assert.ErrorContains(t, err, "none.png")
	_, err = LoadMedia(Part{Type: "audio", Blob: pngData.Bytes()})
	assert.ErrorContains(t, err, "not a WAV")
	_, err = LoadMedia(Part{Type: "audio", Blob: wav(16000, 1, 16, 10)[:30]})
	assert.Error(t, err)
	_, err = LoadMedia(Part{Type: "text", Text: "x"})
	assert.ErrorContains(t, err, "not media")
}

func FuzzLoadMedia(f *testing.F) {
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x20\x00\x00"), true)
	f.Add(wav(8000, 2, 8, 4), false)
	f.Fuzz(func(t *testing.T, data []byte, isImage bool) {
		typ := "audio"
		if isImage {
			typ = "image"
		}
		_, _ = LoadMedia(Part{Type: typ, Blob: data})
	})
}

func TestMessageJSONRoundTrip(t *testing.T) {
	in := `[{"role":"system","content":"be brief"},` +
		`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","path":"cat.png"}]},` +
		`{"role":"assistant","content":"","reasoning_content":"hmm","tool_calls":[{"id":"call_0","type":"function","function":{"name":"look","arguments":{"z":1,"a":[true,null]}}}]},` +
		`{"role":"tool","content":"{\"ok\":true}","tool_call_id":"call_0","name":"look"}]`
	var msgs []Message
	require.NoError(t, json.Unmarshal([]byte(in), &msgs))
	out, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.Equal(t, in, string(out))
	assert.Equal(t, "what is this?", msgs[1].Content())

	var m Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"b\":2,\"a\":1}"}}]}`), &m))
	assert.Equal(t, `{"b":2,"a":1}`, string(m.ToolCalls[0].Arguments))
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"content":"x"}`), &m), "missing role")
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"role":"user","content":[{"type":"video"}]}`), &m), `unknown type "video"`)
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{bad"}}]}`), &m), "not valid JSON")
}
