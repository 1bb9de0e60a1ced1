package encoder

import (
	"context"
	"encoding/json"
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
// of a prompt with one image for a tiny synthetic language model
// (testdata/gen/dumpmedia.cpp). The logits after the prompt are there for
// the session's end-to-end test; this package checks the rest.
type e2eReference struct {
	MMProj string `json:"mmproj"` // synth --mmproj kind
	Model  string `json:"model"`  // synth --shape of the language model
	W, H   int
	Prompt string // with DefaultMarker where the image goes
	Chunks []struct {
		Tokens    []int32   `json:"tokens"`
		NTokens   int       `json:"n_tokens"`
		NonCausal bool      `json:"non_causal"`
		Embd      []float32 `json:"embd"`
	}
	NVocab int       `json:"n_vocab"`
	Logits []float32 `json:"logits"`
}

// e2eImage is dumpmedia.cpp's image, normalized as clip.cpp does an image
// already of the encoder's size (no resize): v/255, then (v-mean)/std.
func e2eImage(w, h int, mean, std [3]float32) *Image {
	img := &Image{W: w, H: h, C: 3, Data: make([]float32, 3*w*h)}
	for i := range 3 * w * h {
		v := float32(uint8((uint32(i) * 2654435761) >> 24))
		c, p := i%3, i/3
		img.Data[c*w*h+p] = (v/255 - mean[c]) / std[c]
	}
	return img
}

// TestMediaLlamaCpp lays out prompts with an image as libmtmd does and
// checks them against mtmd_tokenize's chunks on the same synthetic model:
// the text before and after the embeddings tokenizes to the same ids, the
// image gives as many rows, and the attention over them is non-causal
// exactly when libmtmd's is. Where the image needs no resizing (so no
// preprocessing beyond normalization), the embeddings equal libmtmd's
// within 1e-3 too.
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
				vp, ok := e.VisionParams()
				require.True(t, ok)
				exact := ref.W == vp.ImageSize && ref.H == vp.ImageSize
				// the image as the encoder takes it: for the others, a
				// stand-in of the encoder's size (preprocessing is not
				// this package's)
				img := e2eImage(vp.ImageSize, vp.ImageSize, vp.Mean, vp.Std)
				if exact {
					img = e2eImage(ref.W, ref.H, vp.Mean, vp.Std)
				}
				ps, err := e.EncodeImageSlices(context.Background(), nil, []*Image{img}, 0, 0)
				require.NoError(t, err)
				require.Len(t, ps, 3)

				before, after, ok := strings.Cut(ref.Prompt, DefaultMarker)
				require.True(t, ok)
				require.Equal(t, ref.Chunks[0].Tokens, tok.Encode(before+ps[0].Text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true}))
				require.Equal(t, ref.Chunks[2].Tokens, tok.Encode(ps[2].Text+after, tokenizer.EncodeOptions{ParseSpecial: true}))

				media := ref.Chunks[1]
				require.Equal(t, media.NTokens, ps[1].N)
				require.Equal(t, media.NonCausal, e.NonCausal(MediaImage))
				require.Len(t, ps[1].Embeddings, len(media.Embd))
				if !exact {
					return
				}
				var maxRef, maxDiff float64
				for i, r := range media.Embd {
					maxRef = math.Max(maxRef, math.Abs(float64(r)))
					maxDiff = math.Max(maxDiff, math.Abs(float64(ps[1].Embeddings[i]-r)))
				}
				t.Logf("%d×%d: max |Δ| %.2e (max |ref| %.2f)", ps[1].N, e.EmbeddingDim(), maxDiff, maxRef)
				require.LessOrEqual(t, maxDiff, 1e-3*maxRef)
			})
		}
	}
}
