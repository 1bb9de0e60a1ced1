package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B) is the Qwen3 block whose MLP
// is a mixture of SwiGLU experts: per block a router
// (blk.N.ffn_gate_inp.weight [NExperts][Dim]) and the experts' matrices
// stacked in 3-D tensors (blk.N.ffn_{gate,up}_exps.weight
// [NExperts][ExpertHiddenDim][Dim], ffn_down_exps.weight
// [NExperts][Dim][ExpertHiddenDim]). Each token runs the expert_used_count
// experts of highest softmax probability, weighted by those probabilities
// renormalized to sum to one. See llama.cpp src/models/qwen3moe.cpp and
// build_moe_ffn in src/llama-graph.cpp; MoE in layers.go runs the experts.

func init() {
	Register("qwen3moe", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "qwen3moe", llamaFlavor{neox: true, qkNorm: true, moe: true})
	})
}
