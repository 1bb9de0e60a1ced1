package conversation

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
	"github.com/litert-go/litert-go/session"
)

// mmprojEngine opens a tiny synthetic language model of shape with the
// tiny synthetic mmproj of kind (both seed 1) on backend.
func mmprojEngine(t *testing.T, shape, kind string, b engine.Backend) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	lm, mp := filepath.Join(dir, "lm.gguf"), filepath.Join(dir, "mmproj.gguf")
	require.NoError(t, synth.WriteFile(lm, shape, synth.Options{Seed: 1}))
	require.NoError(t, synth.WriteMMProj(mp, kind, 1, ggml.F32))
	eng, err := engine.Open(context.Background(), lm, engine.Settings{MMProj: mp, Backend: b, Threads: 2})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// testBackends are the Go kernels and, when their library is found, the C
// ones.
func testBackends(t *testing.T) []engine.Backend {
	bs := []engine.Backend{engine.CPUGo}
	if c, err := native.OpenCPU(native.CPUOptions{}); err == nil {
		c.Close()
		bs = append(bs, engine.CPU)
	} else {
		t.Logf("C kernels not tested: %v", err)
	}
	return bs
}

// dumpmediaPNG is the image of encoder/testdata/gen/dumpmedia.cpp as a
// PNG: w×h RGB, byte i = (i*2654435761 mod 2^32) >> 24.
func dumpmediaPNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range 3 * w * h {
		img.Pix[i/3*4+i%3] = uint8((uint32(i) * 2654435761) >> 24)
		img.Pix[i/3*4+3] = 255
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// e2eReference is one of encoder/testdata/llamacpp/e2e/*.json: what
// llama.cpp's libmtmd makes of a raw prompt with one image or sound for a
// tiny synthetic language model and mmproj (the encoder package's
// testdata/gen/dumpmedia.cpp): the chunks and the logits after them.
type e2eReference struct {
	MMProj, Model, Media, Prompt string
	W, H                         int // image size; W samples of audio
	Chunks                       []struct {
		Tokens    []int32 `json:"tokens"`
		NTokens   int     `json:"n_tokens"`
		NonCausal bool    `json:"non_causal"`
	}
	Logits []float32
}

// e2eMedia is dumpmedia.cpp's media as a file: its image (byte i =
// (i·2654435761 mod 2³²) >> 24, RGB) as a PNG, or its sound (sample i =
// ((i·2654435761 mod 2³²) mod 2001 − 1000)/1000 · 0.25, 16 kHz) as an IEEE
// float WAV.
func e2eMedia(t *testing.T, ref e2eReference) Part {
	hash := func(i int) uint32 { return uint32(i) * 2654435761 }
	if ref.Media == "audio" {
		var b bytes.Buffer
		le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
		b.WriteString("RIFF")
		le(uint32(36 + 4*ref.W))
		b.WriteString("WAVEfmt ")
		for _, v := range []any{uint32(16), uint16(3), uint16(1), uint32(16000), uint32(4 * 16000), uint16(4), uint16(32)} {
			le(v)
		}
		b.WriteString("data")
		le(uint32(4 * ref.W))
		for i := range ref.W {
			le(float32(int(hash(i)%2001)-1000) / 1000 * 0.25)
		}
		return Part{Type: "audio", Blob: b.Bytes()}
	}
	return Part{Type: "image", Blob: dumpmediaPNG(t, ref.W, ref.H)}
}

// TestMMProjMatchesLlamaCpp: a raw prompt with an image or a sound,
// through the engine's mmproj (decoding, preprocessing, encoder) and the
// session, is the prompt llama.cpp's libmtmd makes of it (the same token
// chunks around an embedding chunk of the same length, non-causal where
// libmtmd's is: Gemma 3 images) and gives its logits, on every backend,
// within 1e-3 of the largest. Decoded causally, a non-causal chunk's
// logits are far from libmtmd's: the mask is what the test proves.
func TestMMProjMatchesLlamaCpp(t *testing.T) {
	files, err := filepath.Glob("../encoder/testdata/llamacpp/e2e/*.json")
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("the encoder package's llama.cpp references are absent")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var ref e2eReference
		require.NoError(t, json.Unmarshal(data, &ref))
		require.Len(t, ref.Chunks, 3, path)
		media := e2eMedia(t, ref)
		for _, b := range testBackends(t) {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".json")+"/"+b.String(), func(t *testing.T) {
				eng := mmprojEngine(t, ref.Model, ref.MMProj, b)
				p, err := NewPrompter(eng, Config{})
				require.NoError(t, err)
				prompt, err := p.TextWithMedia(context.Background(), ref.Prompt, "<__media__>", []Part{media})
				require.NoError(t, err)
				require.Len(t, prompt, 3)
				assert.Equal(t, ref.Chunks[0].Tokens, prompt[0].Tokens)
				assert.Equal(t, ref.Chunks[1].NTokens, prompt[1].N)
				assert.Equal(t, ref.Chunks[1].NonCausal, prompt[1].NonCausal)
				assert.Equal(t, ref.Chunks[2].Tokens, prompt[2].Tokens)

				// gap is the largest |Δ| of the logits after the prompt from
				// libmtmd's, and the largest |ref|
				gap := func(prompt session.Prompt) (maxDiff, maxRef float64) {
					s, err := session.New(eng, session.Config{BatchSize: 1024})
					require.NoError(t, err)
					require.NoError(t, s.PrefillPrompt(context.Background(), prompt))
					for i, r := range ref.Logits {
						maxRef = math.Max(maxRef, math.Abs(float64(r)))
						maxDiff = math.Max(maxDiff, math.Abs(float64(s.Logits()[i]-r)))
					}
					return maxDiff, maxRef
				}
				maxDiff, maxRef := gap(prompt)
				t.Logf("%s %s: logits after %d positions: max |Δ| %.2e (max |ref| %.2f)", ref.MMProj, ref.Model, prompt.Len(), maxDiff, maxRef)
				assert.LessOrEqual(t, maxDiff, 1e-3*maxRef)
				if ref.Chunks[1].NonCausal {
					causal := slices.Clone(prompt)
					causal[1].NonCausal = false
					d, _ := gap(causal)
					t.Logf("decoded causally: max |Δ| %.2e", d)
					assert.Greater(t, d, 30*1e-3*maxRef, "a causal decode of the non-causal chunk is far off")
				}
			})
		}
	}
}

// TestMMProjConversation: a conversation on an engine with an mmproj
// turns an image part into the encoder's pieces where the template puts
// the message's content, and its greedy reply and logits equal a session
// prefilled with that prompt by hand.
func TestMMProjConversation(t *testing.T) {
	eng := mmprojEngine(t, "tiny-gemma3-270m", "gemma3", engine.CPUGo)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 4})
	require.NoError(t, err)
	img := dumpmediaPNG(t, 40, 30) // resized to the encoder's 64×64
	msg := Message{Role: RoleUser, Parts: []Part{{Type: "image", Blob: img}, {Type: "text", Text: "What is it?"}}}
	r, err := c.SendMessage(ctx, msg)
	require.NoError(t, err)

	pieces, err := eng.Encoder().EncodeImage(ctx, img)
	require.NoError(t, err)
	require.Len(t, pieces, 3)
	assert.Equal(t, "<start_of_image>", pieces[0].Text)
	assert.Equal(t, 16, pieces[1].N, "the tiny gemma3 mmproj's 4×4 pooled patches")
	want := handPrompt(t, c, "markerXWhat is it?", []MediaPiece{{Text: pieces[0].Text}, {Embeddings: pieces[1].Embeddings, N: pieces[1].N, NonCausal: true}, {Text: pieces[2].Text}})
	assert.Equal(t, want.Len(), r.Usage.PromptTokens)
	hand, err := session.New(eng, session.Config{})
	require.NoError(t, err)
	require.NoError(t, hand.PrefillPrompt(ctx, want))
	for _, err := range hand.Generate(ctx, session.GenerateOptions{MaxTokens: 4}) {
		require.NoError(t, err)
	}
	assert.Equal(t, hand.Tokens(), c.sess.Tokens()[:hand.TokenCount()])
	require.NoError(t, c.sess.Rewind(c.sess.TokenCount()-hand.TokenCount()))
	assert.InDeltaSlice(t, hand.Logits(), c.sess.Logits(), 1e-4)

	// The first turn's prompt, its image included, is not prefilled again
	// (the random model's reply may not re-tokenize as it was sampled).
	r, err = c.SendMessage(ctx, Message{Role: RoleUser, Parts: []Part{{Type: "image", Blob: img}, {Type: "text", Text: "Sure?"}}})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, r.Usage.CachedTokens, want.Len())

	// Audio on a vision-only mmproj keeps the clear error.
	_, err = c.SendMessage(ctx, Message{Role: RoleUser, Parts: []Part{{Type: "audio", Blob: wav(16000, 1, 16, 1600)}}})
	assert.ErrorIs(t, err, ErrNoEncoder)
	assert.ErrorContains(t, err, "no audio encoder")
}

// TestMMProjBadInput: a corrupt image and one over the size limits fail in
// the encoder's preprocessing, before anything is prefilled.
func TestMMProjBadInput(t *testing.T) {
	eng := mmprojEngine(t, "tiny-gemma3-270m", "gemma3", engine.CPUGo)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	huge := dumpmediaPNG(t, 4, 4)
	// A PNG header announcing 100000×100000 pixels.
	copy(huge[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", dumpmediaPNG(t, 8, 8)[:60], "png image"},
		{"100k×100k", huge, "over the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.SendMessage(ctx, Message{Role: RoleUser, Parts: []Part{{Type: "image", Blob: tc.data}, {Type: "text", Text: "?"}}})
			assert.ErrorContains(t, err, tc.want)
			assert.Zero(t, c.sess.TokenCount(), "nothing prefilled")
		})
	}
}
