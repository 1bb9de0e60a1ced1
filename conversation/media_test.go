package conversation

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
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
	m, err = LoadMedia(Part{Type: "audio", Blob: flacHeader(48000, 2, 24, 123456789)})
	require.NoError(t, err)
	assert.Equal(t, Media{Kind: "audio", Format: "flac", SampleRate: 48000, Channels: 2, Bits: 24, Samples: 123456789}, Media{
		Kind: m.Kind, Format: m.Format, SampleRate: m.SampleRate, Channels: m.Channels, Bits: m.Bits, Samples: m.Samples})
	_, err = LoadMedia(Part{Type: "audio", Blob: flacHeader(48000, 2, 24, 1)[:20]})
	assert.ErrorContains(t, err, "FLAC file has no STREAMINFO block")
	_, err = LoadMedia(Part{Type: "audio", Blob: []byte("ID3\x04\x00\x00\x00\x00\x01\x00tag")})
	assert.ErrorContains(t, err, "MP3 file ends inside its ID3 tag")
	_, err = LoadMedia(Part{Type: "text", Text: "x"})
	assert.ErrorContains(t, err, "not media")
}

// flacHeader is the start of a FLAC file: the marker and a STREAMINFO
// block laid out as RFC 9639 §8.2 says (block sizes 4096, frame sizes
// unknown, no MD5).
func flacHeader(rate, channels, bits int, samples uint64) []byte {
	b := []byte("fLaC\x80\x00\x00\x22") // last metadata block, type 0, 34 bytes
	si := make([]byte, 34)
	binary.BigEndian.PutUint16(si[0:], 4096)
	binary.BigEndian.PutUint16(si[2:], 4096)
	packed := uint64(rate)<<44 | uint64(channels-1)<<41 | uint64(bits-1)<<36 | samples
	binary.BigEndian.PutUint64(si[10:], packed)
	return append(b, si...)
}

// TestLoadMP3 reads llama.cpp's tools/mtmd/test-2.mp3 (copied beside the
// encoder's preprocessing): an ID3v2 tag of 35 bytes, then MPEG-1 Layer
// III frames at 44.1 kHz, mono.
func TestLoadMP3(t *testing.T) {
	const path = "../encoder/preprocess/testdata/test-2.mp3"
	if _, err := os.Stat(path); err != nil {
		t.Skip("llama.cpp's test-2.mp3 is absent: ", err)
	}
	m, err := LoadMedia(Part{Type: "audio", Path: path})
	require.NoError(t, err)
	assert.Equal(t, "mp3", m.Format)
	assert.Equal(t, 44100, m.SampleRate)
	assert.Equal(t, 1, m.Channels)
}

// FuzzLoadMedia loads arbitrary bytes as an image or audio part and
// checks: an accepted image has a known format and dimensions within the
// limits, which match the pixels image.Decode decodes (for GIF, the first
// frame lies within them); accepted audio has a PCM layout whose samples
// fit in the data; loading again gives the same result; and an error
// names the part and the problem.
func FuzzLoadMedia(f *testing.F) {
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x20\x00\x00"), true)
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x02\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), true)
	f.Add(wav(8000, 2, 8, 4), false)
	f.Add(wav(16000, 1, 16, 160), false)
	f.Add(flacHeader(44100, 2, 16, 1000), false)
	f.Add([]byte("\xff\xfb\x50\xc0\x00\x00"), false)
	img := image.NewPaletted(image.Rect(0, 0, 6, 4), color.Palette{color.Black, color.White})
	img.SetColorIndex(2, 1, 1)
	for _, enc := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return png.Encode(b, img) },
		func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) },
		func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) },
	} {
		var b bytes.Buffer
		require.NoError(f, enc(&b))
		f.Add(b.Bytes(), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, isImage bool) {
		typ := "audio"
		if isImage {
			typ = "image"
		}
		m, err := LoadMedia(Part{Type: typ, Blob: data})
		again, err2 := LoadMedia(Part{Type: typ, Blob: data})
		if err != nil {
			require.Error(t, err2)
			assert.Equal(t, err.Error(), err2.Error(), "loading again gives another error")
			prefix := "inline " + typ + ": "
			require.True(t, strings.HasPrefix(err.Error(), prefix) && len(err.Error()) > len(prefix)+8,
				"error %q does not name the part and the problem", err)
			return
		}
		require.NoError(t, err2)
		assert.Equal(t, m, again, "loading again gives another result")
		assert.Equal(t, data, m.Data)
		if !isImage {
			require.Equal(t, AudioFormat(data), m.Format)
			require.Positive(t, m.Channels)
			require.Positive(t, m.SampleRate)
			switch m.Format {
			case "mp3":
				require.Contains(t, []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}, m.SampleRate)
				require.LessOrEqual(t, m.Channels, 2)
				return
			case "flac":
				require.LessOrEqual(t, m.Channels, 8)
				require.True(t, m.Bits >= 1 && m.Bits <= 32, "bits %d", m.Bits)
				require.Less(t, m.SampleRate, 1<<20)
				return
			}
			require.Equal(t, "wav", m.Format)
			require.Positive(t, m.Bits)
			require.Positive(t, m.SampleRate)
			require.GreaterOrEqual(t, m.Samples, 0)
			require.LessOrEqual(t, m.Samples*m.Channels*((m.Bits+7)/8), len(data), "samples run past the data")
			return
		}
		require.Contains(t, []string{"png", "jpeg", "gif", "webp"}, m.Format)
		require.Positive(t, m.Width)
		require.Positive(t, m.Height)
		require.LessOrEqual(t, m.Width*m.Height, MaxImagePixels)
		if m.Format == "webp" || m.Width*m.Height > 1<<16 {
			return // no WebP decoder in the standard library; large images decode slowly
		}
		decoded, format, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return // a readable header on broken pixel data: the model's encoder reports it
		}
		require.Equal(t, m.Format, format)
		bounds := decoded.Bounds()
		if format == "gif" {
			require.True(t, bounds.In(image.Rect(0, 0, m.Width, m.Height)), "first frame %v outside %d×%d", bounds, m.Width, m.Height)
			return
		}
		require.Equal(t, [2]int{m.Width, m.Height}, [2]int{bounds.Dx(), bounds.Dy()}, "header and pixels disagree")
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
