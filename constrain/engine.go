package constrain

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// maxMaskBytes bounds the memory of the token masks cached per engine; when
// it is exceeded the mask cache is cleared.
const maxMaskBytes = 32 << 20

// maxSharedStates is the number of determinized states above which a
// shared cache is replaced by a fresh one for new matchers.
const maxSharedStates = 1 << 16

// sparseLimit is the largest number of allowed tokens stored as a list
// instead of a bitset.
const sparseLimit = 512

// thread is a position in the automaton together with its return stack.
type thread struct{ node, stack int32 }

// frame is an interned stack frame: a return node and the rest of the stack.
type frame struct{ ret, parent int32 }

// dstate is a state of the lazily determinized automaton.
type dstate struct {
	threads   []thread // sorted; only nodes with byte edges
	accepting bool
	done      bool     // accepting and no byte can follow
	mask      []uint64 // cached dense mask, or
	sparse    []int32  // cached allowed token ids (when few)
	cached    bool
}

// engine holds the determinized automaton of one grammar and the mask cache
// for one vocabulary. All access goes through mu.
type engine struct {
	mu        sync.Mutex
	n         *nfa
	v         *Vocab
	frames    []frame
	frameIdx  map[frame]int32
	states    []dstate
	stateIdx  map[string]int32
	trans     []int32 // 256 per state: 0 unknown, -1 dead, else state+1
	maskBytes int
	scratch   []uint64

	walk      []int32
	key       []byte
	stack     []thread
	seeds     []thread
	seenGen   uint32
	seenStamp []uint32 // per node: generation of the last visit
	seenStack []int32  // per node: stack of the first visit in this generation
	seen      map[thread]struct{}
	out       []thread
}

func newEngine(n *nfa, v *Vocab) *engine {
	e := &engine{n: n, v: v, frameIdx: map[frame]int32{}, stateIdx: map[string]int32{}, seen: map[thread]struct{}{},
		seenStamp: make([]uint32, len(n.nodes)), seenStack: make([]int32, len(n.nodes))}
	e.frames = append(e.frames, frame{-1, -1}) // id 0: empty stack
	e.closure([]thread{{n.ruleStart[n.start], 0}})
	return e
}

func (e *engine) pushFrame(ret, parent int32) int32 {
	f := frame{ret, parent}
	if id, ok := e.frameIdx[f]; ok {
		return id
	}
	id := int32(len(e.frames))
	e.frames = append(e.frames, f)
	e.frameIdx[f] = id
	return id
}

// closure follows epsilon edges, calls and returns from seeds and interns the
// resulting state; it returns -1 if the state is empty (dead).
func (e *engine) closure(seeds []thread) int32 {
	e.seenGen++
	if e.seenGen == 0 {
		clear(e.seenStamp)
		e.seenGen = 1
	}
	if len(e.seen) > 0 {
		clear(e.seen)
	}
	e.stack = append(e.stack[:0], seeds...)
	e.out = e.out[:0]
	accepting := false
	nodes := e.n.nodes
	for len(e.stack) > 0 {
		t := e.stack[len(e.stack)-1]
		e.stack = e.stack[:len(e.stack)-1]
		if !e.markSeen(t) {
			continue
		}
		nd := &nodes[t.node]
		if len(nd.edges) > 0 {
			e.out = append(e.out, t)
		}
		for _, x := range nd.eps {
			e.stack = append(e.stack, thread{x, t.stack})
		}
		if nd.call >= 0 {
			st := t.stack
			if !nd.tail {
				st = e.pushFrame(nd.ret, t.stack)
			}
			e.stack = append(e.stack, thread{e.n.ruleStart[nd.call], st})
		}
		if nd.final {
			if t.stack == 0 {
				accepting = true
			} else {
				f := e.frames[t.stack]
				e.stack = append(e.stack, thread{f.ret, f.parent})
			}
		}
	}
	if len(e.out) == 0 && !accepting {
		return -1
	}
	sortThreads(e.out)
	e.key = e.key[:0]
	if accepting {
		e.key = append(e.key, 1)
	} else {
		e.key = append(e.key, 0)
	}
	for _, t := range e.out {
		e.key = binary.LittleEndian.AppendUint32(e.key, uint32(t.node))
		e.key = binary.LittleEndian.AppendUint32(e.key, uint32(t.stack))
	}
	if id, ok := e.stateIdx[string(e.key)]; ok {
		return id
	}
	id := int32(len(e.states))
	e.states = append(e.states, dstate{
		threads:   append([]thread(nil), e.out...),
		accepting: accepting,
		done:      accepting && len(e.out) == 0,
	})
	e.stateIdx[string(e.key)] = id
	e.trans = append(e.trans, make([]int32, 256)...)
	return id
}

// markSeen marks t visited in the current closure and reports whether it
// was new. The common case (one stack per node) avoids the map.
func (e *engine) markSeen(t thread) bool {
	if e.seenStamp[t.node] != e.seenGen {
		e.seenStamp[t.node] = e.seenGen
		e.seenStack[t.node] = t.stack
		return true
	}
	if e.seenStack[t.node] == t.stack {
		return false
	}
	if _, ok := e.seen[t]; ok {
		return false
	}
	e.seen[t] = struct{}{}
	return true
}

func sortThreads(ts []thread) {
	slices.SortFunc(ts, func(a, b thread) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(a.stack, b.stack)
	})
}

// step returns the state reached from s by byte b, or -1.
func (e *engine) step(s int32, b byte) int32 {
	t := e.trans[int(s)<<8|int(b)]
	if t == 0 {
		t = e.computeStep(s, b)
	}
	if t < 0 {
		return -1
	}
	return t - 1
}

// computeStep fills and returns the transition-table entry of (s, b):
// -1 for dead, otherwise the target state + 1.
func (e *engine) computeStep(s int32, b byte) int32 {
	seeds := e.seeds[:0]
	for _, t := range e.states[s].threads {
		for _, ed := range e.n.nodes[t.node].edges {
			if ed.lo <= b && b <= ed.hi {
				seeds = append(seeds, thread{ed.to, t.stack})
			}
		}
	}
	e.seeds = seeds
	t := int32(-1)
	if len(seeds) > 0 {
		if r := e.closure(seeds); r >= 0 {
			t = r + 1
		}
	}
	e.trans[int(s)<<8|int(b)] = t
	return t
}

// oversized reports whether the cache grew past maxSharedStates.
func (e *engine) oversized() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.states) > maxSharedStates
}

// fillMask writes the token mask of state s into dst (already cleared),
// computing and caching it if needed.
func (e *engine) fillMask(s int32, dst []uint64) {
	if !e.states[s].cached {
		e.computeMask(s)
	}
	st := &e.states[s]
	if st.mask != nil {
		copy(dst, st.mask)
		return
	}
	for _, id := range st.sparse {
		if int(id>>6) < len(dst) {
			dst[id>>6] |= 1 << (uint(id) & 63)
		}
	}
}

// computeMask walks the vocabulary trie from state s and caches the mask.
func (e *engine) computeMask(s int32) {
	v := e.v
	words := v.MaskWords()
	if len(e.scratch) != words+1 {
		e.scratch = make([]uint64, words+1)
	}
	m := e.scratch // the last word absorbs nodes without a token
	clear(m)
	if len(e.walk) < v.maxLen+1 {
		e.walk = make([]int32, v.maxLen+1)
	}
	walk := e.walk
	walk[0] = s
	nodes := v.nodes
	trans := e.trans
	for i := 1; i < len(nodes); {
		nd := &nodes[i]
		t := trans[int(walk[nd.depth-1])<<8|int(nd.b)]
		if t <= 0 {
			if t == 0 {
				t = e.computeStep(walk[nd.depth-1], nd.b)
				trans = e.trans
			}
			if t < 0 {
				i = int(nd.skip)
				continue
			}
		}
		walk[nd.depth] = t - 1
		m[uint32(nd.tok)>>6] |= 1 << (uint32(nd.tok) & 63)
		if nd.dup {
			for _, id := range v.extra[int32(i)] {
				m[id>>6] |= 1 << (uint(id) & 63)
			}
		}
		i++
	}
	m = m[:words]
	if e.states[s].accepting {
		for _, id := range v.eos {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	size := 8 * len(m)
	if n <= sparseLimit {
		size = 4 * n
	}
	if e.maskBytes+size > maxMaskBytes {
		for i := range e.states {
			e.states[i].mask, e.states[i].sparse, e.states[i].cached = nil, nil, false
		}
		e.maskBytes = 0
	}
	st := &e.states[s]
	if n <= sparseLimit {
		st.sparse = make([]int32, 0, n)
		for w, x := range m {
			for x != 0 {
				st.sparse = append(st.sparse, int32(w*64+bits.TrailingZeros64(x)))
				x &= x - 1
			}
		}
	} else {
		st.mask = slices.Clone(m)
	}
	st.cached = true
	e.maskBytes += size
}
