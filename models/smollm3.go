package models

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// SmolLM3 is the llama block without RoPE in every fourth layer (NoPE:
// layers 3, 7, 11, …). llama.cpp src/models/smollm3.cpp fixes the interval
// at 4 (hparams.n_no_rope_layer_step) whatever the config's
// no_rope_layer_interval says, and so do we, to load the same files the
// same way (Params.NoRoPEInterval, a constant of the hparams table).
func init() {
	Register("smollm3", func(f *gguf.File, b native.Backend) (Model, error) {
		return loadLlama(f, b, "smollm3", llamaFlavor{})
	})
}
