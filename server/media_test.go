package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
)

// testWAV is 0.01 s of 16 kHz mono 16-bit silence.
func testWAV() []byte {
	var b bytes.Buffer
	const frames = 160
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+2*frames))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(16000), uint32(32000), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(2*frames))
	b.Write(make([]byte, 2*frames))
	return b.Bytes()
}

// mediaHost serves what remote image_url tests fetch.
func mediaHost(t *testing.T) *httptest.Server {
	var pngData bytes.Buffer
	require.NoError(t, png.Encode(&pngData, image.NewRGBA(image.Rect(0, 0, 3, 2))))
	mux := http.NewServeMux()
	mux.HandleFunc("/cat.png", func(w http.ResponseWriter, r *http.Request) { w.Write(pngData.Bytes()) })
	mux.HandleFunc("/moved.png", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/cat.png", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(conversation.MaxMediaBytes+1))
		w.Write(pngData.Bytes()) // the announced length is refused before the body is read
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		// No length announced: the body is cut at the limit.
		chunk := make([]byte, 1<<20)
		for range conversation.MaxMediaBytes>>20 + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func chatWithPart(part string) string {
	return `{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},` + part + `]}]}`
}

func imagePart(url string) string {
	return fmt.Sprintf(`{"type":"image_url","image_url":{"url":%q}}`, url)
}

func audioPart(data []byte, format string) string {
	return fmt.Sprintf(`{"type":"input_audio","input_audio":{"data":%q,"format":%q}}`, base64.StdEncoding.EncodeToString(data), format)
}

// TestMediaParts sends image_url and input_audio parts to a server whose
// model has no encoder: media that were read and checked reach the
// conversation, which refuses them for want of an encoder; media that
// cannot be read are refused naming the part.
func TestMediaParts(t *testing.T) {
	host := mediaHost(t)
	_, remote := startServer(t, Config{AllowRemoteMedia: true})
	_, local := startServer(t, Config{})
	wavData := testWAV()
	for _, tc := range []struct {
		name   string
		ts     *httptest.Server
		part   string
		param  string
		code   string
		expect string
	}{
		{"remote image fetched", remote, imagePart(host.URL + "/cat.png"), "messages", "unsupported_content", "no vision encoder"},
		{"remote image after a redirect", remote, imagePart(host.URL + "/moved.png"), "messages", "unsupported_content", "no vision encoder"},
		{"remote image refused by default", local, imagePart(host.URL + "/cat.png"), "messages[0].content[1].image_url.url", "invalid_image_url", "--allow-remote-media"},
		{"remote 404", remote, imagePart(host.URL + "/missing.png"), "messages[0].content[1].image_url.url", "invalid_image_url", "status 404"},
		{"redirect loop", remote, imagePart(host.URL + "/loop"), "messages[0].content[1].image_url.url", "invalid_image_url", "more than 3 redirects"},
		{"redirect to a file", remote, imagePart(host.URL + "/file"), "messages[0].content[1].image_url.url", "invalid_image_url", `redirect to a "file" URL`},
		{"announced size over the limit", remote, imagePart(host.URL + "/huge"), "messages[0].content[1].image_url.url", "invalid_image_url", "over the 33554432-byte limit"},
		{"streamed body over the limit", remote, imagePart(host.URL + "/stream"), "messages[0].content[1].image_url.url", "invalid_image_url", "body is over the 33554432-byte limit"},
		{"empty body", remote, imagePart(host.URL + "/empty"), "messages[0].content[1].image_url.url", "invalid_image_url", "empty body"},
		{"ftp URL", remote, imagePart("ftp://example.com/cat.png"), "messages[0].content[1].image_url.url", "invalid_image_url", "want a data:, http: or https: URL"},
		{"fetched bytes not an image", remote, imagePart(host.URL + "/text"), "messages", "invalid_value", "not a readable PNG, JPEG, GIF or WebP image"},
		{"wav audio", local, audioPart(wavData, "wav"), "messages", "unsupported_content", "no audio encoder"},
		{"audio format unnamed", local, audioPart(wavData, ""), "messages", "unsupported_content", "no audio encoder"},
		{"audio format unknown", local, audioPart(wavData, "ogg"), "messages[0].content[1].input_audio", "invalid_value", `audio format "ogg" is not supported`},
		{"audio format wrong", local, audioPart(wavData, "mp3"), "messages[0].content[1].input_audio", "invalid_value", "audio data is wav, not mp3"},
		{"audio not audio", local, audioPart([]byte("hello there"), "flac"), "messages[0].content[1].input_audio", "invalid_value", "not flac"},
		{"audio truncated", local, audioPart(wavData[:30], "wav"), "messages", "invalid_value", "WAV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, data := postChat(t, tc.ts.Client(), tc.ts.URL, chatWithPart(tc.part))
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", data)
			var e struct{ Error apiError }
			require.NoError(t, json.Unmarshal(data, &e), "%s", data)
			assert.Contains(t, e.Error.Message, tc.expect)
			if assert.NotNil(t, e.Error.Param) {
				assert.Equal(t, tc.param, *e.Error.Param)
			}
			if assert.NotNil(t, e.Error.Code) {
				assert.Equal(t, tc.code, *e.Error.Code)
			}
		})
	}
}

// mmprojServer serves a tiny synthetic llama with the tiny LFM2-VL mmproj
// (no chat template: ChatML).
func mmprojServer(t *testing.T) (*Server, *httptest.Server) {
	dir := t.TempDir()
	lm, mp := filepath.Join(dir, "lm.gguf"), filepath.Join(dir, "mmproj.gguf")
	require.NoError(t, synth.WriteFile(lm, "tiny-llama3.2-1b", synth.Options{Seed: 1}))
	require.NoError(t, synth.WriteMMProj(mp, "lfm2", 1, ggml.F32))
	eng, err := engine.Open(context.Background(), lm, engine.Settings{MMProj: mp, Backend: engine.CPUGo, Threads: 2, ContextLength: 1024})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	s, err := New(eng, Config{ModelID: "tiny"})
	require.NoError(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// TestMediaPartsWithEncoder: with an mmproj the server answers image_url
// parts; usage counts the image's embedding positions as the Prompter
// lays the prompt out, and a follow-up request finds the image in the
// prompt cache.
func TestMediaPartsWithEncoder(t *testing.T) {
	s, ts := mmprojServer(t)
	var pngData bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 48, 40))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	require.NoError(t, png.Encode(&pngData, img))
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData.Bytes())
	first := `{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + url + `"}},{"type":"text","text":"What is it?"}]}`
	var reply struct {
		Choices []struct {
			Message struct{ Content string }
		}
		Usage usage
	}
	resp, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny","max_tokens":3,"messages":[`+first+`]}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	require.NoError(t, json.Unmarshal(data, &reply))
	var req chatRequest
	require.NoError(t, json.Unmarshal([]byte(`{"messages":[`+first+`]}`), &req))
	hist, aerr := convertMessages(req.Messages, mediaSource{})
	require.Nil(t, aerr)
	prompt, err := s.prompter.Chat(context.Background(), hist, nil)
	require.NoError(t, err)
	require.Equal(t, 1, prompt.Media())
	assert.Equal(t, prompt.Len(), reply.Usage.PromptTokens)
	assert.Equal(t, 72, prompt[1].N, "LFM2-VL's tokens for 48×40")

	// the reply as a JSON string (strconv.Quote writes \x escapes JSON lacks
	// for the bytes a random model may emit)
	content, err := json.Marshal(reply.Choices[0].Message.Content)
	require.NoError(t, err)
	follow := `{"model":"tiny","max_tokens":3,"messages":[` + first + `,{"role":"assistant","content":` + string(content) +
		`},{"role":"user","content":"And the colour?"}]}`
	resp, data = postChat(t, ts.Client(), ts.URL, follow)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	require.NoError(t, json.Unmarshal(data, &reply))
	assert.Greater(t, reply.Usage.PromptTokensDetails.CachedTokens, prompt[0].Len()+prompt[1].N, "the image came from the prompt cache")

	resp, data = postChat(t, ts.Client(), ts.URL, chatWithPart(audioPart(testWAV(), "wav")))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(data), "no audio encoder")
}
