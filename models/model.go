// Package models holds the transformer architectures litert-go runs: one
// file per architecture (llama.go, qwen.go, smollm3.go, granite.go,
// phi3.go, gemma.go, gemma2.go, olmo2.go for olmo2 and exaone4,
// qwen3moe.go, gemma3n.go, gemma4.go with the layers they share in
// gemma3n_layers.go) on the
// shared layer vocabulary of layers.go, where blockSpec lists a block's
// tensors and loader.block loads them, and a registry keyed by the GGUF
// key general.architecture. Weights stay in the model file's memory in their
// stored type; the forward pass calls the coarse operations of a
// native.Backend.
package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Model is a loaded architecture: read-only weights and a forward pass. A
// Model is safe for concurrent use by many States.
type Model interface {
	// Params returns the hyper-parameters.
	Params() Params
	// Backend returns the backend the model was loaded for, which runs
	// its forward pass.
	Backend() native.Backend
	// Forward runs the rows of in at positions s.Len(), s.Len()+1, …
	// through the model, appends what each layer carries (keys and
	// values, convolution and recurrent states) to s and, if logits is
	// not nil, writes the VocabSize logits of the last row into it. The
	// caller guarantees in.Len() ≤ s.MaxBatch(), room in the cache and a
	// valid in (Input.Check); Forward panics otherwise. ForwardChecked
	// adds a check that the logits are finite.
	Forward(s *State, in Input, logits []float32)
}

// Input is one Forward call's batch: token ids, or rows of input
// embeddings (from a vision or audio encoder). Exactly one is set.
type Input struct {
	Tokens []int32 // token ids, each < VocabSize
	// Embeddings holds Len() rows of Dim elements, entering where the
	// token lookup's output would: after the lookup, before token-only
	// scaling such as Gemma's ×√Dim (llama.cpp build_inp_embd scales only
	// ubatch.token).
	Embeddings []float32
	// Dim is the width of one row of Embeddings: the model's Params.Dim.
	// Embeds sets it.
	Dim int
	// NonCausal makes every row of the call attend to every row of the
	// call (and the whole context before it) in every attention layer,
	// sliding windows still bounding the past: llama.cpp's causal_attn
	// false, which mtmd sets while it decodes a Gemma 3 image chunk
	// (mtmd_decode_use_non_causal). The whole chunk must then be one call.
	NonCausal bool
}

// Tokens returns the Input of token ids.
func Tokens(ids []int32) Input { return Input{Tokens: ids} }

// Embeds returns the Input of the rows of embeddings, each dim elements
// (the model's Params.Dim).
func Embeds(rows []float32, dim int) Input { return Input{Embeddings: rows, Dim: dim} }

// Len is the number of rows of in: its tokens or its embedding rows.
func (in Input) Len() int {
	if in.Tokens != nil || in.Dim <= 0 {
		return len(in.Tokens)
	}
	return len(in.Embeddings) / in.Dim
}

// Check reports whether in is a valid Input for a model of
// hyper-parameters p: exactly one of Tokens and Embeddings set and not
// empty, token ids below p.VocabSize, and whole embedding rows of p.Dim.
func (in Input) Check(p Params) error {
	switch {
	case in.Tokens != nil && in.Embeddings != nil:
		return fmt.Errorf("models: input of both %d tokens and %d embedding values", len(in.Tokens), len(in.Embeddings))
	case in.Tokens != nil:
		if len(in.Tokens) == 0 {
			return fmt.Errorf("models: input of no tokens")
		}
		for i, t := range in.Tokens {
			if t < 0 || int(t) >= p.VocabSize {
				return fmt.Errorf("models: token %d at batch index %d is outside the vocabulary of %d", t, i, p.VocabSize)
			}
		}
	case len(in.Embeddings) == 0:
		return fmt.Errorf("models: empty input: neither tokens nor embeddings")
	case in.Dim != p.Dim:
		return fmt.Errorf("models: input embeddings of rows of %d, the model's are %d", in.Dim, p.Dim)
	case len(in.Embeddings) == 0 || len(in.Embeddings)%p.Dim != 0:
		return fmt.Errorf("models: %d input embedding values are not whole rows of %d", len(in.Embeddings), p.Dim)
	}
	return nil
}

// LoadFunc builds a Model from an open GGUF file. The model may keep
// slices of the file's mapped data, so the file must outlive it.
type LoadFunc func(f *gguf.File, b native.Backend) (Model, error)

// registry maps general.architecture to a loader. It is written only by
// Register from init functions.
var registry = map[string]LoadFunc{}

// Register makes an architecture loadable under its general.architecture
// name. It is called from init; registering a name twice panics.
func Register(arch string, load LoadFunc) {
	if _, dup := registry[arch]; dup {
		panic("models: architecture " + arch + " registered twice")
	}
	registry[arch] = load
}

// Architectures lists the registered architectures, sorted.
func Architectures() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// UnsupportedError reports a file whose architecture has no loader.
type UnsupportedError struct {
	Arch string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("models: architecture %q is not supported (supported: %s)", e.Arch, strings.Join(Architectures(), ", "))
}

// Load builds the model described by f for backend b, choosing the loader
// by general.architecture. Where f is Private and b an Interleaver, the
// weights b multiplies faster interleaved are rewritten so in f's memory,
// and f cannot be loaded again.
func Load(f *gguf.File, b native.Backend) (Model, error) {
	arch, err := f.Architecture()
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	load, ok := registry[arch]
	if !ok {
		return nil, &UnsupportedError{Arch: arch}
	}
	if f.Rewritten() {
		return nil, fmt.Errorf("models: %s: the file's weights were rewritten in place by an earlier load (interleaved for its backend); open the file again", arch)
	}
	if len(f.Tensors) == 0 {
		return nil, fmt.Errorf("models: %s: the file has no tensors: it is a vocabulary-only GGUF, usable for tokenize, detokenize, info and template render but not for running the model", arch)
	}
	m, err := load(f, b)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", arch, err)
	}
	return m, nil
}
