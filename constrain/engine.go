package constrain

import (
	"cmp"
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
	hash      uint64   // of threads and accepting, for engine.slots
	accepting bool
	done      bool     // accepting and no byte can follow
	mask      []uint64 // cached dense mask, or
	sparse    []int32  // cached allowed token ids (when few)
	cached    bool

	// One string-text character (see Vocab) from this state: whether some
	// character is rejected, and the states after the accepted ones.
	strKnown bool
	strDead  bool
	strNext  []int32
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
	slots     []int32    // open-addressing index of states by hash: id+1, 0 empty
	arena     []thread   // the states' threads are carved from it
	trans     []int32    // ncls per state: 0 unknown, -1 dead, else state+1
	cls       [256]uint8 // byte -> class: bytes no edge tells apart
	ncls      int
	maskBytes int
	scratch   []uint64 // computeMask: the mask being built, kept all zero between calls
	ids       []int32  // computeMask: the allowed ids while few

	walk      []int32
	stack     []thread
	seeds     []thread
	seenGen   uint32
	seenStamp []uint32 // per node: generation of the last visit
	seenStack []int32  // per node: stack of the first visit in this generation
	seen      map[thread]struct{}
	out       []thread
	levels    []int32   // strLevel: the state sets of the levels so far
	levelAt   []int     // strLevel: offsets of the levels in levels
	pairs     []strPair // strStep: the pairs inside a character
	pairBuf   []thread
	pairCur   []thread
}

func newEngine(n *nfa, v *Vocab) *engine {
	e := &engine{n: n, v: v, frameIdx: map[frame]int32{}, slots: make([]int32, 1024), seen: map[thread]struct{}{},
		seenStamp: make([]uint32, len(n.nodes)), seenStack: make([]int32, len(n.nodes))}
	e.cls, e.ncls = byteClasses(n)
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
	accepting := e.expand(seeds)
	if len(e.out) == 0 && !accepting {
		return -1
	}
	return e.intern(accepting)
}

// expand follows epsilon edges, calls and returns from seeds: it leaves in
// e.out, sorted, the threads at nodes with byte edges and reports whether
// the rule stack can end.
func (e *engine) expand(seeds []thread) bool {
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
	sortThreads(e.out)
	return accepting
}

// intern returns the id of the state of the threads e.out, creating it.
func (e *engine) intern(accepting bool) int32 {
	h := uint64(0x9E3779B97F4A7C15)
	if accepting {
		h = ^h
	}
	for _, t := range e.out {
		h = (h ^ uint64(uint32(t.node))<<32 ^ uint64(uint32(t.stack))) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	mask := uint64(len(e.slots) - 1)
	i := h & mask
	for ; e.slots[i] != 0; i = (i + 1) & mask {
		st := &e.states[e.slots[i]-1]
		if st.hash == h && st.accepting == accepting && slices.Equal(st.threads, e.out) {
			return e.slots[i] - 1
		}
	}
	id := int32(len(e.states))
	if len(e.arena)+len(e.out) > cap(e.arena) {
		e.arena = make([]thread, 0, max(4096, len(e.out)))
	}
	start := len(e.arena)
	e.arena = append(e.arena, e.out...)
	e.states = append(e.states, dstate{
		threads:   e.arena[start:len(e.arena):len(e.arena)],
		hash:      h,
		accepting: accepting,
		done:      accepting && len(e.out) == 0,
	})
	e.slots[i] = id + 1
	if 2*len(e.states) > len(e.slots) { // keep the load under 1/2
		e.slots = make([]int32, 2*len(e.slots))
		mask = uint64(len(e.slots) - 1)
		for k := range e.states {
			j := e.states[k].hash & mask
			for e.slots[j] != 0 {
				j = (j + 1) & mask
			}
			e.slots[j] = int32(k) + 1
		}
	}
	if n := len(e.trans) + e.ncls; n > cap(e.trans) {
		// Double (append grows large slices by 1.25x, copying the table
		// many times over).
		t := make([]int32, len(e.trans), max(2*cap(e.trans), 64<<10))
		copy(t, e.trans)
		e.trans = t
	}
	e.trans = e.trans[:len(e.trans)+e.ncls]
	return id
}

// byteClasses partitions the bytes into intervals that no edge of n tells
// apart (its edges start and end only at class boundaries): cls maps a byte
// to its class, classes numbered in byte order, ncls of them. A row of
// the transition table has one entry per class, not per byte.
func byteClasses(n *nfa) (cls [256]uint8, ncls int) {
	var start [256]bool
	start[0] = true
	for i := range n.nodes {
		for _, ed := range n.nodes[i].edges {
			start[ed.lo] = true
			if ed.hi < 255 {
				start[ed.hi+1] = true
			}
		}
	}
	for b := range 256 {
		if start[b] {
			ncls++
		}
		cls[b] = uint8(ncls - 1)
	}
	return cls, ncls
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
	t := e.trans[int(s)*e.ncls+int(e.cls[b])]
	if t == 0 {
		t = e.computeStep(s, b)
	}
	if t < 0 {
		return -1
	}
	return t - 1
}

// computeStep fills the transition-table entries of s for the bytes that
// step like b (the interval around b that no edge of s starts or ends
// inside) and returns the entry of b: -1 for dead, otherwise the target
// state + 1. One closure serves the whole interval.
func (e *engine) computeStep(s int32, b byte) int32 {
	seeds, lo, hi := e.move(e.states[s].threads, b, e.seeds[:0])
	e.seeds = seeds
	t := int32(-1)
	if len(seeds) > 0 {
		if r := e.closure(seeds); r >= 0 {
			t = r + 1
		}
	}
	row := e.trans[int(s)*e.ncls : (int(s)+1)*e.ncls]
	for c := int(e.cls[lo]); c <= int(e.cls[hi]); c++ { // [lo, hi] is whole classes
		row[c] = t
	}
	return t
}

// move appends to seeds the threads that byte b takes ts to, and returns
// them with the interval [lo, hi] around b of the bytes that take ts to
// the same threads.
func (e *engine) move(ts []thread, b byte, seeds []thread) ([]thread, int, int) {
	lo, hi := 0, 255
	for _, t := range ts {
		for _, ed := range e.n.nodes[t.node].edges {
			switch {
			case b < ed.lo:
				hi = min(hi, int(ed.lo)-1)
			case b > ed.hi:
				lo = max(lo, int(ed.hi)+1)
			default:
				seeds = append(seeds, thread{ed.to, t.stack})
				lo, hi = max(lo, int(ed.lo)), min(hi, int(ed.hi))
			}
		}
	}
	return seeds, lo, hi
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

// computeMask computes and caches the mask of state s: the rest trie is
// walked, the string-text tokens are taken from a bitset when strLevel
// classifies s and are walked otherwise.
func (e *engine) computeMask(s int32) {
	v := e.v
	words := v.MaskWords()
	if len(e.scratch) != words+1 {
		e.scratch = make([]uint64, words+1)
	}
	m := e.scratch // all zero between calls; the last word absorbs nodes without a token
	lvl, all := e.strLevel(s)
	if k := max(lvl, all); k > 0 {
		copy(m, v.strCum[k])
	}
	if lvl < 0 {
		e.walkTrie(&v.str, s, m, all)
	}
	e.walkTrie(&v.rest, s, m, 0)
	m[words] = 0
	m = m[:words]
	if e.states[s].accepting {
		for _, id := range v.eos {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	// One pass lists the allowed ids while they are few.
	e.ids = e.ids[:0]
	n := 0
	for w, x := range m {
		if x == 0 {
			continue
		}
		n += bits.OnesCount64(x)
		for ; x != 0 && n <= sparseLimit; x &= x - 1 {
			e.ids = append(e.ids, int32(w*64+bits.TrailingZeros64(x)))
		}
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
		st.sparse = slices.Clone(e.ids)
		for _, id := range e.ids { // leave the scratch clear
			m[id>>6] = 0
		}
	} else {
		st.mask = slices.Clone(m)
		clear(m)
	}
	st.cached = true
	e.maskBytes += size
}

// walkTrie sets in m the bits of the tokens of tr that state s allows. It
// skips the subtrees whose tokens have at most covered characters (their
// bits are set already).
func (e *engine) walkTrie(tr *trie, s int32, m []uint64, covered int) {
	if len(e.walk) < e.v.maxLen+1 {
		e.walk = make([]int32, e.v.maxLen+1)
	}
	e.walk[0] = s
	for i := 1; i < len(tr.nodes); {
		i = walkNodes(tr, i, e.walk, e.trans, &e.cls, e.ncls, m, uint8(covered))
		if i < len(tr.nodes) { // a transition not computed yet
			nd := &tr.nodes[i]
			e.computeStep(e.walk[nd.depth-1], nd.b)
		}
	}
}

// walkNodes walks tr from node i on, with walk[d] the state at depth d,
// until the end or a transition not computed yet; it returns the index it
// stopped at. It calls nothing, so the loop keeps its values in registers.
// Subtrees whose tokens have at most covered characters are skipped.
func walkNodes(tr *trie, i int, walk, trans []int32, cls *[256]uint8, ncls int, m []uint64, covered uint8) int {
	nodes := tr.nodes
	for i < len(nodes) {
		nd := &nodes[i]
		if nd.info&infoRunes <= covered {
			i = int(nd.skip)
			continue
		}
		t := trans[int(walk[nd.depth-1])*ncls+int(cls[nd.b])]
		if t <= 0 {
			if t == 0 {
				return i
			}
			i = int(nd.skip)
			continue
		}
		walk[nd.depth] = t - 1
		m[uint32(nd.tok)>>6] |= 1 << (uint32(nd.tok) & 63)
		if nd.info&infoDup != 0 {
			for _, id := range tr.extra[int32(i)] {
				m[id>>6] |= 1 << (uint(id) & 63)
			}
		}
		i++
	}
	return i
}

// maxLevelStates bounds the states of one level that strLevel follows, and
// maxLevelSteps the states it computes the string-text step of.
const (
	maxLevelStates = 16
	maxLevelSteps  = 40
)

// strLevel classifies state s for the string-text tokens: it returns n ≥ 0
// if s allows every string text of n characters and none of n+1 (n =
// Vocab.strMax: every string text the vocabulary has), so those tokens
// are exactly strCum[n]; otherwise n = -1, the tokens must be walked, and
// all is a number of characters up to which every string text is allowed.
// It follows the sets of states after 1, 2, … characters.
func (e *engine) strLevel(s int32) (n, all int) {
	max := e.v.strMax
	if max == 0 {
		return 0, 0
	}
	if some, every := e.strFirst(s); !every { // a first byte is rejected: no need to follow the levels
		if !some {
			return 0, 0
		}
		return -1, 0
	}
	e.levels = append(e.levels[:0], s)
	e.levelAt = append(e.levelAt[:0], 0)
	budget := maxLevelSteps
	for l := 0; l < max; l++ {
		cur := e.levelAt[l]
		allDead, anyDead := true, false
		next := len(e.levels)
		for k := cur; k < next; k++ {
			q := e.levels[k]
			if !e.states[q].strKnown {
				if budget == 0 { // following more states costs more than the walk saves
					return -1, l
				}
				budget--
				e.strStep(q)
			}
			st := &e.states[q]
			anyDead = anyDead || st.strDead
			allDead = allDead && len(st.strNext) == 0
			for _, t := range st.strNext {
				if !slices.Contains(e.levels[next:], t) {
					e.levels = append(e.levels, t)
				}
			}
		}
		switch {
		case allDead:
			return l, 0
		case anyDead:
			return -1, l
		case len(e.levels)-next > maxLevelStates:
			return -1, l + 1
		}
		lvl := e.levels[next:]
		slices.Sort(lvl)
		for k := 0; k <= l; k++ { // a level seen before: the levels cycle with no rejected character
			end := next
			if k < l {
				end = e.levelAt[k+1]
			}
			if slices.Equal(e.levels[e.levelAt[k]:end], lvl) {
				return max, 0
			}
		}
		e.levelAt = append(e.levelAt, next)
	}
	return max, 0
}

// strFirst reports whether some and whether every first byte of a string
// text character has an edge from state s.
func (e *engine) strFirst(s int32) (some, every bool) {
	var has [4]uint64
	for _, t := range e.states[s].threads {
		for _, ed := range e.n.nodes[t.node].edges {
			for b := int(ed.lo); b <= int(ed.hi); b++ {
				has[b>>6] |= 1 << (b & 63)
			}
		}
	}
	every = true
	for w, lead := range e.v.strLead {
		some = some || has[w]&lead != 0
		every = every && has[w]&lead == lead
	}
	return some, every
}

// strPair is a state inside one string-text character: the threads
// (e.pairBuf[off:off+n]) after the bytes so far and the UTF-8 decoder state
// (see strNext).
type strPair struct {
	u      int
	off, n int
}

// strStep computes strDead and strNext of state q: the states after one
// string-text character, and whether some character is rejected. It runs
// the automaton on the threads and the UTF-8 decoder together, one byte
// interval at a time, and interns only the states between characters.
func (e *engine) strStep(q int32) {
	dead := false
	var next []int32
	e.pairBuf = append(e.pairBuf[:0], e.states[q].threads...)
	e.pairs = append(e.pairs[:0], strPair{u8Boundary, 0, len(e.pairBuf)})
	for k := 0; k < len(e.pairs); k++ {
		p := e.pairs[k]
		e.pairCur = append(e.pairCur[:0], e.pairBuf[p.off:p.off+p.n]...)
		for b := 0; b < 256; {
			seeds, _, hi := e.move(e.pairCur, byte(b), e.seeds[:0])
			e.seeds = seeds
			u, uhi := e.v.strSpan(p.u, byte(b))
			hi = min(hi, uhi)
			switch {
			case u < 0:
			case len(seeds) == 0:
				dead = true
			case u == u8Boundary:
				if t := e.closure(seeds); t < 0 {
					dead = true
				} else if !slices.Contains(next, t) {
					next = append(next, t)
				}
			default:
				e.expand(seeds)
				if len(e.out) == 0 {
					dead = true
					break
				}
				if !e.hasPair(u) {
					e.pairs = append(e.pairs, strPair{u, len(e.pairBuf), len(e.out)})
					e.pairBuf = append(e.pairBuf, e.out...)
				}
			}
			b = hi + 1
		}
	}
	st := &e.states[q]
	st.strKnown, st.strDead, st.strNext = true, dead, next
}

// hasPair reports whether the pair (u, e.out) is already in e.pairs.
func (e *engine) hasPair(u int) bool {
	for _, p := range e.pairs {
		if p.u == u && slices.Equal(e.pairBuf[p.off:p.off+p.n], e.out) {
			return true
		}
	}
	return false
}
