package models

import (
	"fmt"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// LFM2 (Liquid AI's LFM2-350M … 2.6B) interleaves short gated
// convolutions with grouped-query attention. Every block is pre-norm
// (blk.N.attn_norm, blk.N.ffn_norm) with a SwiGLU MLP; its mixer is
// either
//
//   - attention (the layers whose entry of the per-layer array
//     lfm2.attention.head_count_kv is not zero): attn_q/k/v/output with a
//     per-head RMSNorm of q and k (attn_{q,k}_norm) and NeoX RoPE; or
//   - a short convolution: in_proj (blk.N.shortconv.in_proj.weight
//     [3·Dim][Dim]) gives B, C and x; B⊙x runs through a causal depthwise
//     convolution of lfm2.shortconv.l_cache taps (blk.N.shortconv.conv.weight
//     [Dim][L]) carrying the last L-1 rows in the layer's conv state; C
//     gates the result before out_proj (blk.N.shortconv.out_proj.weight).
//
// The output norm is token_embd_norm.weight. See llama.cpp
// src/models/lfm2.cpp (llama_model_lfm2).
type LFM2 struct {
	decoder
	conv []*ShortConv // per layer; nil for attention layers
}

// ShortConv is LFM2's gated short convolution.
type ShortConv struct {
	InProj  Linear    // [3·Dim][Dim]: rows of B, then C, then x
	Kernel  []float32 // [Dim][Taps], ggml_ssm_conv's kernel
	Taps    int       // shortconv.l_cache
	OutProj Linear    // [Dim][Dim]
}

// Scratch buffers of the LFM2 forward pass (State.Buffer ids).
const (
	lfm2BufBCX  = 100 + iota // in_proj output [n][3·Dim]
	lfm2BufBX                // B⊙x [n][Dim]
	lfm2BufConv              // convolution output [n][Dim]
)

func init() {
	Register("lfm2", loadLFM2)
}

// layerKVHeads returns the per-layer array <arch>.attention.head_count_kv,
// one entry per block, each 0 or positive.
func (l *loader) layerKVHeads() ([]int, error) {
	key := l.key("attention.head_count_kv")
	vals, err := l.f.Ints(key)
	if err != nil {
		return nil, err
	}
	nl, err := l.f.Int(l.key("block_count"))
	if err != nil {
		return nil, err
	}
	if int64(len(vals)) != nl {
		return nil, fmt.Errorf("key %q has %d entries for %d blocks (key %q)", key, len(vals), nl, l.key("block_count"))
	}
	out := make([]int, len(vals))
	for i, v := range vals {
		if v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("key %q: layer %d has %d KV heads", key, i, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// loadLFM2 reads the hyper-parameters and tensors of an LFM2 file.
func loadLFM2(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "lfm2"}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	per, err := l.layerKVHeads()
	if err != nil {
		// a scalar count: llama.cpp then makes every layer attention
		return nil, fmt.Errorf("LFM2 needs the per-layer %q array: %w", l.key("attention.head_count_kv"), err)
	}
	taps := l.int("shortconv.l_cache")
	if l.err == nil && (taps < 2 || taps > 64) {
		l.fail("key %q is %d, want 2 to 64 taps", l.key("shortconv.l_cache"), taps)
	}
	if l.f.Has(l.key("attention.sliding_window")) {
		l.fail("key %q: LFM2 with sliding-window attention is not supported", l.key("attention.sliding_window"))
	}
	if l.err != nil {
		return nil, l.err
	}
	m := &LFM2{conv: make([]*ShortConv, p.NLayers)}
	m.decoder = decoder{p: p, b: b, Layers: make([]Block, p.NLayers)}
	m.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	m.OutNorm = l.norm("token_embd_norm", p.Dim, p.NormEps) // llama.cpp's LLM_TENSOR_OUTPUT_NORM_LFM2
	m.Output = l.output(p)
	if yarn(p) { // rope's YaRN magnitude has no place in this forward pass
		l.fail("key %q is %q, which %s does not support", l.key("rope.scaling.type"), p.RopeScaling, l.arch)
	}
	rope, _ := l.rope(p, nil, true)
	attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: invSqrt(p.HeadDim)}
	spec := blockSpec{preNorms: true, qkNorm: qkPerHead, act: SiLU}
	for i := range m.Layers {
		if per[i] > 0 {
			m.Layers[i] = l.block(i, p, spec, rope, attn)
			continue
		}
		blk := blockName(i)
		ly := &m.Layers[i]
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
		ly.FFN = l.mlp(blk, p, spec)
		m.conv[i] = &ShortConv{
			InProj:  l.linear(blk+"shortconv.in_proj", 3*p.Dim, p.Dim),
			Kernel:  l.convKernel(blk+"shortconv.conv.weight", p.Dim, taps),
			Taps:    taps,
			OutProj: l.linear(blk+"shortconv.out_proj", p.Dim, p.Dim),
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return m, nil
}

// convKernel returns the convolution kernel name (GGUF dims [taps,
// channels]) as float32.
func (l *loader) convKernel(name string, channels, taps int) []float32 {
	if ti, ok := l.f.Tensor(name); ok && (len(ti.Dims) != 2 || ti.Dims[0] != uint64(taps) || ti.Dims[1] != uint64(channels)) {
		l.fail("tensor %q has shape %v, want [%d %d]", name, ti.Dims, taps, channels)
		return nil
	}
	return l.vector(name, channels*taps)
}

// Caches declares a KV cache for the attention layers and a conv state of
// taps-1 rows for the others.
func (m *LFM2) Caches() []LayerCache {
	cs := make([]LayerCache, len(m.Layers))
	for i := range cs {
		cs[i].SharedKV = -1
		if c := m.conv[i]; c != nil {
			cs[i].Conv = (c.Taps - 1) * m.p.Dim
		} else {
			cs[i].KVWidth = m.p.NKVHeads * m.p.HeadDim
		}
	}
	return cs
}

// Forward runs a batch through the model (see Model.Forward).
func (m *LFM2) Forward(s *State, in Input, logits []float32) { m.forwardHybrid(s, in, logits, m) }

// mix is layer i's token mixer: the short convolution or attention.
func (m *LFM2) mix(b native.Backend, s *State, i int, out, x []float32, pos0, n int) {
	if c := m.conv[i]; c != nil {
		c.Forward(b, s, i, out, x, n)
	} else {
		m.Layers[i].Attn.Forward(b, s, i, out, x, pos0, n)
	}
}

// tokenMixer is a hybrid architecture's per-layer token mixer (attention,
// a convolution or a recurrent block), writing the mix of the normed rows
// x into out.
type tokenMixer interface {
	mix(b native.Backend, s *State, layer int, out, x []float32, pos0, n int)
}

// forwardHybrid is the forward pass of a hybrid stack (LFM2, Qwen3.5):
// in each layer the token mixer and the FFN, each pre-normed and added to
// the residual stream.
func (m *decoder) forwardHybrid(s *State, in Input, logits []float32, mixer tokenMixer) {
	s.begin(m.p, in)
	b, n, pos0, dim := m.b, in.Len(), s.n, m.p.Dim
	x, xb, xb2 := s.x[:n*dim], s.xb[:n*dim], s.xb2[:n*dim]
	embedInput(b, m.TokEmbd, in, x, 1)
	s.traced("token_embd", -1, x, dim, pos0)
	for i := range m.Layers {
		ly := &m.Layers[i]
		ly.AttnNorm.Forward(b, xb, x)
		mixer.mix(b, s, i, xb2, xb, pos0, n)
		b.Add(x, xb2)
		s.traced("attention", i, x, dim, pos0)
		ly.FFNNorm.Forward(b, xb, x)
		ly.FFN.Forward(b, s, xb2, xb, n)
		b.Add(x, xb2)
		s.traced("feed-forward", i, x, dim, pos0)
	}
	s.advance(n)
	if logits != nil {
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
	}
}

// Forward writes the short convolution of the nTokens rows of x into out,
// continuing from and updating layer's conv state in s.
func (c *ShortConv) Forward(b native.Backend, s *State, layer int, out, x []float32, nTokens int) {
	dim := c.OutProj.W.Rows
	bcx := s.Buffer(lfm2BufBCX, nTokens*3*dim)
	bx := s.Buffer(lfm2BufBX, nTokens*dim)
	conv := s.Buffer(lfm2BufConv, nTokens*dim)
	c.InProj.Forward(b, bcx, x, nTokens)
	for t := range nTokens {
		row := bcx[t*3*dim : (t+1)*3*dim]
		hadamard(bx[t*dim:(t+1)*dim], row[:dim], row[2*dim:]) // B⊙x
	}
	b.CausalConv(conv, bx, s.Conv(layer), c.Kernel, dim, c.Taps, nTokens)
	for t := range nTokens {
		o := conv[t*dim : (t+1)*dim]
		hadamard(o, bcx[t*3*dim+dim:t*3*dim+2*dim], o) // C⊙conv
	}
	c.OutProj.Forward(b, out, conv, nTokens)
}

// hadamard sets dst[i] = a[i]·b[i]; dst may alias a or b.
func hadamard(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}
