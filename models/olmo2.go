package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// PostNorm is the block of OLMo 2 and EXAONE 4: no norm before attention
// or MLP, RMSNorm after each (post_attention_norm, post_ffw_norm) before
// its residual add, RMSNorm of queries and keys before RoPE and a SwiGLU
// MLP. OLMo 2 normalizes the whole q and k projections
// (attn_q_norm.weight [NHeads*HeadDim], attn_k_norm.weight
// [NKVHeads*HeadDim]); EXAONE 4 each head ([HeadDim]).
//
// It follows llama.cpp src/models/olmo2.cpp and exaone4.cpp, both with
// NeoX RoPE. OLMo 3's sliding-window variant (olmo2 with
// attention.sliding_window) is refused. EXAONE 4 uses sliding-window
// layers only in its 64-layer model, as llama.cpp decides: there, three of
// every four layers are local with RoPE and the fourth is global without.
type PostNorm struct {
	decoder
}

func init() {
	Register("olmo2", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadPostNorm(f, b, "olmo2")
	})
	Register("exaone4", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadPostNorm(f, b, "exaone4")
	})
}

// loadPostNorm reads hyper-parameters and tensors: token_embd, output_norm,
// output (olmo2 requires it; exaone4 ties it to token_embd when absent),
// rope_freqs (exaone4, optional) and the blocks' tensors.
func loadPostNorm(f *gguf.File, b native.Backend, arch string) (Model, error) {
	l := &loader{f: f, b: b, arch: arch}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	spec := blockSpec{postNorms: true, act: SiLU, qkNorm: qkPerHead}
	var factors []float32
	switch arch {
	case "olmo2":
		spec.qkNorm = qkWhole
		if p.Window > 0 {
			l.fail("olmo2 with sliding-window attention (OLMo 3) is not supported")
		}
		if !l.has("output.weight") {
			l.fail("required tensor %q is missing", "output.weight")
		}
	case "exaone4":
		if p.NLayers != 64 { // 32B: llama.cpp turns sliding windows on for it alone
			p.Window = 0
		}
		if l.has("rope_freqs.weight") {
			factors = l.vector("rope_freqs.weight", p.RopeDim/2)
		}
	}
	rope, mscale := l.rope(p, factors, true)
	var localRope native.RoPE // exaone4's local layers
	var localMScale float32
	if arch == "exaone4" && p.Window > 0 {
		localRope, localMScale = l.ropeAt(p, p.RopeBaseSWA, true, factors, true)
	}
	if l.err != nil {
		return nil, l.err
	}
	m := &PostNorm{decoder: l.decoder(p)}
	for i := range m.Layers {
		attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: invSqrt(p.HeadDim)}
		m.Layers[i] = l.block(i, p, spec, rope, attn)
		m.Layers[i].Attn.RopeMScale = mscale
		if arch == "exaone4" && p.Window > 0 {
			// exaone4.cpp: RoPE on the local layers only
			if p.IsLocal(i) {
				m.Layers[i].Attn.Attn.Window = p.Window
				m.Layers[i].Attn.Rope, m.Layers[i].Attn.RopeMScale = localRope, localMScale
			} else {
				m.Layers[i].Attn.NoPE = true
			}
		}
		if l.err != nil {
			return nil, l.err
		}
	}
	return m, nil
}

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *PostNorm) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	b, n, pos0, dim := m.b, in.Len(), s.n, m.p.Dim
	x, xb := s.x[:n*dim], s.xb[:n*dim]
	// token embeddings
	embedInput(b, m.TokEmbd, in, x, 1)
	s.traced("token_embd", -1, x, dim, pos0)
	for i := range m.Layers {
		ly := &m.Layers[i]
		// self-attention of the un-normed stream (q/k norm inside)
		ly.Attn.Forward(b, s, i, xb, x, pos0, n)
		// post-attention rmsnorm, residual
		ly.PostAttnNorm.Forward(b, xb, xb)
		b.Add(x, xb)
		s.traced("attention", i, x, dim, pos0)
		// SwiGLU MLP of the un-normed stream
		ly.FFN.Forward(b, s, xb, x, n)
		// post-ffn rmsnorm, residual
		ly.PostFFNNorm.Forward(b, xb, xb)
		b.Add(x, xb)
		s.traced("feed-forward", i, x, dim, pos0)
	}
	s.advance(n)
	if logits != nil {
		// final rmsnorm and classifier, last token only
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
	}
}
