package constrain

import (
	"encoding/binary"
	"sync"
)

// maxCachedMasks bounds the number of token masks cached per engine; when it
// is reached the cache is cleared.
const maxCachedMasks = 2048

// thread is a position in the automaton together with its return stack.
type thread struct{ node, stack int32 }

// frame is an interned stack frame: a return node and the rest of the stack.
type frame struct{ ret, parent int32 }

// dstate is a state of the lazily determinized automaton.
type dstate struct {
	threads   []thread // sorted; only nodes with byte edges
	accepting bool
	done      bool // accepting and no byte can follow
	mask      []uint64
}

// engine holds the determinized automaton of one grammar and the mask cache
// for one vocabulary. All access goes through mu.
type engine struct {
	mu       sync.Mutex
	n        *nfa
	v        *Vocab
	frames   []frame
	frameIdx map[frame]int32
	states   []dstate
	stateIdx map[string]int32
	trans    []int32 // 256 per state: 0 unknown, -1 dead, else state+1
	nmasks   int

	walk  []int32
	key   []byte
	stack []thread
	seen  map[thread]struct{}
	out   []thread
}

func newEngine(n *nfa, v *Vocab) *engine {
	e := &engine{n: n, v: v, frameIdx: map[frame]int32{}, stateIdx: map[string]int32{}, seen: map[thread]struct{}{}}
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
	clear(e.seen)
	e.stack = append(e.stack[:0], seeds...)
	e.out = e.out[:0]
	accepting := false
	nodes := e.n.nodes
	for len(e.stack) > 0 {
		t := e.stack[len(e.stack)-1]
		e.stack = e.stack[:len(e.stack)-1]
		if _, ok := e.seen[t]; ok {
			continue
		}
		e.seen[t] = struct{}{}
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

func sortThreads(ts []thread) {
	// Insertion sort: thread sets are small.
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && less(ts[j], ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func less(a, b thread) bool {
	if a.node != b.node {
		return a.node < b.node
	}
	return a.stack < b.stack
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
	var seeds []thread
	for _, t := range e.states[s].threads {
		for _, ed := range e.n.nodes[t.node].edges {
			if ed.lo <= b && b <= ed.hi {
				seeds = append(seeds, thread{ed.to, t.stack})
			}
		}
	}
	t := int32(-1)
	if len(seeds) > 0 {
		if r := e.closure(seeds); r >= 0 {
			t = r + 1
		}
	}
	e.trans[int(s)<<8|int(b)] = t
	return t
}

// mask returns the cached token mask of state s, computing it if needed.
func (e *engine) mask(s int32) []uint64 {
	if m := e.states[s].mask; m != nil {
		return m
	}
	v := e.v
	m := make([]uint64, v.MaskWords())
	if cap(e.walk) < 64 {
		e.walk = make([]int32, 64)
	}
	walk := e.walk[:cap(e.walk)]
	walk[0] = s
	nodes := v.nodes
	for i := 1; i < len(nodes); {
		nd := &nodes[i]
		cur := walk[nd.depth-1]
		t := e.trans[int(cur)<<8|int(nd.b)]
		if t == 0 {
			t = e.computeStep(cur, nd.b)
		}
		if t <= 0 {
			i = int(nd.skip)
			continue
		}
		if int(nd.depth) >= len(walk) {
			walk = append(walk, make([]int32, len(walk))...)
			e.walk = walk
		}
		walk[nd.depth] = t - 1
		for _, id := range v.ids[nd.tokLo:nd.tokHi] {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
		i++
	}
	if e.states[s].accepting {
		for _, id := range v.eos {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	if e.nmasks >= maxCachedMasks {
		for i := range e.states {
			e.states[i].mask = nil
		}
		e.nmasks = 0
	}
	e.states[s].mask = m
	e.nmasks++
	return m
}
