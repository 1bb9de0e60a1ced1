package models

import (
	"math"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/hparams"
	"github.com/litert-go/litert-go/native"
)

// Params are a model's hyper-parameters: the one vocabulary of
// models/hparams, whose table of GGUF keys (with the architectures that
// read each and its default) loaders, "litert-go info" and the synthetic
// model writer share.
type Params = hparams.Params

// hparams reads the file's hyper-parameters: hparams.Read, or
// hparams.ReadVarying for architectures that read per-layer values
// themselves (l.perLayer).
func (l *loader) hparams() (Params, error) {
	if l.perLayer {
		return hparams.ReadVarying(l.f)
	}
	return hparams.Read(l.f)
}

// params reads the hyper-parameters (hparams.Read) and checks them against
// each other and the file's tensors.
func (l *loader) params() Params {
	p, err := l.hparams()
	if err != nil {
		l.fail("%w", err)
		return p
	}
	// Every block has tensors: a larger count is a corrupt file, which
	// must fail here rather than allocate billions of layers.
	if p.NLayers > len(l.f.Tensors) {
		l.fail("key %q is %d, but the file has only %d tensors", l.key("block_count"), p.NLayers, len(l.f.Tensors))
		return p
	}
	if !l.f.Has(l.key("attention.key_length")) && p.Dim%p.NHeads != 0 {
		// llama.cpp asserts n_embd % n_head == 0 when the head size is implied.
		l.fail("key %q is %d, which %d heads (key %q) do not divide; the file gives no %q",
			l.key("embedding_length"), p.Dim, p.NHeads, l.key("attention.head_count"), l.key("attention.key_length"))
		return p
	}
	if p.ValueDim != p.HeadDim {
		l.fail("key length %d differs from value length %d, which is not supported", p.HeadDim, p.ValueDim)
	}
	// Check the head shape against the first query projection before
	// anything is sized by it (the RoPE table, the state's buffers).
	if ti, ok := l.f.Tensor("blk.0.attn_q.weight"); ok && !l.perLayer && uint64(ti.Rows()) != uint64(p.NHeads)*uint64(p.HeadDim) {
		l.fail("tensor %q has %d rows, want %d heads × %d", "blk.0.attn_q.weight", ti.Rows(), p.NHeads, p.HeadDim)
		return p
	}
	switch {
	case p.NKVHeads > p.NHeads:
		l.fail("key %q is %d, more than the %d heads", l.key("attention.head_count_kv"), p.NKVHeads, p.NHeads)
	case p.NHeads%p.NKVHeads != 0:
		l.fail("%d heads are not a multiple of %d KV heads", p.NHeads, p.NKVHeads)
	case p.RopeDim > p.HeadDim || p.RopeDim%2 != 0:
		l.fail("rope dimension %d does not fit a head of %d", p.RopeDim, p.HeadDim)
	case p.SWALayers != nil && len(p.SWALayers) != p.NLayers:
		l.fail("key %q has %d entries for %d layers", l.key("attention.sliding_window_pattern"), len(p.SWALayers), p.NLayers)
	case p.YaRNLogMul != 0:
		l.fail("YaRN with key %q (DeepSeek's mscale) is not supported", l.key("rope.scaling.yarn_log_multiplier"))
	}
	if p.VocabSize == 0 {
		l.fail("required tensor %q is missing", "token_embd.weight")
	}
	return p
}

// freqScale returns the linear position scale of p's rope.scaling.type
// and factor, as llama.cpp's rope_freq_scale: 1/factor, or 1 for no factor
// or type "none". An absent type with a factor is linear. YaRN scales by
// the same 1/factor, with the ramp rope adds.
func (l *loader) freqScale(p Params) float64 {
	switch p.RopeScaling {
	case "", "none", "linear", "yarn", "longrope":
	default:
		l.fail("key %q is %q, which is not supported (want none, linear, yarn or longrope)", l.key("rope.scaling.type"), p.RopeScaling)
		return 1
	}
	if p.RopeScaling == "none" || p.RopeFactor == 0 {
		return 1
	}
	return 1 / float64(p.RopeFactor)
}

// yarn reports whether p declares YaRN rope scaling.
func yarn(p Params) bool { return p.RopeScaling == "yarn" && p.RopeFactor != 0 && p.RopeFactor != 1 }

// rope returns the RoPE of p's global layers: base p.RopeBase, scaled (see
// ropeAt).
func (l *loader) rope(p Params, factors []float32, neox bool) (native.RoPE, float32) {
	return l.ropeAt(p, p.RopeBase, true, factors, neox)
}

// ropeAt returns the RoPE of p's rotated dimensions with base, the
// optional per-pair divisors factors and, when scaled, the file's position
// scaling (freqScale; layers that llama.cpp runs with freq_scale 1, such as
// Gemma 3's local ones, pass false), and the multiplier of the rotated
// elements: rope.scaling.attn_factor, times 1+0.1·ln factor for the scaled
// layers of a YaRN model.
//
// YaRN is ggml_rope_ext with ext_factor 1 as llama.cpp runs it for every
// architecture whose file declares it: beta_fast 32 and beta_slow 1
// (llama.cpp reads no rope.scaling.yarn_beta_* key for these), the
// correction dimensions of ggml_rope_yarn_corr_dims over
// rope.scaling.original_context_length and base, and each pair's angle
// interpolated between θ/factor and θ by ggml's ramp, which, being linear
// in the position, is one more per-pair divisor. With freq_scale 1 the ramp
// changes nothing, and only attn_factor remains.
func (l *loader) ropeAt(p Params, base float64, scaled bool, factors []float32, neox bool) (native.RoPE, float32) {
	scale := l.freqScale(p)
	if !scaled {
		scale = 1
	}
	mscale := p.RopeAttnFactor
	if !yarn(p) || !scaled {
		return native.NewRoPE(p.RopeDim, base, scale, factors, neox), mscale
	}
	freqScale := float32(scale)
	// ggml_rope_yarn_corr_dims, in float32 as ggml computes it
	corrDim := func(nRot float32) float32 {
		return float32(p.RopeDim) * float32(math.Log(float64(float32(p.RopeOrigCtx)/(nRot*2*math.Pi)))) /
			(2 * float32(math.Log(base)))
	}
	low := max(0, float32(math.Floor(float64(corrDim(32)))))
	high := min(float32(p.RopeDim-1), float32(math.Ceil(float64(corrDim(1)))))
	div := make([]float32, p.RopeDim/2)
	for i := range div {
		// rope_yarn_ramp(low, high, 2i)
		y := (float32(i) - low) / max(0.001, high-low)
		mix := 1 - min(1, max(0, y))
		div[i] = 1 / (freqScale*(1-mix) + mix)
		if factors != nil {
			div[i] *= factors[i]
		}
	}
	mscale *= 1 + 0.1*float32(math.Log(float64(1/freqScale)))
	return native.NewRoPE(p.RopeDim, base, 1, div, neox), mscale
}

// expertParams checks p's mixture-of-experts keys, which a routed
// architecture requires: expert_count and expert_used_count
// (expert_feed_forward_length defaults to feed_forward_length /
// expert_used_count, as in llama.cpp).
func (l *loader) expertParams(p *Params) {
	switch {
	case p.NExperts == 0:
		l.fail("%w", &gguf.KeyError{Key: l.key("expert_count"), Want: "integer"})
	case p.NExpertsUsed == 0:
		l.fail("%w", &gguf.KeyError{Key: l.key("expert_used_count"), Want: "integer"})
	case p.NExperts > maxExperts:
		l.fail("key %q is %d, more than the %d experts supported", l.key("expert_count"), p.NExperts, maxExperts)
	case p.NExpertsUsed > p.NExperts:
		l.fail("key %q is %d, more than the %d experts (key %q)", l.key("expert_used_count"), p.NExpertsUsed, p.NExperts, l.key("expert_count"))
	}
}

// The two helpers below serve architecture files that read their own
// knobs; a new knob belongs in the hparams table.

// ropeScale returns the file's linear position scale (freqScale), for
// architectures that build their RoPE themselves: YaRN, whose ramp only
// rope applies, is refused rather than run as a linear scale.
func (l *loader) ropeScale() float64 {
	p, err := l.hparams()
	if err != nil {
		l.fail("%w", err)
		return 1
	}
	if yarn(p) {
		l.fail("key %q is %q, which %s does not support", l.key("rope.scaling.type"), p.RopeScaling, l.arch)
		return 1
	}
	return l.freqScale(p)
}

// localLayers says which of nLayers layers use sliding-window attention:
// from <arch>.attention.sliding_window_pattern when the file has it, else
// by the period def (Params.IsLocal).
func (l *loader) localLayers(nLayers, def int) []bool {
	p, err := l.hparams()
	if err != nil {
		l.fail("%w", err)
	}
	if !l.f.Has(l.key("attention.sliding_window_pattern")) {
		p.SWALayers, p.SWAPeriod = nil, def
	}
	p.Window = 1
	local := make([]bool, nLayers)
	for i := range local {
		local[i] = p.IsLocal(i)
	}
	return local
}
