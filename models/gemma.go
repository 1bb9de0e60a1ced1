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
// and its load_arch_hparams: when the file gives attention.sliding_window,
// every sixth layer is global (il % 6 == 5) unless
// attention.sliding_window_pattern says otherwise, local layers use RoPE
// base rope.freq_base_swa (10000) and no position scaling (with YaRN, only
// its attn_factor), queries are scaled by 1/√key_length (1/√(Dim/NHeads)
// for the 62-layer 27B model) and the logits are soft-capped only when the
// file gives final_logit_softcapping. The GGUF converter already stored
// Gemma's norm weights as 1+w.
type Gemma3 struct {
	decoder
	finalCap float32 // final_logit_softcapping, which llama.cpp reads for gemma3 too; 0 for none
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
	// local layers: base rope.freq_base_swa, no position scaling
	// (llama.cpp's rope_freq_scale_train_swa stays 1 for gemma3)
	globalRope, globalMScale := l.rope(p, nil, true)
	localRope, localMScale := l.ropeAt(p, p.RopeBaseSWA, false, nil, true)
	if l.err != nil {
		return nil, l.err
	}
	scale := invSqrt(p.HeadDim)
	if p.NLayers == 62 { // 27B: query_pre_attn_scalar = Dim/NHeads
		scale = invSqrt(p.Dim / p.NHeads)
	}
	spec := gemmaBlock
	spec.qkNorm = qkPerHead

	m := &Gemma3{decoder: l.decoder(p), finalCap: p.FinalSoftcap}
	for i := range m.Layers {
		attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: scale}
		rope, mscale := globalRope, globalMScale
		if p.IsLocal(i) {
			attn.Window = p.Window
			rope, mscale = localRope, localMScale
		}
		m.Layers[i] = l.block(i, p, spec, rope, attn)
		m.Layers[i].Attn.RopeMScale = mscale
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
	m.forwardGemma(s, in, logits, m.finalCap)
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
		b.Add(x, xb2)
		s.traced("attention", i, x, dim, pos0)
		// ffn rmsnorm
		ly.FFNNorm.Forward(b, xb, x)
		// GeGLU MLP: down(gelu(gate(x)) * up(x))
		ly.FFN.Forward(b, s, xb2, xb, n)
		// post-ffn rmsnorm, residual
		ly.PostFFNNorm.Forward(b, xb2, xb2)
		b.Add(x, xb2)
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
