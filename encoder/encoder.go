// Package encoder runs the vision and audio encoders of multimodal models,
// loaded from the separate "mmproj" GGUF files that llama.cpp's tools/mtmd
// reads beside a language model (clip.* keys, v.* / a.* / mm.* tensors),
// on the language model's native.Backend.
//
// An encoder turns an image or audio file (EncodeImage, EncodeAudio: decoded
// and preprocessed by encoder/preprocess as llama.cpp's mtmd does), or an
// already preprocessed image or log-mel spectrogram, into rows of
// embeddings of the language model's width, which enter the prompt in
// place of token embeddings, between the text the family's chat format
// puts around them (Piece, Marker). The computation follows
// llama.cpp's clip.cpp graph for each projector, down to the points where
// ggml rounds (the F16 im2col of its convolutions, its tabulated GELU, the
// activations it converts to F16 or 8 bits for F16 or quantized weights),
// so that the embeddings equal libmtmd's.
//
// Supported projectors: vision "gemma3" (SigLIP, 2-D average pooling, soft
// embedding norm), "idefics3" (SigLIP, pixel shuffle; SmolVLM) and "lfm2"
// (SigLIP2 at dynamic resolution: interpolated position embeddings, pixel
// unshuffle, MLP; LFM2-VL); audio "ultravox" and "voxtral" (Whisper
// encoder, frame stacking) and "qwen2a" (Whisper encoder, linear; Qwen2-Audio).
package encoder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/litert-go/litert-go/encoder/preprocess"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Media is the kind of input an encoder takes.
type Media int

const (
	MediaImage Media = iota
	MediaAudio
)

func (m Media) String() string {
	if m == MediaAudio {
		return "audio"
	}
	return "image"
}

// Image is a preprocessed image or image tile: W×H pixels of C = 3 planes,
// channel c, row y, column x at Data[(c·H+y)·W+x], resized and normalized
// as the projector's preprocessing does.
type Image = preprocess.Image

// Mel is a log-mel spectrogram of NMel bins by NFrames frames, bin b,
// frame f at Data[b·NFrames+f], as llama.cpp's mtmd-audio computes it.
type Mel = preprocess.Mel

// Encoder is a loaded mmproj: a vision encoder, an audio encoder or both.
// Its weights are read-only and an Encoder is safe for concurrent use.
type Encoder struct {
	b      native.Backend
	vision *visionTower
	audio  *audioTower
	file   *gguf.File // the file OpenFile mapped, closed by Close
}

// Limits on the hyper-parameters of a file, far above any released model,
// so that a corrupt header fails with an error rather than an allocation.
const (
	maxWidth  = 1 << 14 // embedding, feed-forward and projector widths
	maxLayers = 256
	maxImage  = 8192 // image side in pixels (clip.cpp's cap)
	maxMel    = 256  // mel bins (clip.cpp's cap)
)

// Open loads the encoders of the mmproj f to run on b. It checks every key
// and tensor the projector needs, naming the first that is missing or has
// the wrong shape or type. The Encoder refers to f's tensor data, which
// must stay mapped while it is used.
func Open(f *gguf.File, b native.Backend) (*Encoder, error) {
	if arch, err := f.Architecture(); err == nil && arch != "clip" {
		return nil, fmt.Errorf("encoder: general.architecture is %q, not an mmproj (want \"clip\")", arch)
	}
	e := &Encoder{b: b}
	hasV, err := optBool(f, "clip.has_vision_encoder")
	if err != nil {
		return nil, err
	}
	hasA, err := optBool(f, "clip.has_audio_encoder")
	if err != nil {
		return nil, err
	}
	if !hasV && !hasA {
		return nil, fmt.Errorf("encoder: neither clip.has_vision_encoder nor clip.has_audio_encoder is true")
	}
	if hasV {
		hp, err := readHParams(f, MediaImage)
		if err != nil {
			return nil, err
		}
		if e.vision, err = loadVision(newLoader(f, b, hp)); err != nil {
			return nil, err
		}
	}
	if hasA {
		hp, err := readHParams(f, MediaAudio)
		if err != nil {
			return nil, err
		}
		if e.audio, err = loadAudio(newLoader(f, b, hp)); err != nil {
			return nil, err
		}
	}
	if e.vision != nil && e.audio != nil && e.vision.outDim != e.audio.outDim {
		return nil, fmt.Errorf("encoder: vision projector gives %d-wide embeddings, audio %d", e.vision.outDim, e.audio.outDim)
	}
	return e, nil
}

// OpenFile maps the mmproj GGUF file at path and loads it (Open); Close
// unmaps it.
func OpenFile(path string, b native.Backend) (*Encoder, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	e, err := Open(f, b)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	e.file = f
	return e, nil
}

// Close releases the file OpenFile mapped; after it e must not be used. It
// does nothing for an Encoder made by Open, whose file the caller owns.
func (e *Encoder) Close() error {
	if e.file == nil {
		return nil
	}
	f := e.file
	e.file = nil
	return f.Close()
}

// Vision reports whether e encodes images.
func (e *Encoder) Vision() bool { return e.vision != nil }

// Audio reports whether e encodes audio.
func (e *Encoder) Audio() bool { return e.audio != nil }

// EmbeddingDim is the width of the embeddings e produces, which must equal
// the language model's embedding width.
func (e *Encoder) EmbeddingDim() int {
	if e.vision != nil {
		return e.vision.outDim
	}
	return e.audio.outDim
}

// Projector names the projector: that of the vision encoder when there is
// one, else that of the audio encoder ("gemma3", "idefics3", "lfm2",
// "ultravox", "voxtral", "qwen2a").
func (e *Encoder) Projector() string {
	if e.vision != nil {
		return e.vision.hp.proj
	}
	return e.audio.hp.proj
}

// CheckDim returns an error unless e's embeddings are dim wide: the check
// to make against the language model before anything is prefilled.
func (e *Encoder) CheckDim(dim int) error {
	if got := e.EmbeddingDim(); got != dim {
		return fmt.Errorf("encoder: %s projector gives %d-wide embeddings but the language model's width is %d (mmproj of another model?)", e.Projector(), got, dim)
	}
	return nil
}

// VisionParams are the mmproj's keys that image preprocessing reads, as
// encoder/preprocess.NewParams takes them: the normalization turns pixel
// values v in [0,1] into (v-Mean)/Std per channel.
type VisionParams struct {
	Projector        string
	ImageSize        int // clip.vision.image_size: the side of square images and tiles
	PatchSize        int // clip.vision.patch_size
	ScaleFactor      int // clip.vision.projector.scale_factor, 0 when absent
	PreprocImageSize int // clip.vision.preproc_image_size (idefics3's longest edge), 0 when absent
	Mean, Std        [3]float32
}

// VisionParams returns the preprocessing keys of the vision encoder; false
// without one.
func (e *Encoder) VisionParams() (VisionParams, bool) {
	if e.vision == nil {
		return VisionParams{}, false
	}
	hp := e.vision.hp
	return VisionParams{Projector: hp.proj, ImageSize: hp.imageSize, PatchSize: hp.patchSize,
		ScaleFactor: hp.scaleKey, PreprocImageSize: hp.preprocSize, Mean: hp.mean, Std: hp.std}, true
}

// MelBins is the number of mel bins the audio encoder takes (0 without one).
func (e *Encoder) MelBins() int {
	if e.audio == nil {
		return 0
	}
	return e.audio.hp.nMel
}

// projectors lists the projector types this package runs, by media.
var projectors = map[Media][]string{
	MediaImage: {"gemma3", "idefics3", "lfm2"},
	MediaAudio: {"ultravox", "voxtral", "qwen2a"},
}

// ffnOp is the activation of the encoder's feed-forward blocks.
type ffnOp int

const (
	geluQuick ffnOp = iota // clip.cpp's default (CLIP, no use_gelu/use_silu)
	geluTanh               // clip.use_gelu: ggml_gelu, tabulated in fp16
	geluErf                // Whisper encoders
	silu                   // clip.use_silu
)

// hparams are the hyper-parameters of one tower, read from the clip.* keys
// as clip.cpp's load_hparams does.
type hparams struct {
	proj         string
	nEmbd, nHead int
	headDim      int
	nFF, nLayer  int
	eps          float32
	ffn          ffnOp
	imageSize    int
	patchSize    int
	merge        int // gemma3 pooling kernel, idefics3 and lfm2 shuffle factor
	scaleKey     int // clip.vision.projector.scale_factor as stored, 0 if absent
	preprocSize  int // clip.vision.preproc_image_size, 0 if absent
	mean, std    [3]float32
	nMel, stack  int
}

// intKey is an integer hyper-parameter: its key, where it goes, its range
// and whether a file must have it.
type intKey struct {
	key      string
	dst      *int
	min, max int
	required bool
}

// readHParams reads the hyper-parameters of the tower for media m.
func readHParams(f *gguf.File, m Media) (hparams, error) {
	var hp hparams
	mod := "vision"
	if m == MediaAudio {
		mod = "audio"
	}
	proj, err := optString(f, "clip.projector_type")
	if err != nil {
		return hp, err
	}
	if proj == "" {
		// files holding both towers name each projector
		if proj, err = optString(f, "clip."+mod+".projector_type"); err != nil {
			return hp, err
		}
	}
	if proj == "" {
		return hp, fmt.Errorf("encoder: no clip.projector_type (nor clip.%s.projector_type)", mod)
	}
	if !slices.Contains(projectors[m], proj) {
		return hp, fmt.Errorf("encoder: clip.projector_type %q: unsupported %s projector (supported: %s)", proj, mod, strings.Join(projectors[m], ", "))
	}
	hp.proj = proj
	key := func(k string) string { return "clip." + mod + "." + k }
	ints := []intKey{
		{key("embedding_length"), &hp.nEmbd, 1, maxWidth, true},
		{key("attention.head_count"), &hp.nHead, 1, maxWidth, true},
		{key("attention.head_dim"), &hp.headDim, 1, maxWidth, false},
		{key("feed_forward_length"), &hp.nFF, 1, maxWidth, true},
		{key("block_count"), &hp.nLayer, 1, maxLayers, true},
	}
	if m == MediaImage {
		ints = append(ints, []intKey{
			{"clip.vision.image_size", &hp.imageSize, 1, maxImage, true},
			{"clip.vision.patch_size", &hp.patchSize, 1, maxImage, true},
			{"clip.vision.projector.scale_factor", &hp.scaleKey, 1, 64, false},
			{"clip.vision.preproc_image_size", &hp.preprocSize, 1, 1 << 16, false},
		}...)
	} else {
		ints = append(ints, []intKey{
			{"clip.audio.num_mel_bins", &hp.nMel, 1, maxMel, true},
			{"clip.audio.projector.stack_factor", &hp.stack, 1, 64, proj != "qwen2a"},
		}...)
	}
	for _, k := range ints {
		if !f.Has(k.key) {
			if k.required {
				return hp, fmt.Errorf("encoder: %s projector: missing key %s", proj, k.key)
			}
			continue
		}
		v, err := f.Int(k.key)
		if err != nil {
			return hp, fmt.Errorf("encoder: %w", err)
		}
		if v < int64(k.min) || v > int64(k.max) {
			return hp, fmt.Errorf("encoder: key %s is %d, want %d..%d", k.key, v, k.min, k.max)
		}
		*k.dst = int(v)
	}
	if hp.headDim == 0 {
		if hp.nEmbd%hp.nHead != 0 {
			return hp, fmt.Errorf("encoder: %s is %d, not a multiple of %s %d", key("embedding_length"), hp.nEmbd, key("attention.head_count"), hp.nHead)
		}
		hp.headDim = hp.nEmbd / hp.nHead
	}
	eps, err := f.Float(key("attention.layer_norm_epsilon"))
	if err != nil {
		return hp, fmt.Errorf("encoder: %s projector: %w", proj, err)
	}
	if !(eps >= 0 && eps < 1) {
		return hp, fmt.Errorf("encoder: key %s is %g, want a small positive epsilon", key("attention.layer_norm_epsilon"), eps)
	}
	hp.eps = float32(eps)

	gelu, err := optBool(f, "clip.use_gelu")
	if err != nil {
		return hp, err
	}
	useSilu, err := optBool(f, "clip.use_silu")
	if err != nil {
		return hp, err
	}
	switch {
	case gelu && useSilu:
		return hp, fmt.Errorf("encoder: both clip.use_gelu and clip.use_silu are true")
	case m == MediaAudio: // clip.cpp sets GELU (erf) for every Whisper-style projector
		hp.ffn = geluErf
	case gelu:
		hp.ffn = geluTanh
	case useSilu:
		hp.ffn = silu
	default:
		hp.ffn = geluQuick
	}

	if m == MediaImage {
		hp.merge = hp.scaleKey
		if hp.merge == 0 {
			hp.merge = 1 // clip.cpp's default, gemma3's is 4
			if proj == "gemma3" {
				hp.merge = 4
			}
		}
		if hp.merge < 2 && (proj == "idefics3" || proj == "lfm2") {
			return hp, fmt.Errorf("encoder: %s projector: clip.vision.projector.scale_factor is %d, want ≥ 2 (the pixel shuffle)", proj, hp.merge)
		}
		if hp.imageSize%hp.patchSize != 0 {
			return hp, fmt.Errorf("encoder: clip.vision.image_size %d is not a multiple of clip.vision.patch_size %d", hp.imageSize, hp.patchSize)
		}
		if side := hp.imageSize / hp.patchSize; side%hp.merge != 0 && proj != "lfm2" {
			return hp, fmt.Errorf("encoder: %d patches per side is not a multiple of clip.vision.projector.scale_factor %d", side, hp.merge)
		}
		for i, k := range []string{"clip.vision.image_mean", "clip.vision.image_std"} {
			v, err := f.Float32s(k)
			if err != nil {
				return hp, fmt.Errorf("encoder: %w", err)
			}
			if len(v) < 3 {
				return hp, fmt.Errorf("encoder: key %s has %d values, want 3", k, len(v))
			}
			dst := &hp.mean
			if i == 1 {
				dst = &hp.std
			}
			copy(dst[:], v)
		}
		for c, s := range hp.std {
			if !(s > 0) {
				return hp, fmt.Errorf("encoder: clip.vision.image_std[%d] is %g, want > 0", c, s)
			}
		}
	}
	return hp, nil
}

// optBool returns the value of a boolean key, false when it is absent.
func optBool(f *gguf.File, key string) (bool, error) {
	if !f.Has(key) {
		return false, nil
	}
	v, err := f.Bool(key)
	if err != nil {
		return false, fmt.Errorf("encoder: %w", err)
	}
	return v, nil
}

// optString returns the value of a string key, "" when it is absent.
func optString(f *gguf.File, key string) (string, error) {
	if !f.Has(key) {
		return "", nil
	}
	v, err := f.String(key)
	if err != nil {
		return "", fmt.Errorf("encoder: %w", err)
	}
	return v, nil
}
