// Package models holds the transformer architectures litert-go runs: one
// file per architecture (llama.go, qwen.go, smollm3.go, granite.go,
// phi3.go, gemma.go, gemma2.go, olmo2.go for olmo2 and exaone4,
// qwen3moe.go) on the
// shared layer vocabulary of layers.go, where blockSpec lists a block's
// tensors and loader.block loads them, and a registry keyed by the GGUF
// key general.architecture. Weights stay in the memory-mapped file in their
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
	// Forward runs tokens at positions s.Len(), s.Len()+1, … through the
	// model, appends their keys and values to s and, if logits is not nil,
	// writes the VocabSize logits of the last token into it. The caller
	// guarantees len(tokens) ≤ s.MaxBatch(), room in the cache and token
	// ids below VocabSize; Forward panics otherwise. ForwardChecked adds
	// a check that the logits are finite.
	Forward(s *State, tokens []int32, logits []float32)
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
// by general.architecture.
func Load(f *gguf.File, b native.Backend) (Model, error) {
	arch, err := f.Architecture()
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	load, ok := registry[arch]
	if !ok {
		return nil, &UnsupportedError{Arch: arch}
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
