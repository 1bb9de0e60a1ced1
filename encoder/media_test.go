package encoder

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/tokenizer"
)

// e2eReference is one of testdata/llamacpp/e2e/*.json: what libmtmd makes
// of a prompt with one image or sound for a tiny synthetic language model
// (testdata/gen/dumpmedia.cpp). The logits after the prompt are there for
// the session's end-to-end test; this package checks the rest.
type e2eReference struct {
	MMProj string `json:"mmproj"` // synth --mmproj kind
	Model  string `json:"model"`  // synth --shape of the language model
	Media  string `json:"media"`  // "image" or "audio"
	W, H   int    // image size; W is the number of samples for audio
	Prompt string // with DefaultMarker where the media goes
	Chunks []struct {
		Tokens     []int32   `json:"tokens"`
		NTokens    int       `json:"n_tokens"`
		NonCausal  bool      `json:"non_causal"`
		EmbdStride int       `json:"embd_stride"`
		Embd       []float32 `json:"embd"` // every EmbdStride-th value
	}
	NVocab int       `json:"n_vocab"`
	Logits []float32 `json:"logits"`
}

// e2ePNG is dumpmedia.cpp's image (byte i = (i·2654435761 mod 2³²) >> 24,
// RGB interleaved) as a PNG file.
func e2ePNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	px := func(i int) uint8 { return uint8((uint32(i) * 2654435761) >> 24) }
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			img.SetNRGBA(x, y, color.NRGBA{px(i), px(i + 1), px(i + 2), 255})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// e2eWAV is dumpmedia.cpp's sound (sample i = ((i·2654435761 mod 2³²) mod
// 2001 − 1000)/1000 · 0.25, 16 kHz mono) as an IEEE float WAV file.
func e2eWAV(n int) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + 4*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(3)) // WAVE_FORMAT_IEEE_FLOAT
	le(uint16(1))
	le(uint32(16000))
	le(uint32(4 * 16000))
	le(uint16(4))
	le(uint16(32))
	b.WriteString("data")
	le(uint32(4 * n))
	for i := range n {
		le(inputValue(i) * 0.25)
	}
	return b.Bytes()
}

// TestMediaLlamaCpp runs prompts with an image or a sound through the
// whole front end (decoding, preprocessing, encoding, layout) and checks
// them against libmtmd's chunks on the same synthetic models: the text
// before and after the embeddings tokenizes to mtmd_tokenize's ids, the
// media gives as many rows, within 1e-3 of libmtmd's embeddings, and the
// attention over them is non-causal exactly when libmtmd's is.
func TestMediaLlamaCpp(t *testing.T) {
	files, err := filepath.Glob("testdata/llamacpp/e2e/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var ref e2eReference
		require.NoError(t, json.Unmarshal(data, &ref))
		require.Len(t, ref.Chunks, 3, path)
		require.Len(t, ref.Logits, ref.NVocab, path)
		lm, err := synth.Generate(ref.Model, synth.Options{Seed: 1})
		require.NoError(t, err)
		tok, err := tokenizer.FromGGUF(writeParse(t, lm))
		require.NoError(t, err)
		for _, b := range testBackends(t) {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".json")+"/"+b.Name(), func(t *testing.T) {
				e, err := Open(synthFile(t, ref.MMProj), b)
				require.NoError(t, err)
				var ps []Piece
				kind := MediaImage
				if ref.Media == "audio" {
					kind = MediaAudio
					ps, err = e.EncodeAudio(context.Background(), e2eWAV(ref.W))
				} else {
					ps, err = e.EncodeImage(context.Background(), e2ePNG(t, ref.W, ref.H))
				}
				require.NoError(t, err)
				require.Len(t, ps, 3)

				before, after, ok := strings.Cut(ref.Prompt, DefaultMarker)
				require.True(t, ok)
				require.Equal(t, ref.Chunks[0].Tokens, tok.Encode(before+ps[0].Text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true}))
				require.Equal(t, ref.Chunks[2].Tokens, tok.Encode(ps[2].Text+after, tokenizer.EncodeOptions{ParseSpecial: true}))

				media := ref.Chunks[1]
				require.Equal(t, media.NTokens, ps[1].N)
				require.Equal(t, media.NonCausal, e.NonCausal(kind))
				require.Len(t, ps[1].Embeddings, ps[1].N*e.EmbeddingDim())
				require.Len(t, media.Embd, (len(ps[1].Embeddings)+media.EmbdStride-1)/media.EmbdStride)
				var maxRef, maxDiff float64
				for i, r := range media.Embd {
					maxRef = math.Max(maxRef, math.Abs(float64(r)))
					maxDiff = math.Max(maxDiff, math.Abs(float64(ps[1].Embeddings[i*media.EmbdStride]-r)))
				}
				t.Logf("%d×%d: max |Δ| %.2e (max |ref| %.2f)", ps[1].N, e.EmbeddingDim(), maxDiff, maxRef)
				require.LessOrEqual(t, maxDiff, 1e-3*maxRef)
			})
		}
	}
}
