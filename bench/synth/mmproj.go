package synth

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// mmprojSpec is the shape of one tiny multimodal projector file (an mmproj
// as llama.cpp's convert_hf_to_gguf.py writes it for tools/mtmd): the keys
// of clip.cpp's load_hparams and the tensors of its load_tensors.
type mmprojSpec struct {
	proj    string // clip.projector_type
	audio   bool   // a Whisper-style audio encoder, not a SigLIP ViT
	nEmbd   int    // encoder width
	nHead   int
	nFF     int
	nLayer  int
	textDim int // the language model's width the projector maps to

	// vision
	imageSize, patchSize, merge int

	// audio
	nMel, stack, nPos int

	hidden int // projector MLP width (lfm2, ultravox, voxtral)
}

// mmprojSpecs are the synthetic mmproj shapes: a tiny one per projector,
// and real widths for benchmarks. The tiny ones' text widths are those of
// the tiny language models of the same family:
// tiny-gemma3-270m (128), tiny-smollm2-135m (192, SmolVLM's LM) and
// tiny-llama3.2-1b (128: Ultravox's LM; Voxtral's and Qwen2-Audio's are
// as wide); LFM2 has no synthetic LM here.
var mmprojSpecs = map[string]mmprojSpec{
	// SigLIP 16×16 patches of 4 pixels, 4×4 average pooling: 16 tokens
	// (the real model: 64×64 patches of 14 pixels, 256 tokens).
	"gemma3": {proj: "gemma3", nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 128,
		imageSize: 64, patchSize: 4, merge: 4},
	// Gemma 3's SigLIP at its real widths (so400m: 1152 wide, 16 heads, 4304
	// feed-forward) but 2 of its 27 layers and 224-pixel images (16×16
	// patches of 14, 16 tokens), into tiny-gemma3-270m's real width 640:
	// for speed comparisons.
	"gemma3-wide": {proj: "gemma3", nEmbd: 1152, nHead: 16, nFF: 4304, nLayer: 2, textDim: 640,
		imageSize: 224, patchSize: 14, merge: 4},
	// SigLIP 8×8 patches, pixel shuffle by 2: 16 tokens per tile.
	"idefics3": {proj: "idefics3", nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 192,
		imageSize: 32, patchSize: 4, merge: 2},
	// SigLIP2 with an 8×8 table of position embeddings (32-pixel images),
	// interpolated for other sizes; pixel unshuffle by 2, LayerNorm, MLP.
	"lfm2": {proj: "lfm2", nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 128,
		imageSize: 32, patchSize: 4, merge: 2, hidden: 64},
	// Whisper conv stem on 80 mel bins, 2 layers, frames stacked by 8
	// into a SwiGLU projector with RMS norms.
	"ultravox": {proj: "ultravox", audio: true, nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 128,
		nMel: 80, stack: 8, nPos: 1500, hidden: 48},
	// Whisper conv stem on 128 mel bins, average pooling by 2, one linear
	// layer (Qwen2-Audio).
	"qwen2a": {proj: "qwen2a", audio: true, nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 128,
		nMel: 128, nPos: 1500},
	// Whisper conv stem on 128 mel bins, average pooling by 2, frames
	// stacked by 4 into a GELU MLP.
	"voxtral": {proj: "voxtral", audio: true, nEmbd: 32, nHead: 4, nFF: 64, nLayer: 2, textDim: 128,
		nMel: 128, stack: 4, nPos: 1500, hidden: 48},
}

// MMProjKinds returns the projector kinds MMProj can write, sorted.
func MMProjKinds() []string {
	kinds := make([]string, 0, len(mmprojSpecs))
	for k := range mmprojSpecs {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// MMProj returns a synthetic mmproj of the given kind (MMProjKinds) with
// weights drawn from seed: real key names and tensor layouts, small widths
// (real ones, with few layers, for the "-wide" kinds). The
// matrices of the transformer and the projector are stored as typ (F32,
// F16 or a type ggml quantizes, as released mmproj files are); patch and
// conv kernels are F16, norms, biases and position embeddings F32.
func MMProj(kind string, seed uint64, typ ggml.DType) (*gguf.Model, error) {
	s, ok := mmprojSpecs[kind]
	if !ok {
		return nil, fmt.Errorf("synth: unknown mmproj kind %q (have %v)", kind, MMProjKinds())
	}
	if typ != ggml.F32 && typ != ggml.F16 && !ggml.CanQuantize(typ) {
		return nil, fmt.Errorf("synth: mmproj weights cannot be %s", typ)
	}
	b := &mmprojBuilder{seed: seed, typ: typ}
	b.kv("general.architecture", gguf.String("clip"))
	b.kv("general.name", gguf.String("synthetic-"+kind+"-mmproj"))
	b.kv("clip.projector_type", gguf.String(s.proj))
	b.kv("clip.has_vision_encoder", gguf.Bool(!s.audio))
	b.kv("clip.has_audio_encoder", gguf.Bool(s.audio))
	mod, pre := "vision", "v"
	if s.audio {
		mod, pre = "audio", "a"
	}
	b.kv("clip."+mod+".embedding_length", gguf.Uint32(uint32(s.nEmbd)))
	b.kv("clip."+mod+".feed_forward_length", gguf.Uint32(uint32(s.nFF)))
	b.kv("clip."+mod+".block_count", gguf.Uint32(uint32(s.nLayer)))
	b.kv("clip."+mod+".projection_dim", gguf.Uint32(uint32(s.textDim)))
	b.kv("clip."+mod+".attention.head_count", gguf.Uint32(uint32(s.nHead)))
	E, F := s.nEmbd, s.nFF
	if s.audio {
		b.kv("clip.audio.attention.layer_norm_epsilon", gguf.Float32(1e-5))
		b.kv("clip.audio.num_mel_bins", gguf.Uint32(uint32(s.nMel)))
		if s.stack > 0 {
			b.kv("clip.audio.projector.stack_factor", gguf.Uint32(uint32(s.stack)))
		}
		// conv stem: kernel 3, padding 1, strides 1 and 2
		b.tensor("a.conv1d.1.weight", ggml.F16, 1/math.Sqrt(float64(3*s.nMel)), 0, 3, s.nMel, E)
		b.tensor("a.conv1d.1.bias", ggml.F32, 0.1, 0, 1, E)
		b.tensor("a.conv1d.2.weight", ggml.F16, 1/math.Sqrt(float64(3*E)), 0, 3, E, E)
		b.tensor("a.conv1d.2.bias", ggml.F32, 0.1, 0, 1, E)
		b.tensor("a.position_embd.weight", ggml.F32, 0.5, 0, E, s.nPos)
	} else {
		b.kv("clip.use_gelu", gguf.Bool(true))
		b.kv("clip.vision.attention.layer_norm_epsilon", gguf.Float32(1e-6))
		b.kv("clip.vision.image_size", gguf.Uint32(uint32(s.imageSize)))
		b.kv("clip.vision.patch_size", gguf.Uint32(uint32(s.patchSize)))
		b.kv("clip.vision.image_mean", gguf.Float32s([]float32{0.5, 0.5, 0.5}))
		b.kv("clip.vision.image_std", gguf.Float32s([]float32{0.5, 0.5, 0.5}))
		b.kv("clip.vision.projector.scale_factor", gguf.Uint32(uint32(s.merge)))
		p := s.patchSize
		n := (s.imageSize / p) * (s.imageSize / p)
		b.tensor("v.patch_embd.weight", ggml.F16, 1/math.Sqrt(float64(3*p*p)), 0, p, p, 3, E)
		b.tensor("v.patch_embd.bias", ggml.F32, 0.1, 0, E)
		b.tensor("v.position_embd.weight", ggml.F32, 0.5, 0, E, n)
	}
	for i := range s.nLayer {
		blk := fmt.Sprintf("%s.blk.%d.", pre, i)
		for _, w := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			b.tensor(blk+w+".weight", b.typ, 1/math.Sqrt(float64(E)), 0, E, E)
			if !(s.audio && w == "attn_k") { // Whisper's k_proj has no bias
				b.tensor(blk+w+".bias", ggml.F32, 0.1, 0, E)
			}
		}
		for _, ln := range []string{"ln1", "ln2"} {
			b.tensor(blk+ln+".weight", ggml.F32, 0.1, 1, E)
			b.tensor(blk+ln+".bias", ggml.F32, 0.1, 0, E)
		}
		b.tensor(blk+"ffn_up.weight", b.typ, 1/math.Sqrt(float64(E)), 0, E, F)
		b.tensor(blk+"ffn_up.bias", ggml.F32, 0.1, 0, F)
		b.tensor(blk+"ffn_down.weight", b.typ, 1/math.Sqrt(float64(F)), 0, F, E)
		b.tensor(blk+"ffn_down.bias", ggml.F32, 0.1, 0, E)
	}
	b.tensor(pre+".post_ln.weight", ggml.F32, 0.1, 1, E)
	b.tensor(pre+".post_ln.bias", ggml.F32, 0.1, 0, E)
	switch s.proj {
	case "gemma3":
		b.tensor("mm.soft_emb_norm.weight", ggml.F32, 0.1, 1, E)
		// stored [text, vision]: clip.cpp multiplies by its transpose,
		// which ggml cannot make of a quantized tensor: F16 then
		pt := b.typ
		if pt != ggml.F32 {
			pt = ggml.F16
		}
		b.tensor("mm.input_projection.weight", pt, 1/math.Sqrt(float64(E)), 0, s.textDim, E)
	case "idefics3":
		in := E * s.merge * s.merge
		b.tensor("mm.model.fc.weight", b.typ, 1/math.Sqrt(float64(in)), 0, in, s.textDim)
	case "lfm2":
		in := E * s.merge * s.merge
		b.tensor("mm.input_norm.weight", ggml.F32, 0.1, 1, in)
		b.tensor("mm.input_norm.bias", ggml.F32, 0.1, 0, in)
		b.tensor("mm.1.weight", b.typ, 1/math.Sqrt(float64(in)), 0, in, s.hidden)
		b.tensor("mm.1.bias", ggml.F32, 0.1, 0, s.hidden)
		b.tensor("mm.2.weight", b.typ, 1/math.Sqrt(float64(s.hidden)), 0, s.hidden, s.textDim)
		b.tensor("mm.2.bias", ggml.F32, 0.1, 0, s.textDim)
	case "ultravox":
		in := E * s.stack
		b.tensor("mm.a.norm_pre.weight", ggml.F32, 0.1, 1, in)
		b.tensor("mm.a.mlp.1.weight", b.typ, 1/math.Sqrt(float64(in)), 0, in, 2*s.hidden)
		b.tensor("mm.a.norm_mid.weight", ggml.F32, 0.1, 1, s.hidden)
		b.tensor("mm.a.mlp.2.weight", b.typ, 1/math.Sqrt(float64(s.hidden)), 0, s.hidden, s.textDim)
	case "qwen2a":
		b.tensor("mm.a.fc.weight", b.typ, 1/math.Sqrt(float64(E)), 0, E, s.textDim)
		b.tensor("mm.a.fc.bias", ggml.F32, 0.1, 0, s.textDim)
	case "voxtral":
		in := E * s.stack
		b.tensor("mm.a.mlp.1.weight", b.typ, 1/math.Sqrt(float64(in)), 0, in, s.hidden)
		b.tensor("mm.a.mlp.2.weight", b.typ, 1/math.Sqrt(float64(s.hidden)), 0, s.hidden, s.textDim)
	}
	if b.err != nil {
		return nil, b.err
	}
	return &gguf.Model{KV: b.kvs, Tensors: b.tensors}, nil
}

// WriteMMProj writes MMProj(kind, seed, typ) to the file at path.
func WriteMMProj(path, kind string, seed uint64, typ ggml.DType) error {
	m, err := MMProj(kind, seed, typ)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, m); err != nil {
		return fmt.Errorf("synth: %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// mmprojBuilder accumulates the keys and seeded tensors of an mmproj.
type mmprojBuilder struct {
	seed    uint64
	typ     ggml.DType // of the matrices
	err     error      // the first quantization failure
	kvs     []gguf.KV
	tensors []gguf.Tensor
}

func (b *mmprojBuilder) kv(key string, v gguf.Value) {
	b.kvs = append(b.kvs, gguf.KV{Key: key, Value: v})
}

// tensor adds a tensor of ggml dims (Dims[0] fastest) filled with
// mean + std·z from the tensor's own stream, stored as t.
func (b *mmprojBuilder) tensor(name string, t ggml.DType, std, mean float64, dims ...int) {
	n := 1
	ud := make([]uint64, len(dims))
	for i, d := range dims {
		n *= d
		ud[i] = uint64(d)
	}
	vals := make([]float32, n)
	normals(newStream(b.seed, name, 0), vals, float32(mean), float32(std))
	var data []byte
	switch {
	case t == ggml.F16:
		data = make([]byte, 2*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint16(data[2*i:], ggml.F32ToF16(v))
		}
	case t == ggml.F32 || dims[0]%t.BlockSize() != 0:
		// a row that does not fill whole blocks stays F32, as llama.cpp's
		// quantizer leaves it
		t = ggml.F32
		data = make([]byte, 4*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
	default:
		data = make([]byte, n/t.BlockSize()*t.TypeSize())
		if err := ggml.Quantize(t, vals, data); err != nil && b.err == nil {
			b.err = fmt.Errorf("synth: quantize %s: %w", name, err)
		}
	}
	b.tensors = append(b.tensors, gguf.Tensor{Info: gguf.TensorInfo{Name: name, Dims: ud, Type: t}, Data: data})
}
