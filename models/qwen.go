package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Qwen2 and Qwen3 are the llama block with NeoX RoPE; Qwen2 adds biases to
// the q, k and v projections (attn_{q,k,v}.bias, loaded when present) and
// Qwen3 applies a per-head RMSNorm to q and k before RoPE
// (blk.N.attn_q_norm.weight, blk.N.attn_k_norm.weight [HeadDim]). See
// llama.cpp src/models/qwen2.cpp and qwen3.cpp.

func init() {
	Register("qwen2", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "qwen2", llamaFlavor{neox: true})
	})
	Register("qwen3", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "qwen3", llamaFlavor{neox: true, qkNorm: true})
	})
}
