package models

import (
	"fmt"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// State is the mutable part of running a model: the KV cache of every
// layer and the activation buffers of one batch. Each session owns one;
// a State is not safe for concurrent use, but many States may share a
// Model.
type State struct {
	p        Params
	n        int // positions filled in the cache
	ctxLen   int
	maxBatch int
	kv       []*native.KVCache // per layer
	trace    *NonFiniteError   // set while ForwardChecked looks for a non-finite stage

	// Activations of up to maxBatch tokens, rows back to back:
	x   []float32 // residual stream [n][Dim]
	xb  []float32 // normed input of a block [n][Dim]
	xb2 []float32 // block output before the residual add [n][Dim]
	q   []float32 // queries [n][NHeads*HeadDim]
	k   []float32 // keys [n][NKVHeads*HeadDim]
	v   []float32 // values [n][NKVHeads*HeadDim]
	att []float32 // attention output [n][NHeads*HeadDim]
	hb  []float32 // FFN hidden (gate) [n][HiddenDim]
	hb2 []float32 // FFN hidden (up) [n][HiddenDim]

	// Mixture of experts (nil for dense models):
	route  []float32 // router probabilities [n][NExperts]
	picked []int32   // experts chosen by each token [n][NExpertsUsed]
	weight []float32 // their gate weights [n][NExpertsUsed]
	order  []int32   // token·NExpertsUsed+slot, grouped by expert [n·NExpertsUsed]
	xe     []float32 // rows routed to one expert [n][Dim]
	ye     []float32 // that expert's output [n][Dim]
}

// NewState allocates a cache of ctxLen positions of type kvType (ggml.F32
// or ggml.F16) and buffers for batches of up to maxBatch tokens.
func NewState(p Params, ctxLen, maxBatch int, kvType ggml.DType) (*State, error) {
	if ctxLen <= 0 || maxBatch <= 0 {
		return nil, fmt.Errorf("models: state of %d positions in batches of %d", ctxLen, maxBatch)
	}
	maxBatch = min(maxBatch, ctxLen)
	s := &State{p: p, ctxLen: ctxLen, maxBatch: maxBatch, kv: make([]*native.KVCache, p.NLayers)}
	for i := range s.kv {
		c, err := native.NewKVCache(kvType, ctxLen, p.NKVHeads*p.HeadDim)
		if err != nil {
			return nil, fmt.Errorf("models: layer %d: %w", i, err)
		}
		s.kv[i] = c
	}
	qw, kw := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	s.x = make([]float32, maxBatch*p.Dim)
	s.xb = make([]float32, maxBatch*p.Dim)
	s.xb2 = make([]float32, maxBatch*p.Dim)
	s.q = make([]float32, maxBatch*qw)
	s.k = make([]float32, maxBatch*kw)
	s.v = make([]float32, maxBatch*kw)
	s.att = make([]float32, maxBatch*qw)
	hidden := max(p.HiddenDim, p.ExpertHiddenDim)
	s.hb = make([]float32, maxBatch*hidden)
	s.hb2 = make([]float32, maxBatch*hidden)
	if p.NExperts > 0 {
		s.route = make([]float32, maxBatch*p.NExperts)
		s.picked = make([]int32, maxBatch*p.NExpertsUsed)
		s.weight = make([]float32, maxBatch*p.NExpertsUsed)
		s.order = make([]int32, maxBatch*p.NExpertsUsed)
		s.xe = make([]float32, maxBatch*p.Dim)
		s.ye = make([]float32, maxBatch*p.Dim)
	}
	return s, nil
}

// Len is the number of positions in the cache.
func (s *State) Len() int { return s.n }

// Cap is the context length: the most positions the cache holds.
func (s *State) Cap() int { return s.ctxLen }

// MaxBatch is the most tokens one Forward call takes.
func (s *State) MaxBatch() int { return s.maxBatch }

// KVType is the element type of the cache.
func (s *State) KVType() ggml.DType { return s.kv[0].Type() }

// Bytes is the memory the cache takes.
func (s *State) Bytes() int {
	n := 0
	for _, c := range s.kv {
		n += c.Bytes()
	}
	return n
}

// Truncate drops the cached positions from n on; the next Forward writes
// position n.
func (s *State) Truncate(n int) error {
	if n < 0 || n > s.n {
		return fmt.Errorf("models: truncate to %d positions, have %d", n, s.n)
	}
	s.n = n
	return nil
}

// Clone returns an independent State with a copy of the cached positions.
func (s *State) Clone() (*State, error) {
	c, err := NewState(s.p, s.ctxLen, s.maxBatch, s.KVType())
	if err != nil {
		return nil, err
	}
	for i, kv := range s.kv {
		c.kv[i].CopyFrom(kv, s.n)
	}
	c.n = s.n
	return c, nil
}

// begin checks the invariants of a Forward call of n tokens.
func (s *State) begin(p Params, tokens []int32) {
	if len(tokens) == 0 || len(tokens) > s.maxBatch || s.n+len(tokens) > s.ctxLen {
		panic(fmt.Sprintf("models: Forward of %d tokens at %d (batch ≤ %d, context %d)", len(tokens), s.n, s.maxBatch, s.ctxLen))
	}
	if p.Dim != s.p.Dim || p.NLayers != s.p.NLayers || p.HeadDim != s.p.HeadDim || p.NKVHeads != s.p.NKVHeads ||
		p.NExperts != s.p.NExperts || p.NExpertsUsed != s.p.NExpertsUsed || p.ExpertHiddenDim != s.p.ExpertHiddenDim {
		panic("models: State was made for a different model")
	}
	for i, t := range tokens {
		if t < 0 || int(t) >= p.VocabSize {
			panic(fmt.Sprintf("models: token %d at batch index %d is outside the vocabulary of %d", t, i, p.VocabSize))
		}
	}
}
