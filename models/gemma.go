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
	p Params
	b native.Backend

	TokEmbd native.Weight // token_embd.weight [VocabSize][Dim]
	Layers  []GemmaLayer
	OutNorm RMSNorm // output_norm.weight [Dim]
	Output  Linear  // output.weight [VocabSize][Dim], or token_embd.weight when tied
}

// GemmaLayer is one Gemma 3 block.
type GemmaLayer struct {
	AttnNorm     RMSNorm       // blk.N.attn_norm.weight [Dim]
	Attn         SelfAttention // blk.N.attn_{q,k,v,output}.weight, attn_{q,k}_norm.weight [HeadDim]
	PostAttnNorm RMSNorm       // blk.N.post_attention_norm.weight [Dim]
	FFNNorm      RMSNorm       // blk.N.ffn_norm.weight [Dim]
	FFN          MLP           // blk.N.ffn_{gate,up}.weight [HiddenDim][Dim], ffn_down.weight [Dim][HiddenDim]
	PostFFNNorm  RMSNorm       // blk.N.post_ffw_norm.weight [Dim]
	Local        bool          // sliding-window layer
}

func init() { Register("gemma3", loadGemma3) }

// loadGemma3 reads hyper-parameters and tensors. Required: token_embd,
// output_norm and every block tensor listed in GemmaLayer; optional:
// output (tied to token_embd when absent).
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

	m := &Gemma3{p: p, b: b}
	m.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	m.OutNorm = l.norm("output_norm", p.Dim, p.NormEps)
	m.Output = l.output(p)
	qDim, kvDim := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	m.Layers = make([]GemmaLayer, p.NLayers)
	for i := range m.Layers {
		blk := blockName(i)
		ly := &m.Layers[i]
		ly.Local = local[i]
		attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: scale}
		rope := globalRope
		if ly.Local {
			attn.Window = p.Window
			rope = localRope
		}
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.Attn = SelfAttention{
			Q:     l.linear(blk+"attn_q", qDim, p.Dim),
			K:     l.linear(blk+"attn_k", kvDim, p.Dim),
			V:     l.linear(blk+"attn_v", kvDim, p.Dim),
			O:     l.linear(blk+"attn_output", p.Dim, qDim),
			QNorm: l.norm(blk+"attn_q_norm", p.HeadDim, p.NormEps),
			KNorm: l.norm(blk+"attn_k_norm", p.HeadDim, p.NormEps),
			Rope:  rope,
			Attn:  attn,
		}
		ly.PostAttnNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
		ly.FFN = MLP{
			Gate: l.linear(blk+"ffn_gate", p.HiddenDim, p.Dim),
			Up:   l.linear(blk+"ffn_up", p.HiddenDim, p.Dim),
			Down: l.linear(blk+"ffn_down", p.Dim, p.HiddenDim),
			Act:  GELU,
		}
		ly.PostFFNNorm = l.norm(blk+"post_ffw_norm", p.Dim, p.NormEps)
		if l.err != nil {
			return nil, l.err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return m, nil
}

// Params returns the hyper-parameters.
func (m *Gemma3) Params() Params { return m.p }

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *Gemma3) Forward(s *State, tokens []int32, logits []float32) {
	s.begin(m.p, tokens)
	b, n, pos0, dim := m.b, len(tokens), s.n, m.p.Dim
	x, xb, xb2 := s.x[:n*dim], s.xb[:n*dim], s.xb2[:n*dim]
	// token embeddings scaled by √Dim
	embed(m.TokEmbd, tokens, x, float32(math.Sqrt(float64(dim))))
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
	s.n += n
	if logits != nil {
		// final rmsnorm and classifier, last token only
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
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
