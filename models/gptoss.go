package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// gpt-oss (gpt-oss-20b, gpt-oss-120b; openai-moe in llama.cpp's sources)
// is the llama block with NeoX RoPE (usually YaRN-scaled) and these
// differences, after llama.cpp src/models/openai-moe.cpp:
//
//   - biases on the q, k, v and output projections (attn_output.bias
//     required), on the router (ffn_gate_inp.bias [NExperts]) and on the
//     experts (ffn_{gate,up}_exps.bias [NExperts][ExpertHiddenDim],
//     ffn_down_exps.bias [NExperts][Dim]);
//   - attention sinks: a learned logit per query head
//     (attn_sinks.weight [NHeads]) in each softmax's denominator;
//   - sliding-window attention (attention.sliding_window) in the even
//     layers, global attention in the odd ones, each kind with its RoPE
//     base (rope.freq_base_swa, default rope.freq_base) and the same
//     scaling;
//   - post_attention_norm.weight is the norm before the experts (there is
//     no ffn_norm);
//   - the experts' weights are the softmax of the chosen experts' router
//     scores, and their gate is SwiGLUClamp.
//
// Its weights ship as MXFP4, which loads where the backend multiplies it.

func init() {
	Register("gpt-oss", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "gpt-oss", llamaFlavor{neox: true, moe: true, gptOSS: true})
	})
}

// gptOSS checks gpt-oss's tensors outside the blocks and returns its block
// spec.
func (l *loader) gptOSS(spec blockSpec) blockSpec {
	if !l.has("output.weight") {
		l.fail("required tensor %q is missing", "output.weight")
	}
	spec.preNorms = false // attn_norm and post_attention_norm: gptOSSBlock
	spec.act = SwiGLUClamp
	spec.softmaxChosen = true
	return spec
}

// gptOSSBlock loads block i's tensors that loader.block does not: the
// norms, the sinks and the required output bias, and sets its window and,
// for a local layer, its RoPE (base rope.freq_base_swa).
func (l *loader) gptOSSBlock(i int, p Params, ly *Block, localRope native.RoPE, localMScale float32) {
	blk := blockName(i)
	ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
	ly.FFNNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps)
	ly.Attn.Attn.Sinks = l.vector(blk+"attn_sinks.weight", p.NHeads)
	if ly.Attn.O.B == nil {
		l.fail("required tensor %q is missing", blk+"attn_output.bias")
	}
	if p.IsLocal(i) {
		ly.Attn.Attn.Window = p.Window
		ly.Attn.Rope, ly.Attn.RopeMScale = localRope, localMScale
	}
}
