package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Granite (IBM Granite 3.x dense) is the llama block with four
// multipliers, as llama.cpp src/models/granite.cpp applies them: the token
// embeddings × granite.embedding_scale, the attention scores ×
// granite.attention.scale instead of 1/√HeadDim, each block output ×
// granite.residual_scale before its residual add, and the logits ÷
// granite.logit_scale. The MLP may carry biases (ffn_{gate,up,down}.bias),
// loaded when present.
func init() {
	Register("granite", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "granite", llamaFlavor{granite: true})
	})
}
