package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Llama is the llama architecture (Llama 2 and 3, SmolLM) and, through the
// flavors set in qwen.go, qwen3moe.go, smollm3.go and granite.go, Qwen2,
// Qwen3, Qwen3-MoE, SmolLM3 and Granite, and the loader of phi3.go, Phi-3: pre-norm blocks of
// grouped-query attention and a SwiGLU MLP.
//
// It follows llama.cpp src/models/llama.cpp (and qwen2.cpp, qwen3.cpp,
// smollm3.cpp, granite.cpp). llama uses the normal RoPE pairing (2i, 2i+1)
// because convert_hf_to_gguf permutes the rows of attn_q and attn_k; Qwen
// uses NeoX pairing on unpermuted rows.
type Llama struct {
	decoder
	embedScale    float32 // multiplies the token embeddings (Granite; else 1)
	residualScale float32 // multiplies each block output before its residual add (Granite; else 1)
	logitScale    float32 // multiplies the logits (Granite: 1/logit_scale; else 1)
}

// llamaFlavor is what differs between llama, qwen2, qwen3, smollm3 and
// granite.
type llamaFlavor struct {
	neox    bool // NeoX RoPE pairing
	qkNorm  bool // per-head RMSNorm of q and k before RoPE (required)
	granite bool // read Granite's multipliers (granite.embedding_scale, …)
	moe     bool // routed experts instead of the MLP (Qwen3-MoE, gpt-oss)
	gptOSS  bool // gpt-oss's blocks (gptoss.go)
}

func init() {
	Register("llama", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "llama", llamaFlavor{})
	})
}

// loadLlama reads hyper-parameters and tensors. Required: token_embd,
// output_norm and each block's attn_norm, attn_q/k/v/output, ffn_norm,
// ffn_gate/up/down. Optional: output (tied to token_embd when absent),
// rope_freqs (llama 3 frequency factors), attention and MLP biases. RoPE
// scaling may be linear or YaRN (Qwen3's long-context configuration).
func loadLlama(f *gguf.File, b native.Backend, arch string, fl llamaFlavor) (*Llama, error) {
	l := &loader{f: f, b: b, arch: arch}
	p := l.params()
	if fl.moe {
		l.expertParams(&p)
	}
	if l.err != nil {
		return nil, l.err
	}
	var factors []float32
	if l.has("rope_freqs.weight") {
		factors = l.vector("rope_freqs.weight", p.RopeDim/2)
	}
	rope, mscale := l.rope(p, factors, fl.neox)
	attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: invSqrt(p.HeadDim)}
	m := &Llama{embedScale: 1, residualScale: 1, logitScale: 1}
	if fl.granite {
		// llama.cpp granite.cpp: embeddings × embedding_scale, q·k ×
		// attention.scale, block outputs × residual_scale, logits ÷
		// logit_scale.
		m.embedScale, m.residualScale, attn.Scale = p.EmbeddingScale, p.ResidualScale, p.AttentionScale
		m.logitScale = 1 / p.LogitScale
	}
	spec := blockSpec{preNorms: true, act: SiLU, moe: fl.moe}
	if fl.qkNorm {
		spec.qkNorm = qkPerHead
	}
	var localRope native.RoPE // gpt-oss: the sliding-window layers'
	var localMScale float32
	if fl.gptOSS {
		spec = l.gptOSS(spec)
		localRope, localMScale = l.ropeAt(p, p.RopeBaseSWA, true, factors, fl.neox)
	}
	if l.err != nil {
		return nil, l.err
	}
	m.decoder = l.decoder(p)
	for i := range m.Layers {
		m.Layers[i] = l.block(i, p, spec, rope, attn)
		m.Layers[i].Attn.NoPE = p.NoRoPE(i)
		m.Layers[i].Attn.RopeMScale = mscale
		if fl.gptOSS {
			l.gptOSSBlock(i, p, &m.Layers[i], localRope, localMScale)
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

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *Llama) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	b, n, pos0, dim := m.b, in.Len(), s.n, m.p.Dim
	x, xb, xb2 := s.x[:n*dim], s.xb[:n*dim], s.xb2[:n*dim]
	// token embeddings (× Granite's embedding multiplier, which llama.cpp
	// build_inp_embd applies to input embeddings too)
	embedInput(b, m.TokEmbd, in, x, 1)
	if m.embedScale != 1 {
		b.Scale(x, m.embedScale)
	}
	s.traced("token_embd", -1, x, dim, pos0)
	for i := range m.Layers {
		ly := &m.Layers[i]
		// attention rmsnorm
		ly.AttnNorm.Forward(b, xb, x)
		// self-attention over the cache (q/k/v, rope, store k/v, attend, output projection)
		ly.Attn.Forward(b, s, i, xb2, xb, pos0, n)
		// residual (× Granite's residual multiplier)
		addScaled(b, x, xb2, m.residualScale)
		s.traced("attention", i, x, dim, pos0)
		// ffn rmsnorm
		ly.FFNNorm.Forward(b, xb, x)
		if ly.MoE != nil {
			// routed SwiGLU experts
			ly.MoE.Forward(b, s, xb2, xb, n)
		} else {
			// SwiGLU MLP: down(silu(gate(x)) * up(x))
			ly.FFN.Forward(b, s, xb2, xb, n)
		}
		// residual (× Granite's residual multiplier)
		addScaled(b, x, xb2, m.residualScale)
		s.traced("feed-forward", i, x, dim, pos0)
	}
	s.advance(n)
	if logits != nil {
		// final rmsnorm and classifier, last token only (÷ Granite's logit scale)
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
		if m.logitScale != 1 {
			b.Scale(logits[:m.p.VocabSize], m.logitScale)
		}
	}
}
