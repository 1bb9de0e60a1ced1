package models

// hybrid_shim.go stands in for the state API of the lead's contract
// (Input, LayerCache, Cacher, State.KV/Conv/Recurrent/Buffer) until st17's
// `state-api:` commit is on main; lfm2.go and qwen35.go are written
// against the contract. DELETE THIS FILE when merging main: the
// architectures then use the real accessors (and their forward methods
// become Forward).

import (
	"sync"

	"github.com/litert-go/litert-go/native"
)

// Input is one Forward call's batch (contract).
type Input struct {
	Tokens     []int32
	Embeddings []float32
}

// Tokens makes an Input of token ids (contract).
func Tokens(ids []int32) Input { return Input{Tokens: ids} }

// Len is the number of rows of the batch (contract).
func (in Input) Len() int { return len(in.Tokens) }

// LayerCache declares what one layer carries from token to token
// (contract).
type LayerCache struct {
	KVWidth   int
	KeyWidth  int
	SharedKV  int
	Conv      int
	Recurrent int
}

// Cacher is implemented by architectures whose layers are not all plain
// KV layers (contract).
type Cacher interface{ Caches() []LayerCache }

// shimState is the conv, recurrent and scratch storage of one State.
type shimState struct {
	conv, rec [][]float32
	buf       map[int][]float32
}

// shimStates maps each State to its shim storage (temporary: the real
// State holds it).
var shimStates sync.Map // *State → *shimState

// shimBind allocates s's conv and recurrent states for m on first use.
func shimBind(s *State, m Cacher) {
	if _, ok := shimStates.Load(s); ok {
		return
	}
	cs := m.Caches()
	st := &shimState{conv: make([][]float32, len(cs)), rec: make([][]float32, len(cs)), buf: map[int][]float32{}}
	for i, c := range cs {
		st.conv[i], st.rec[i] = make([]float32, c.Conv), make([]float32, c.Recurrent)
	}
	shimStates.Store(s, st)
}

func shim(s *State) *shimState {
	v, _ := shimStates.Load(s)
	return v.(*shimState)
}

// KV is the cache layer reads and writes (contract).
func (s *State) KV(layer int) *native.KVCache { return s.kv[layer] }

// Conv is layer's convolution state (contract).
func (s *State) Conv(layer int) []float32 { return shim(s).conv[layer] }

// Recurrent is layer's recurrent state (contract).
func (s *State) Recurrent(layer int) []float32 { return shim(s).rec[layer] }

// Buffer is the arch-local scratch buffer id of at least n elements
// (contract).
func (s *State) Buffer(id, n int) []float32 {
	st := shim(s)
	if b := st.buf[id]; len(b) >= n {
		return b[:n]
	}
	st.buf[id] = make([]float32, n)
	return st.buf[id]
}

// Forward adapts the contract's forward pass to today's Model interface.
func (m *LFM2) Forward(s *State, tokens []int32, logits []float32) {
	shimBind(s, m)
	m.forward(s, Tokens(tokens), logits)
}

// Forward adapts the contract's forward pass to today's Model interface.
func (m *Qwen35) Forward(s *State, tokens []int32, logits []float32) {
	shimBind(s, m)
	m.forward(s, Tokens(tokens), logits)
}
