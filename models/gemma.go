package models

import (
	"math"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Gemma3 is Google's Gemma 3 text model: embeddings scaled by √Dim,
// per-head q/k RMSNorm, RMSNorm before and after both attention and MLP,
// a GELU(tanh) gate, and sliding-window (local) layers interleaved with
// global layers, each kind with its own RoPE base.
//
// It follows llama.cpp src/models/gemma3.cpp (llm_build_gemma3<iswa=true>)
// and the gemma3 case of llama_model::load_hparams: every sixth layer is
// global (il % 6 == 5), local layers use RoPE base 10000 and no position
// scaling, queries are scaled by 1/√key_length (1/√(Dim/NHeads) for the
// 62-layer 27B model) and there is no final logit soft-capping. The GGUF
// converter already stored Gemma's norm weights as 1+w.
type Gemma3 struct {
	decoder
}

func init() { Register("gemma3", loadGemma3) }

// gemmaBlock is the block of Gemma 2 and 3: RMSNorm before and after
// attention and MLP, and a GELU(tanh) gate. Gemma 3 adds per-head q/k norms.
var gemmaBlock = blockSpec{preNorms: true, postNorms: true, act: GELU}

// loadGemma3 reads hyper-parameters and tensors. Required: token_embd,
// output_norm and every block tensor of gemmaBlock plus attn_{q,k}_norm;
// optional: output (tied to token_embd when absent).
func loadGemma3(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "gemma3"}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	p.Window = l.int("attention.sliding_window")
	local := l.localLayers(p.NLayers, 6)
	localBase := l.positiveFloatOr("rope.freq_base_swa", 10000)
	globalScale := l.ropeScale()
	if l.err != nil {
		return nil, l.err
	}
	globalRope := native.NewRoPE(p.RopeDim, p.RopeBase, globalScale, nil, true)
	localRope := native.NewRoPE(p.RopeDim, localBase, 1, nil, true)
	scale := invSqrt(p.HeadDim)
	if p.NLayers == 62 { // 27B: query_pre_attn_scalar = Dim/NHeads
		scale = invSqrt(p.Dim / p.NHeads)
	}
	spec := gemmaBlock
	spec.qkNorm = qkPerHead

	m := &Gemma3{decoder: l.decoder(p)}
	for i := range m.Layers {
		attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: scale}
		rope := globalRope
		if local[i] {
			attn.Window = p.Window
			rope = localRope
		}
		m.Layers[i] = l.block(i, p, spec, rope, attn)
		if l.err != nil {
			return nil, l.err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return m, nil
}

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *Gemma3) Forward(s *State, in Input, logits []float32) {
	m.forwardGemma(s, in, logits, 0)
}

// forwardGemma is the forward pass of Gemma 2 and 3; Gemma 2 soft-caps the
// logits at finalCap (0 for none).
func (m *decoder) forwardGemma(s *State, in Input, logits []float32, finalCap float32) {
	s.begin(m.p, in)
	b, n, pos0, dim := m.b, in.Len(), s.n, m.p.Dim
	x, xb, xb2 := s.x[:n*dim], s.xb[:n*dim], s.xb2[:n*dim]
	// token embeddings scaled by √Dim (input embeddings are not scaled)
	embedInput(b, m.TokEmbd, in, x, float32(math.Sqrt(float64(dim))))
	s.traced("token_embd", -1, x, dim, pos0)
	for i := range m.Layers {
		ly := &m.Layers[i]
		// attention rmsnorm
		ly.AttnNorm.Forward(b, xb, x)
		// self-attention (local layers see the last Window positions)
		ly.Attn.Forward(b, s, i, xb2, xb, pos0, n)
		// post-attention rmsnorm, residual
		ly.PostAttnNorm.Forward(b, xb2, xb2)
		add(x, xb2)
		s.traced("attention", i, x, dim, pos0)
		// ffn rmsnorm
		ly.FFNNorm.Forward(b, xb, x)
		// GeGLU MLP: down(gelu(gate(x)) * up(x))
		ly.FFN.Forward(b, xb2, xb, s.hb, s.hb2, n)
		// post-ffn rmsnorm, residual
		ly.PostFFNNorm.Forward(b, xb2, xb2)
		add(x, xb2)
		s.traced("feed-forward", i, x, dim, pos0)
	}
	s.advance(n)
	if logits != nil {
		// final rmsnorm and classifier, last token only
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
		// Gemma 2: logits soft-capped to (-finalCap, finalCap)
		if finalCap > 0 {
			softCap(logits[:m.p.VocabSize], finalCap)
		}
	}
}

// localLayers says which layers use sliding-window attention: from
// <arch>.attention.sliding_window_pattern when the file has it, either one
// bool per layer or a period n (layer i is local unless i%n == n-1), else
// from the period def, as llama.cpp's set_swa_pattern.
func (l *loader) localLayers(nLayers, def int) []bool {
	local := make([]bool, nLayers)
	key := l.key("attention.sliding_window_pattern")
	if v, ok := l.f.Lookup(key); ok {
		if bs, ok := v.Data.([]bool); ok {
			if len(bs) != nLayers {
				l.fail("key %q has %d entries for %d layers", key, len(bs), nLayers)
				return local
			}
			return bs
		}
		def = l.int("attention.sliding_window_pattern")
	}
	for i := range local {
		local[i] = def > 0 && i%def < def-1
	}
	return local
}
