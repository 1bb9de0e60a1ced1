package models

// This file is the part of the state-api contract (issue #17) that gemma3n
// and gemma4 need before it lands: it is deleted when main carries it.

import "github.com/litert-go/litert-go/native"

// LayerCache declares what one layer carries from token to token.
type LayerCache struct {
	KVWidth   int // elements of one position's keys (= values); 0: no own KV cache
	KeyWidth  int // if keys and values differ in width, else 0
	SharedKV  int // ≥ 0: this layer reads layer SharedKV's cache and writes none; -1: none
	Conv      int
	Recurrent int
}

// Cacher is implemented by architectures whose layers are not all plain KV
// layers of NKVHeads*HeadDim.
type Cacher interface{ Caches() []LayerCache }

// KV is the cache layer reads and writes.
func (s *State) KV(layer int) *native.KVCache { return s.kv[layer] }

// Buffer is scratch buffer id of at least n elements.
func (s *State) Buffer(id, n int) []float32 { return make([]float32, n) }
