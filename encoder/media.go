package encoder

import (
	"context"
	"fmt"

	"github.com/litert-go/litert-go/encoder/preprocess"
)

// EncodeImage decodes an image file (PNG, JPEG, GIF or WebP, within
// preprocess.DefaultLimits), preprocesses it as llama.cpp's mtmd does for
// the projector (resize, tiles, normalization) and encodes it into the
// pieces the prompt holds in place of the image's Marker.
func (e *Encoder) EncodeImage(ctx context.Context, data []byte) ([]Piece, error) {
	vp, ok := e.VisionParams()
	if !ok {
		return nil, fmt.Errorf("encoder: %s mmproj has no vision encoder", e.Projector())
	}
	img, err := preprocess.DecodeImage(data, preprocess.Limits{})
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	p, err := preprocess.NewParams(vp.Projector, vp.ImageSize, vp.PatchSize, vp.Mean, vp.Std,
		preprocess.Options{ScaleFactor: vp.ScaleFactor, PreprocImageSize: vp.PreprocImageSize})
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	pp, err := preprocess.PreprocessImage(img, p)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	return e.EncodeImageSlices(ctx, pp.Overview, pp.Entries, pp.GridX, pp.GridY)
}

// EncodeAudio decodes an audio file (WAV, MP3 or FLAC, within
// preprocess.DefaultLimits), computes its log-mel spectrogram as llama.cpp's
// mtmd does (mono, 16 kHz, 30 s windows) and encodes it into the pieces the
// prompt holds in place of the audio's Marker.
func (e *Encoder) EncodeAudio(ctx context.Context, data []byte) ([]Piece, error) {
	if e.audio == nil {
		return nil, fmt.Errorf("encoder: %s mmproj has no audio encoder", e.Projector())
	}
	mels, err := preprocess.WhisperMel(data, e.MelBins(), preprocess.Limits{})
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	return e.EncodeAudioMels(ctx, mels)
}
