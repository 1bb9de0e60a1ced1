package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Llama is the llama architecture (Llama 2 and 3, SmolLM, TinyLlama) and,
// through flavor flags set in qwen.go, Qwen2 and Qwen3: pre-norm blocks of
// grouped-query attention and a SwiGLU MLP.
//
// It follows llama.cpp src/models/llama.cpp (and qwen2.cpp, qwen3.cpp).
// llama uses the normal RoPE pairing (2i, 2i+1) because convert_hf_to_gguf
// permutes the rows of attn_q and attn_k; Qwen uses NeoX pairing on
// unpermuted rows.
type Llama struct {
	p Params
	b native.Backend

	TokEmbd native.Weight // token_embd.weight [VocabSize][Dim]
	Layers  []LlamaLayer
	OutNorm RMSNorm // output_norm.weight [Dim]
	Output  Linear  // output.weight [VocabSize][Dim], or token_embd.weight when tied
}

// LlamaLayer is one transformer block.
type LlamaLayer struct {
	AttnNorm RMSNorm       // blk.N.attn_norm.weight [Dim]
	Attn     SelfAttention // blk.N.attn_{q,k,v,output}.weight (+ .bias in Qwen2, attn_{q,k}_norm in Qwen3)
	FFNNorm  RMSNorm       // blk.N.ffn_norm.weight [Dim]
	FFN      MLP           // blk.N.ffn_{gate,up}.weight [HiddenDim][Dim], ffn_down.weight [Dim][HiddenDim]
}

// llamaFlavor is what differs between llama, qwen2 and qwen3.
type llamaFlavor struct {
	neox   bool // NeoX RoPE pairing
	qkNorm bool // per-head RMSNorm of q and k before RoPE (required)
}

func init() {
	Register("llama", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "llama", llamaFlavor{})
	})
}

// loadLlama reads hyper-parameters and tensors. Required: token_embd,
// output_norm and each block's attn_norm, attn_q/k/v/output, ffn_norm,
// ffn_gate/up/down. Optional: output (tied to token_embd when absent),
// rope_freqs (llama 3 frequency factors), attention biases.
func loadLlama(f *gguf.File, b native.Backend, arch string, fl llamaFlavor) (*Llama, error) {
	l := &loader{f: f, b: b, arch: arch}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	var factors []float32
	if l.has("rope_freqs.weight") {
		factors = l.vector("rope_freqs.weight", p.RopeDim/2)
	}
	rope := native.NewRoPE(p.RopeDim, p.RopeBase, l.ropeScale(), factors, fl.neox)
	attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: invSqrt(p.HeadDim)}

	m := &Llama{p: p, b: b}
	m.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	m.OutNorm = l.norm("output_norm", p.Dim, p.NormEps)
	m.Output = l.output(p)
	qDim, kvDim := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	m.Layers = make([]LlamaLayer, p.NLayers)
	for i := range m.Layers {
		blk := blockName(i)
		ly := &m.Layers[i]
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.Attn = SelfAttention{
			Q:    l.linear(blk+"attn_q", qDim, p.Dim),
			K:    l.linear(blk+"attn_k", kvDim, p.Dim),
			V:    l.linear(blk+"attn_v", kvDim, p.Dim),
			O:    l.linear(blk+"attn_output", p.Dim, qDim),
			Rope: rope,
			Attn: attn,
		}
		if fl.qkNorm {
			ly.Attn.QNorm = l.norm(blk+"attn_q_norm", p.HeadDim, p.NormEps)
			ly.Attn.KNorm = l.norm(blk+"attn_k_norm", p.HeadDim, p.NormEps)
		}
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
		ly.FFN = MLP{
			Gate: l.linear(blk+"ffn_gate", p.HiddenDim, p.Dim),
			Up:   l.linear(blk+"ffn_up", p.HiddenDim, p.Dim),
			Down: l.linear(blk+"ffn_down", p.Dim, p.HiddenDim),
			Act:  SiLU,
		}
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
func (m *Llama) Params() Params { return m.p }

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *Llama) Forward(s *State, tokens []int32, logits []float32) {
	s.begin(m.p, tokens)
	b, n, pos0, dim := m.b, len(tokens), s.n, m.p.Dim
	x, xb, xb2 := s.x[:n*dim], s.xb[:n*dim], s.xb2[:n*dim]
	// token embeddings
	embed(m.TokEmbd, tokens, x, 1)
	s.traced("token_embd", -1, x, dim, pos0)
	for i := range m.Layers {
		ly := &m.Layers[i]
		// attention rmsnorm
		ly.AttnNorm.Forward(b, xb, x)
		// self-attention over the cache (q/k/v, rope, store k/v, attend, output projection)
		ly.Attn.Forward(b, s, i, xb2, xb, pos0, n)
		// residual
		add(x, xb2)
		s.traced("attention", i, x, dim, pos0)
		// ffn rmsnorm
		ly.FFNNorm.Forward(b, xb, x)
		// SwiGLU MLP: down(silu(gate(x)) * up(x))
		ly.FFN.Forward(b, xb2, xb, s.hb, s.hb2, n)
		// residual
		add(x, xb2)
		s.traced("feed-forward", i, x, dim, pos0)
	}
	s.n += n
	if logits != nil {
		// final rmsnorm and classifier, last token only
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
	}
}
