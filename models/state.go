package models

import (
	"fmt"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// LayerCache declares what one layer carries from token to token.
type LayerCache struct {
	KVWidth  int // elements of one position's keys (= values) for this layer; 0: no own KV cache
	KeyWidth int // if keys and values differ in width (rare), else 0 = KVWidth
	// SharedKV ≥ 0: this layer reads layer SharedKV's cache and writes
	// none (Gemma 3n, Gemma 4); -1: none.
	SharedKV  int
	Conv      int // float32 elements of a convolution state (LFM2 short conv, Qwen3.5's conv before DeltaNet); 0: none
	Recurrent int // float32 elements of a recurrent state (Qwen3.5's DeltaNet S matrices); 0: none
}

// Cacher is implemented by an architecture whose layers are not all plain
// KV layers of NKVHeads*HeadDim elements; NewState asks it what each
// layer carries. Other architectures get DefaultCaches.
type Cacher interface {
	Caches() []LayerCache
}

// DefaultCaches is the layout of a plain transformer: every layer has its
// own KV cache of NKVHeads*HeadDim elements per position.
func DefaultCaches(p Params) []LayerCache {
	cs := make([]LayerCache, p.NLayers)
	for i := range cs {
		cs[i] = LayerCache{KVWidth: p.NKVHeads * p.HeadDim, SharedKV: -1}
	}
	return cs
}

// Checkpoint defaults: see State.CheckpointEvery and State.MaxCheckpoints.
const (
	DefaultCheckpointEvery = 256
	DefaultMaxCheckpoints  = 8
)

// State is the mutable part of running a model: the KV cache of every
// layer, the convolution and recurrent states of layers that have them,
// their checkpoints, and the activation buffers of one batch. Each session
// owns one; a State is not safe for concurrent use, but many States may
// share a Model.
//
// A KV cache can be cut at any position; a convolution or recurrent state
// cannot, so the State keeps copies of it (checkpoints) at positions the
// caller marks with Checkpoint and every CheckpointEvery positions, and
// Truncate restores the newest one at or before the position asked for.
type State struct {
	// CheckpointEvery is how often, in positions, a Forward call that
	// passes it takes a checkpoint of the convolution and recurrent
	// states (0: only at Checkpoint). NewState sets
	// DefaultCheckpointEvery. It does not matter for models without such
	// state.
	CheckpointEvery int
	// MaxCheckpoints bounds the checkpoints kept: when a new one exceeds
	// it, the oldest is dropped (position 0, the zero state, needs none).
	// NewState sets DefaultMaxCheckpoints.
	MaxCheckpoints int

	b        native.Backend // allocates everything below
	p        Params
	caches   []LayerCache
	n        int // positions filled in the cache
	ctxLen   int
	maxBatch int
	kvType   ggml.DType
	kv       []*native.KVCache // per layer; nil for a layer without its own cache
	conv     [][]float32       // per layer; nil for a layer without one
	rec      [][]float32       // per layer; nil for a layer without one
	stateful bool              // some layer has a conv or recurrent state
	ckpts    []checkpoint      // oldest first, positions increasing
	spare    []checkpoint      // dropped by Truncate, for reuse
	bufs     map[int][]float32 // Buffer's arch-local scratch
	trace    *NonFiniteError   // set while ForwardChecked looks for a non-finite stage
	nonCaus  bool              // the current Forward call's Input is NonCausal

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

	products [4]native.Product // forwardShared's MatMuls arguments

	// Mixture of experts (nil for dense models):
	route  []float32 // router probabilities [n][NExperts]
	picked []int32   // experts chosen by each token [n][NExpertsUsed]
	weight []float32 // their gate weights [n][NExpertsUsed]
	order  []int32   // token·NExpertsUsed+slot, grouped by expert [n·NExpertsUsed]
	groups []int     // rows routed to each expert in one grouped product [NExperts]
	xe     []float32 // rows routed to one expert [n][Dim]
	ye     []float32 // that expert's output [n][Dim]
}

// checkpoint is the convolution and recurrent states after pos positions.
type checkpoint struct {
	pos       int
	conv, rec [][]float32 // per layer, as State.conv and State.rec
}

// NewState allocates, for model m, a cache of ctxLen positions of type
// kvType (one of native.KVTypes) laid out as m's Caches say (DefaultCaches
// if m is not a Cacher), and buffers for batches of up to maxBatch tokens,
// all of it through m's backend (Backend.NewKVCache and Backend.Alloc).
func NewState(m Model, ctxLen, maxBatch int, kvType ggml.DType) (*State, error) {
	p := m.Params()
	caches := DefaultCaches(p)
	if c, ok := m.(Cacher); ok {
		caches = c.Caches()
	}
	if m.Backend() == nil {
		return nil, fmt.Errorf("models: %s model has no backend to allocate its state", p.Arch)
	}
	return newState(m.Backend(), p, caches, ctxLen, maxBatch, kvType)
}

func newState(b native.Backend, p Params, caches []LayerCache, ctxLen, maxBatch int, kvType ggml.DType) (*State, error) {
	if ctxLen <= 0 || maxBatch <= 0 {
		return nil, fmt.Errorf("models: state of %d positions in batches of %d", ctxLen, maxBatch)
	}
	if len(caches) != p.NLayers {
		return nil, fmt.Errorf("models: %d layer caches for %d layers", len(caches), p.NLayers)
	}
	if err := native.CheckKVType(kvType, p.HeadDim); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	maxBatch = min(maxBatch, ctxLen)
	s := &State{
		CheckpointEvery: DefaultCheckpointEvery, MaxCheckpoints: DefaultMaxCheckpoints,
		b: b, p: p, caches: caches, ctxLen: ctxLen, maxBatch: maxBatch, kvType: kvType,
		kv: make([]*native.KVCache, p.NLayers), conv: make([][]float32, p.NLayers), rec: make([][]float32, p.NLayers),
	}
	for i, lc := range caches {
		switch {
		case lc.KVWidth < 0 || lc.KeyWidth < 0 || lc.Conv < 0 || lc.Recurrent < 0:
			return nil, fmt.Errorf("models: layer %d: negative cache size %+v", i, lc)
		case lc.KeyWidth != 0 && lc.KeyWidth != lc.KVWidth:
			return nil, fmt.Errorf("models: layer %d: keys of %d and values of %d elements: different widths are not supported", i, lc.KeyWidth, lc.KVWidth)
		case lc.SharedKV >= 0 && (lc.SharedKV >= p.NLayers || caches[lc.SharedKV].KVWidth == 0 || caches[lc.SharedKV].SharedKV >= 0):
			return nil, fmt.Errorf("models: layer %d shares the KV cache of layer %d, which has none of its own", i, lc.SharedKV)
		case lc.SharedKV >= 0 && lc.KVWidth != 0:
			return nil, fmt.Errorf("models: layer %d both shares layer %d's KV cache and has its own", i, lc.SharedKV)
		}
		if lc.KVWidth > 0 {
			c, err := b.NewKVCache(kvType, ctxLen, lc.KVWidth)
			if err != nil {
				return nil, fmt.Errorf("models: layer %d: %w", i, err)
			}
			s.kv[i] = c
		}
		if lc.Conv > 0 {
			s.conv[i] = b.Alloc(lc.Conv)
			s.stateful = true
		}
		if lc.Recurrent > 0 {
			s.rec[i] = b.Alloc(lc.Recurrent)
			s.stateful = true
		}
	}
	qw, kw := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	s.x = b.Alloc(maxBatch * p.Dim)
	s.xb = b.Alloc(maxBatch * p.Dim)
	s.xb2 = b.Alloc(maxBatch * p.Dim)
	s.q = b.Alloc(maxBatch * qw)
	s.k = b.Alloc(maxBatch * kw)
	s.v = b.Alloc(maxBatch * kw)
	s.att = b.Alloc(maxBatch * qw)
	// A mixture of experts routes NExpertsUsed rows per token: the expert
	// buffers hold all of a batch's, so MoE.Forward makes one grouped
	// product per projection (maxBatch·NExpertsUsed rows of Dim and of
	// ExpertHiddenDim; about 30 MB more for Qwen3-30B-A3B at a batch of 256).
	hidden := maxBatch * max(p.HiddenDim, p.ExpertHiddenDim)
	routed := maxBatch * p.NExpertsUsed
	s.hb = b.Alloc(max(hidden, routed*p.ExpertHiddenDim))
	s.hb2 = b.Alloc(max(hidden, routed*p.ExpertHiddenDim))
	if p.NExperts > 0 {
		s.route = b.Alloc(maxBatch * p.NExperts)
		s.picked = make([]int32, routed)
		s.weight = b.Alloc(routed)
		s.order = make([]int32, routed)
		s.groups = make([]int, p.NExperts)
		s.xe = b.Alloc(routed * p.Dim)
		s.ye = b.Alloc(routed * p.Dim)
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
func (s *State) KVType() ggml.DType { return s.kvType }

// Bytes is the memory the cache, the convolution and recurrent states and
// their checkpoints take (those kept and those dropped whose memory waits
// for reuse).
func (s *State) Bytes() int {
	n := 0
	for _, c := range s.kv {
		if c != nil {
			n += c.Bytes()
		}
	}
	n += (1 + len(s.ckpts) + len(s.spare)) * s.CheckpointBytes()
	return n
}

// CheckpointBytes is the memory one checkpoint takes: the convolution and
// recurrent states of every layer (0 for a model without them).
func (s *State) CheckpointBytes() int {
	n := 0
	for i := range s.conv {
		n += 4 * (len(s.conv[i]) + len(s.rec[i]))
	}
	return n
}

// KV returns the KV cache layer reads and writes: its own, or, for a layer
// that shares one, that of the layer it shares (nil for a layer without).
func (s *State) KV(layer int) *native.KVCache {
	if sh := s.caches[layer].SharedKV; sh >= 0 {
		return s.kv[sh]
	}
	return s.kv[layer]
}

// Conv returns layer's convolution state, LayerCache.Conv elements, zero
// at position 0. The forward pass updates it in place.
func (s *State) Conv(layer int) []float32 { return s.conv[layer] }

// Recurrent returns layer's recurrent state, LayerCache.Recurrent
// elements, zero at position 0. The forward pass updates it in place.
func (s *State) Recurrent(layer int) []float32 { return s.rec[layer] }

// Buffer returns n elements of the architecture's scratch buffer id (a
// small constant of the architecture file; ids from 100 on are free for
// architectures). The buffer is allocated on first use, grown when a
// larger n is asked for, and reused across calls; its contents are not
// kept for the caller between Forward calls.
func (s *State) Buffer(id, n int) []float32 {
	if s.bufs == nil {
		s.bufs = map[int][]float32{}
	}
	buf := s.bufs[id]
	if len(buf) < n {
		buf = s.b.Alloc(n)
		s.bufs[id] = buf
	}
	return buf[:n]
}

// Checkpoint records the convolution and recurrent states at the current
// position, so that a Truncate to this position or later restores them
// without re-running the tokens before it. It does nothing for models
// without such state, at position 0 or where a checkpoint already is.
func (s *State) Checkpoint() {
	if !s.stateful || s.n == 0 || (len(s.ckpts) > 0 && s.ckpts[len(s.ckpts)-1].pos == s.n) {
		return
	}
	for len(s.ckpts) >= max(s.MaxCheckpoints, 1) {
		// drop the oldest, keeping its memory for reuse
		s.spare = append(s.spare, s.ckpts[0])
		s.ckpts = append(s.ckpts[:0], s.ckpts[1:]...)
	}
	var c checkpoint
	if k := len(s.spare); k > 0 {
		c, s.spare = s.spare[k-1], s.spare[:k-1]
	} else {
		c = s.newCheckpoint()
	}
	c.pos = s.n
	for i := range s.conv {
		copy(c.conv[i], s.conv[i])
		copy(c.rec[i], s.rec[i])
	}
	s.ckpts = append(s.ckpts, c)
}

// Checkpoints returns the positions of the checkpoints kept, oldest first.
func (s *State) Checkpoints() []int {
	ps := make([]int, len(s.ckpts))
	for i, c := range s.ckpts {
		ps[i] = c.pos
	}
	return ps
}

// newCheckpoint allocates a checkpoint of the State's layers.
func (s *State) newCheckpoint() checkpoint {
	c := checkpoint{conv: make([][]float32, len(s.conv)), rec: make([][]float32, len(s.rec))}
	for i := range s.conv {
		if s.conv[i] != nil {
			c.conv[i] = s.b.Alloc(len(s.conv[i]))
		}
		if s.rec[i] != nil {
			c.rec[i] = s.b.Alloc(len(s.rec[i]))
		}
	}
	return c
}

// Truncate drops the cached positions from n on and returns the position
// the State resumes at: n for a model whose layers carry only KV caches;
// for one with convolution or recurrent state, the position of the newest
// checkpoint at or before n (0 if none), whose states it restores (unless
// n is the current length). The caller then runs its tokens from resume to
// n again. Checkpoints after resume are dropped.
func (s *State) Truncate(n int) (resume int, err error) {
	if n < 0 || n > s.n {
		return s.n, fmt.Errorf("models: truncate to %d positions, have %d", n, s.n)
	}
	if !s.stateful || n == s.n {
		s.n = n
		return n, nil
	}
	s.restore(n)
	return s.n, nil
}

// restore sets the convolution and recurrent states to those of the
// newest checkpoint at or before n, and the length to its position.
func (s *State) restore(n int) {
	k := len(s.ckpts)
	for k > 0 && s.ckpts[k-1].pos > n {
		k--
	}
	s.spare = append(s.spare, s.ckpts[k:]...)
	s.ckpts = s.ckpts[:k]
	if k == 0 {
		for i := range s.conv {
			clear(s.conv[i])
			clear(s.rec[i])
		}
		s.n = 0
		return
	}
	c := s.ckpts[k-1]
	for i := range s.conv {
		copy(s.conv[i], c.conv[i])
		copy(s.rec[i], c.rec[i])
	}
	s.n = c.pos
}

// Clone returns an independent State with a copy of the cached positions,
// the convolution and recurrent states and the checkpoints.
func (s *State) Clone() (*State, error) {
	c, err := newState(s.b, s.p, s.caches, s.ctxLen, s.maxBatch, s.kvType)
	if err != nil {
		return nil, err
	}
	c.CheckpointEvery, c.MaxCheckpoints = s.CheckpointEvery, s.MaxCheckpoints
	for i, kv := range s.kv {
		if kv != nil {
			c.kv[i].CopyFrom(kv, s.n)
		}
		copy(c.conv[i], s.conv[i])
		copy(c.rec[i], s.rec[i])
	}
	for _, ck := range s.ckpts {
		cc := c.newCheckpoint()
		cc.pos = ck.pos
		for i := range ck.conv {
			copy(cc.conv[i], ck.conv[i])
			copy(cc.rec[i], ck.rec[i])
		}
		c.ckpts = append(c.ckpts, cc)
	}
	c.n = s.n
	return c, nil
}

// begin checks the invariants of a Forward call of in at the current
// position.
func (s *State) begin(p Params, in Input) {
	if err := in.Check(p); err != nil {
		panic(err.Error())
	}
	n := in.Len()
	if n > s.maxBatch || s.n+n > s.ctxLen {
		panic(fmt.Sprintf("models: Forward of %d rows at %d (batch ≤ %d, context %d)", n, s.n, s.maxBatch, s.ctxLen))
	}
	if p.Dim != s.p.Dim || p.NLayers != s.p.NLayers || p.HeadDim != s.p.HeadDim || p.NKVHeads != s.p.NKVHeads ||
		p.NExperts != s.p.NExperts || p.NExpertsUsed != s.p.NExpertsUsed || p.ExpertHiddenDim != s.p.ExpertHiddenDim {
		panic("models: State was made for a different model")
	}
	s.nonCaus = in.NonCausal
}

// attention is a for the current Forward call: non-causal if its Input is.
func (s *State) attention(a native.Attention) native.Attention {
	a.NonCausal = s.nonCaus
	return a
}

// advance ends a Forward call of n rows: the State now holds n more
// positions, and takes a checkpoint if the call passed a multiple of
// CheckpointEvery since the last one.
func (s *State) advance(n int) {
	s.n += n
	s.nonCaus = false
	if !s.stateful || s.CheckpointEvery <= 0 {
		return
	}
	last := 0
	if k := len(s.ckpts); k > 0 {
		last = s.ckpts[k-1].pos
	}
	if s.n/s.CheckpointEvery > last/s.CheckpointEvery {
		s.Checkpoint()
	}
}
