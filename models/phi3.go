package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Phi-3 (Phi-3/3.5-mini, Phi-4-mini) is the llama block with NeoX RoPE, a
// fused attn_qkv projection and a fused ffn_up holding the gate rows, then
// the up rows ([2·HiddenDim][Dim], no ffn_gate), and LongRoPE: per-pair
// frequency divisors rope_factors_short.weight for contexts up to
// rope.scaling.original_context_length and rope_factors_long.weight beyond,
// and rope.scaling.attn_factor multiplying the rotated elements.
//
// It follows llama.cpp src/models/phi3.cpp, which chooses the factors by
// the context size (here State.Cap, as llama.cpp's n_ctx), and which
// ignores attention.sliding_window ("Phi SWA is currently disabled"), as
// we do, so the two run the same files the same way.
func init() {
	Register("phi3", loadPhi3)
}

// loadPhi3 reads hyper-parameters and tensors: token_embd, output_norm,
// output (tied when absent), the optional rope_factors_{short,long} and the
// blocks' attn_norm, attn_qkv (or attn_q/k/v), attn_output, ffn_norm,
// ffn_up and ffn_down.
func loadPhi3(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "phi3"}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	var short, long []float32
	if l.has("rope_factors_short.weight") {
		short = l.vector("rope_factors_short.weight", p.RopeDim/2)
	}
	if l.has("rope_factors_long.weight") {
		long = l.vector("rope_factors_long.weight", p.RopeDim/2)
	}
	if l.err != nil {
		return nil, l.err
	}
	rope, mscale := l.rope(p, short, true)
	attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: invSqrt(p.HeadDim)}
	var longRope native.RoPE
	if long != nil {
		longRope, _ = l.rope(p, long, true)
	}
	spec := blockSpec{preNorms: true, act: SiLU, gateUp: true}
	m := &Llama{embedScale: 1, residualScale: 1, logitScale: 1}
	m.decoder = l.decoder(p)
	for i := range m.Layers {
		m.Layers[i] = l.block(i, p, spec, rope, attn)
		a := &m.Layers[i].Attn
		a.RopeMScale = mscale
		if long != nil {
			a.LongRope, a.LongAfter = longRope, p.RopeOrigCtx
		}
		if l.err != nil {
			return nil, l.err
		}
	}
	return m, nil
}
