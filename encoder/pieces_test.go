package encoder

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// zeroImage is a normalized w×h image of zeros.
func zeroImage(w, h int) *Image { return &Image{W: w, H: h, C: 3, Data: make([]float32, 3*w*h)} }

// texts returns the pieces' text, with "#N" for an embedding piece of N rows.
func texts(t *testing.T, ps []Piece, dim int) []string {
	var out []string
	for _, p := range ps {
		if p.N > 0 {
			require.Len(t, p.Embeddings, p.N*dim)
			require.Empty(t, p.Text)
			out = append(out, fmt.Sprintf("#%d", p.N))
			continue
		}
		out = append(out, p.Text)
	}
	return out
}

// TestPieces checks the text around each family's embeddings against the
// layouts of llama.cpp's mtmd.cpp (the comments of mtmd_context's
// constructor and mtmd_tokenizer::add_media) and the templates' markers.
func TestPieces(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	ctx := context.Background()
	open := func(kind string) *Encoder {
		e, err := Open(synthFile(t, kind), b)
		require.NoError(t, err)
		return e
	}

	g := open("gemma3")
	vp, ok := g.VisionParams()
	require.True(t, ok)
	require.Equal(t, VisionParams{Projector: "gemma3", ImageSize: 64, PatchSize: 4, ScaleFactor: 4,
		Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5}}, vp)
	require.Equal(t, 0, g.MelBins())
	require.Equal(t, "<start_of_image>", g.Marker(MediaImage))
	require.Equal(t, DefaultMarker, g.Marker(MediaAudio))
	ps, err := g.EncodeImageSlices(ctx, nil, []*Image{zeroImage(64, 64)}, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"<start_of_image>", "#16", "<end_of_image>"}, texts(t, ps, 128))

	// SmolVLM: tiles row by row, then the global image
	s := open("idefics3")
	require.Equal(t, "<image>", s.Marker(MediaImage))
	tiles := []*Image{zeroImage(32, 32), zeroImage(32, 32), zeroImage(32, 32), zeroImage(32, 32)}
	ps, err = s.EncodeImageSlices(ctx, zeroImage(32, 32), tiles, 2, 2)
	require.NoError(t, err)
	require.Equal(t, []string{
		"<fake_token_around_image><row_1_col_1>", "#16", "<fake_token_around_image><row_1_col_2>", "#16",
		"\n<fake_token_around_image><row_2_col_1>", "#16", "<fake_token_around_image><row_2_col_2>", "#16",
		"\n\n<fake_token_around_image><global-img>", "#16", "<fake_token_around_image>",
	}, texts(t, ps, 192))

	// LFM2-VL: single tile, and tiles then thumbnail
	l := open("lfm2")
	ps, err = l.EncodeImageSlices(ctx, nil, []*Image{zeroImage(48, 40)}, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"<|image_start|>", "#30", "<|image_end|>"}, texts(t, ps, 128))
	ps, err = l.EncodeImageSlices(ctx, zeroImage(24, 20), tiles[:2], 2, 1)
	require.NoError(t, err)
	require.Equal(t, []string{
		"<|image_start|><|img_row_1_col_1|>", "#16", "<|img_row_1_col_2|>", "#16",
		"<|img_thumbnail|>", "#9", "<|image_end|>",
	}, texts(t, ps, 128))

	v := open("voxtral")
	_, ok = v.VisionParams()
	require.False(t, ok)
	require.Equal(t, 128, v.MelBins())
	require.True(t, v.Audio())
	require.False(t, v.Vision())
	mel := Mel{NMel: 128, NFrames: 208, Data: make([]float32, 128*208)}
	ps, err = v.EncodeAudioMels(ctx, []Mel{mel, mel})
	require.NoError(t, err)
	require.Equal(t, []string{"[BEGIN_AUDIO]", "#13", "#13"}, texts(t, ps, 128))
	require.Equal(t, "<|audio|>", open("ultravox").Marker(MediaAudio))
	q := open("qwen2a")
	require.Equal(t, "<|audio_bos|><|AUDIO|><|audio_eos|>", q.Marker(MediaAudio))
	ps, err = q.EncodeAudioMels(ctx, []Mel{mel})
	require.NoError(t, err)
	require.Equal(t, []string{"<|audio_bos|>", "#52", "<|audio_eos|>"}, texts(t, ps, 128))

	_, err = s.EncodeImageSlices(ctx, zeroImage(32, 32), tiles[:3], 2, 2)
	require.ErrorContains(t, err, "3 image tiles for a grid of 2×2")
	_, err = s.EncodeImageSlices(ctx, zeroImage(32, 32), []*Image{zeroImage(32, 32), zeroImage(30, 32)}, 2, 1)
	require.ErrorContains(t, err, "tile at row 1, column 2")
	_, err = g.EncodeImageSlices(ctx, zeroImage(64, 64), []*Image{zeroImage(64, 64)}, 1, 1)
	require.ErrorContains(t, err, "gemma3 projector takes whole images")
	_, err = s.EncodeImageSlices(ctx, nil, nil, 0, 0)
	require.ErrorContains(t, err, "neither entries nor overview")
	_, err = v.EncodeAudioMels(ctx, nil)
	require.ErrorContains(t, err, "empty audio")
	_, err = l.EncodeImageSlices(ctx, nil, []*Image{zeroImage(30, 30)}, 0, 0)
	require.ErrorContains(t, err, "whole 4-pixel patches")
	_, err = l.EncodeImageSlices(ctx, nil, []*Image{zeroImage(4000, 4000)}, 0, 0)
	require.ErrorContains(t, err, "at most 4096")
}

// TestOpenFile loads an mmproj that synth wrote to disk and refuses a file
// that is not one, naming it.
func TestOpenFile(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	path := filepath.Join(t.TempDir(), "mmproj.gguf")
	require.NoError(t, synth.WriteMMProj(path, "ultravox", 1, ggml.F16))
	e, err := OpenFile(path, b)
	require.NoError(t, err)
	require.Equal(t, "ultravox", e.Projector())
	require.NoError(t, e.CheckDim(128))
	require.NoError(t, e.Close())
	require.NoError(t, e.Close())

	lm := filepath.Join(t.TempDir(), "lm.gguf")
	require.NoError(t, synth.WriteFile(lm, "tiny-gemma3-270m", synth.Options{Seed: 1}))
	_, err = OpenFile(lm, b)
	require.ErrorContains(t, err, "lm.gguf")
	require.ErrorContains(t, err, "not an mmproj")
	_, err = OpenFile(filepath.Join(t.TempDir(), "missing.gguf"), b)
	require.ErrorContains(t, err, "missing.gguf")
}
