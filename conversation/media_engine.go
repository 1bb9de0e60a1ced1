package conversation

import (
	"context"

	"github.com/litert-go/litert-go/encoder"
	"github.com/litert-go/litert-go/engine"
)

// engineEncoder returns the encoders of the engine's mmproj
// (engine.Settings.MMProj) as an Encoder, or nil when it has none.
func engineEncoder(eng *engine.Engine) Encoder {
	if e := eng.Encoder(); e != nil {
		return mmproj{e}
	}
	return nil
}

// mmproj is an encoder.Encoder as a conversation's Encoder: it decodes,
// preprocesses and encodes the media's bytes as llama.cpp's mtmd does.
type mmproj struct{ e *encoder.Encoder }

func (m mmproj) Vision() bool { return m.e.Vision() }
func (m mmproj) Audio() bool  { return m.e.Audio() }

func (m mmproj) Encode(ctx context.Context, md Media) ([]MediaPiece, error) {
	var ps []encoder.Piece
	var err error
	kind := encoder.MediaImage
	if md.Kind == "image" {
		ps, err = m.e.EncodeImage(ctx, md.Data)
	} else {
		kind = encoder.MediaAudio
		ps, err = m.e.EncodeAudio(ctx, md.Data)
	}
	if err != nil {
		return nil, err
	}
	out := make([]MediaPiece, len(ps))
	for i, p := range ps {
		out[i] = MediaPiece{Text: p.Text, Embeddings: p.Embeddings, N: p.N, NonCausal: p.Embeddings != nil && m.e.NonCausal(kind)}
	}
	return out, nil
}
