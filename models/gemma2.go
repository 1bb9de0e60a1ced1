package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Gemma2 is Google's Gemma 2: the Gemma 3 block without q/k norms, with
// the attention scores soft-capped at gemma2.attn_logit_softcapping (50)
// and the logits at gemma2.final_logit_softcapping (30), every other layer
// local (layers 0, 2, 4, … see the last attention.sliding_window
// positions, 4096 by default) and one RoPE base for all layers.
//
// It follows llama.cpp src/models/gemma2.cpp: queries scaled by
// 1/√key_length (1/√(Dim/NHeads) for the 46-layer 27B model) before the
// capped q·k, the output projection always token_embd (output.weight, if
// present, is ignored), and rope.freq_base_swa for local layers when set.
type Gemma2 struct {
	decoder
	finalCap float32 // final_logit_softcapping; 0 for none
}

func init() { Register("gemma2", loadGemma2) }

// loadGemma2 reads hyper-parameters and the tensors of gemmaBlock.
func loadGemma2(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "gemma2"}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	// local layers: base rope.freq_base_swa (default rope.freq_base) with
	// the same position scaling (llama.cpp's rope_freq_scale_train_swa)
	globalRope, globalMScale := l.rope(p, nil, true)
	localRope, localMScale := l.ropeAt(p, p.RopeBaseSWA, true, nil, true)
	if l.err != nil {
		return nil, l.err
	}
	scale := invSqrt(p.HeadDim)
	if p.NLayers == 46 { // 27B: query_pre_attn_scalar = Dim/NHeads
		scale = invSqrt(p.Dim / p.NHeads)
	}

	m := &Gemma2{finalCap: p.FinalSoftcap}
	m.decoder = l.decoder(p)
	// gemma2.cpp always multiplies by token_embd.
	m.Output = Linear{W: m.TokEmbd}
	for i := range m.Layers {
		attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: scale, SoftCap: p.AttnSoftcap}
		rope, mscale := globalRope, globalMScale
		if p.IsLocal(i) {
			attn.Window = p.Window
			rope, mscale = localRope, localMScale
		}
		m.Layers[i] = l.block(i, p, gemmaBlock, rope, attn)
		m.Layers[i].Attn.RopeMScale = mscale
		if l.err != nil {
			return nil, l.err
		}
	}
	return m, nil
}

// Forward runs a batch of tokens through the model (see Model.Forward).
func (m *Gemma2) Forward(s *State, in Input, logits []float32) {
	m.forwardGemma(s, in, logits, m.finalCap)
}
