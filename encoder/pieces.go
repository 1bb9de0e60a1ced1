package encoder

import (
	"context"
	"fmt"
)

// Piece is one piece of a media item in the prompt: Text to tokenize (its
// special tokens parsed, as the template's are), or N rows of EmbeddingDim
// embeddings that enter the model in place of token embeddings.
type Piece struct {
	Text       string
	Embeddings []float32
	N          int
}

// DefaultMarker is llama.cpp's mtmd_default_marker(): the text that stands
// for a media item in a prompt rendered for libmtmd.
const DefaultMarker = "<__media__>"

// layout is how llama.cpp's mtmd_tokenize surrounds a projector's
// embeddings with text (mtmd.cpp, mtmd_context's constructor and
// mtmd_tokenizer::add_media): begin and end strings around the whole item
// and, for images cut into a grid of tiles, the text before each tile, at
// the end of each row but the last and around the overview, which follows
// the tiles in every family here.
type layout struct {
	marker         string // what the family's chat template renders for the item
	beg, end       string
	ovStart, ovEnd string
	tile           string // fmt template of the row and column, 1-based
	rowEnd         string
}

var layouts = map[string]layout{
	"gemma3": {marker: "<start_of_image>", beg: "<start_of_image>", end: "<end_of_image>"},
	"idefics3": {marker: "<image>",
		ovStart: "\n\n<fake_token_around_image><global-img>", ovEnd: "<fake_token_around_image>",
		tile: "<fake_token_around_image><row_%d_col_%d>", rowEnd: "\n"},
	"lfm2": {marker: "<image>", beg: "<|image_start|>", end: "<|image_end|>",
		ovStart: "<|img_thumbnail|>", tile: "<|img_row_%d_col_%d|>"},
	"ultravox": {marker: "<|audio|>"},
	"voxtral":  {marker: DefaultMarker, beg: "[BEGIN_AUDIO]"},
	"qwen2a":   {marker: "<|audio_bos|><|AUDIO|><|audio_eos|>", beg: "<|audio_bos|>", end: "<|audio_eos|>"},
}

// Marker returns the text the model family's chat template renders for a
// media part of kind m (Gemma 3's "<start_of_image>", Qwen2-Audio's
// "<|audio_bos|><|AUDIO|><|audio_eos|>"…), which the caller replaces by the
// item's pieces, themselves holding any begin and end tokens; DefaultMarker
// when e has no encoder for m or the family's template is not known here
// (voxtral), for a caller that renders media parts as that text, as
// llama.cpp's server does.
func (e *Encoder) Marker(m Media) string {
	var proj string
	switch {
	case m == MediaImage && e.vision != nil:
		proj = e.vision.hp.proj
	case m == MediaAudio && e.audio != nil:
		proj = e.audio.hp.proj
	default:
		return DefaultMarker
	}
	return layouts[proj].marker
}

// pieces accumulates text and embedding pieces, merging adjacent text.
type pieces []Piece

func (p *pieces) text(s string) {
	if s == "" {
		return
	}
	if n := len(*p); n > 0 && (*p)[n-1].N == 0 {
		(*p)[n-1].Text += s
		return
	}
	*p = append(*p, Piece{Text: s})
}

func (p *pieces) embed(emb []float32, n int) { *p = append(*p, Piece{Embeddings: emb, N: n}) }

// EncodeImageSlices encodes an image as its projector's preprocessing
// left it (encoder/preprocess.Preprocessed): either entries alone (one
// image, no grid), or an overview and gridX×gridY tiles in row-major order,
// and lays the embeddings out between the text llama.cpp puts around them.
func (e *Encoder) EncodeImageSlices(ctx context.Context, overview *Image, entries []*Image, gridX, gridY int) ([]Piece, error) {
	if e.vision == nil {
		return nil, fmt.Errorf("encoder: %s mmproj has no vision encoder", e.Projector())
	}
	tiled := overview != nil || gridX > 0 || gridY > 0
	switch {
	case gridX < 0 || gridY < 0 || gridX > maxTiles || gridY > maxTiles:
		return nil, fmt.Errorf("encoder: image tile grid of %d×%d", gridX, gridY)
	case tiled && len(entries) != gridX*gridY:
		return nil, fmt.Errorf("encoder: %d image tiles for a grid of %d×%d", len(entries), gridX, gridY)
	case !tiled && len(entries) == 0:
		return nil, fmt.Errorf("encoder: an image with neither entries nor overview")
	}
	l := layouts[e.vision.hp.proj]
	if tiled && l.tile == "" {
		return nil, fmt.Errorf("encoder: the %s projector takes whole images, not an overview and tiles", e.vision.hp.proj)
	}
	var out pieces
	out.text(l.beg)
	encode := func(img *Image) error {
		emb, n, err := e.EncodeImageTensor(ctx, img)
		if err != nil {
			return err
		}
		out.embed(emb, n)
		return nil
	}
	if !tiled {
		for _, img := range entries {
			if err := encode(img); err != nil {
				return nil, err
			}
		}
		out.text(l.end)
		return out, nil
	}
	addOverview := func() error {
		if overview == nil {
			return nil
		}
		out.text(l.ovStart)
		if err := encode(overview); err != nil {
			return fmt.Errorf("encoder: image overview: %w", err)
		}
		out.text(l.ovEnd)
		return nil
	}
	for y := range gridY {
		for x := range gridX {
			out.text(fmt.Sprintf(l.tile, y+1, x+1))
			if err := encode(entries[y*gridX+x]); err != nil {
				return nil, fmt.Errorf("encoder: image tile at row %d, column %d: %w", y+1, x+1, err)
			}
		}
		if y != gridY-1 {
			out.text(l.rowEnd)
		}
	}
	if err := addOverview(); err != nil {
		return nil, err
	}
	out.text(l.end)
	return out, nil
}

// maxTiles bounds each side of an image's tile grid.
const maxTiles = 64

// EncodeAudioMels encodes the 30 s windows of an audio item's log-mel
// spectrogram, one embedding piece each, between the text llama.cpp puts
// around them.
func (e *Encoder) EncodeAudioMels(ctx context.Context, mels []Mel) ([]Piece, error) {
	if e.audio == nil {
		return nil, fmt.Errorf("encoder: %s mmproj has no audio encoder", e.Projector())
	}
	if len(mels) == 0 {
		return nil, fmt.Errorf("encoder: empty audio: no mel windows")
	}
	l := layouts[e.audio.hp.proj]
	var out pieces
	out.text(l.beg)
	for i := range mels {
		emb, n, err := e.EncodeMel(ctx, &mels[i])
		if err != nil {
			return nil, fmt.Errorf("encoder: audio window %d: %w", i, err)
		}
		out.embed(emb, n)
	}
	out.text(l.end)
	return out, nil
}

// NonCausal reports whether the language model attends over the embeddings
// of a media item of kind m bidirectionally (every row sees every other
// row of the same item, decoded as one batch), as llama.cpp does for Gemma
// 3 images (mtmd_decode_use_non_causal); otherwise they are decoded with
// the causal mask like text.
func (e *Encoder) NonCausal(m Media) bool {
	return m == MediaImage && e.vision != nil && e.vision.hp.proj == "gemma3"
}
