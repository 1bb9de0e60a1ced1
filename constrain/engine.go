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
	cuts      []byte  // computeRow: interval starts
	rowSeeds  []int32 // computeRow: seed-set offsets into seedBuf, per live interval
	seedBuf   []thread
	rowTo     []int32
	levels    []int32 // strLevel: the state sets of the levels so far
	levelAt   []int   // strLevel: offsets of the levels in levels
	pairs     []strPair
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
	if n := len(e.trans) + 256; n > cap(e.trans) {
		// Double (append grows large slices by 1.25x, copying the table
		// many times over).
		t := make([]int32, len(e.trans), max(2*cap(e.trans), 64<<10))
		copy(t, e.trans)
		e.trans = t
	}
	e.trans = e.trans[:len(e.trans)+256]
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
		e.computeRow(s)
		t = e.trans[int(s)<<8|int(b)]
	}
	if t < 0 {
		return -1
	}
	return t - 1
}

// row returns the transition row of state s (256 entries: -1 dead, else
// the target state + 1), computing it if needed.
func (e *engine) row(s int32) []int32 {
	r := e.trans[int(s)<<8 : int(s)<<8+256]
	if r[0] == 0 {
		e.computeRow(s)
		r = e.trans[int(s)<<8 : int(s)<<8+256]
	}
	return r
}

// computeRow fills the transition row of state s. The edges of its threads
// cut the bytes into intervals that all step to the same state; each
// interval takes one closure, and intervals with the same seeds share it.
func (e *engine) computeRow(s int32) {
	threads := e.states[s].threads
	var cut [256]bool
	cut[0] = true
	for _, t := range threads {
		for _, ed := range e.n.nodes[t.node].edges {
			cut[ed.lo] = true
			if ed.hi < 255 {
				cut[ed.hi+1] = true
			}
		}
	}
	e.cuts = e.cuts[:0]
	for b, ok := range cut {
		if ok {
			e.cuts = append(e.cuts, byte(b))
		}
	}
	e.rowSeeds, e.seedBuf, e.rowTo = e.rowSeeds[:0], e.seedBuf[:0], e.rowTo[:0]
	for k, lo := range e.cuts {
		hi := 255
		if k+1 < len(e.cuts) {
			hi = int(e.cuts[k+1]) - 1
		}
		start := len(e.seedBuf)
		for _, t := range threads {
			for _, ed := range e.n.nodes[t.node].edges {
				if ed.lo <= lo && lo <= ed.hi {
					e.seedBuf = append(e.seedBuf, thread{ed.to, t.stack})
				}
			}
		}
		to := int32(-1)
		if seeds := e.seedBuf[start:]; len(seeds) > 0 {
			to = 0
			for i, off := range e.rowSeeds { // an interval with the same seeds?
				end := len(e.seedBuf)
				if i+1 < len(e.rowSeeds) {
					end = int(e.rowSeeds[i+1])
				}
				if slices.Equal(e.seedBuf[off:end], seeds) {
					to = e.rowTo[i]
					e.seedBuf = e.seedBuf[:start]
					break
				}
			}
			if to == 0 {
				if r := e.closure(seeds); r >= 0 {
					to = r + 1
				} else {
					to = -1
				}
				e.rowSeeds = append(e.rowSeeds, int32(start))
				e.rowTo = append(e.rowTo, to)
			}
		}
		row := e.trans[int(s)<<8 : int(s)<<8+256]
		for b := int(lo); b <= hi; b++ {
			row[b] = to
		}
	}
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
	m := e.scratch // the last word absorbs nodes without a token
	if n := e.strLevel(s); n >= 0 {
		if n > 0 {
			copy(m, v.strCum[n])
		} else {
			clear(m)
		}
		m[words] = 0
	} else {
		clear(m)
		e.walkTrie(&v.str, s, m)
	}
	e.walkTrie(&v.rest, s, m)
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

// walkTrie sets in m the bits of the tokens of tr that state s allows.
func (e *engine) walkTrie(tr *trie, s int32, m []uint64) {
	if len(e.walk) < e.v.maxLen+1 {
		e.walk = make([]int32, e.v.maxLen+1)
	}
	walk := e.walk
	walk[0] = s
	nodes := tr.nodes
	trans := e.trans
	for i := 1; i < len(nodes); {
		nd := &nodes[i]
		p := walk[nd.depth-1]
		t := trans[int(p)<<8|int(nd.b)]
		if t <= 0 {
			if t == 0 {
				e.computeRow(p)
				trans = e.trans
				t = trans[int(p)<<8|int(nd.b)]
			}
			if t < 0 {
				i = int(nd.skip)
				continue
			}
		}
		walk[nd.depth] = t - 1
		m[uint32(nd.tok)>>6] |= 1 << (uint32(nd.tok) & 63)
		if nd.dup {
			for _, id := range tr.extra[int32(i)] {
				m[id>>6] |= 1 << (uint(id) & 63)
			}
		}
		i++
	}
}

// maxLevelStates bounds the states of one level that strLevel follows.
const maxLevelStates = 8

// strLevel classifies state s for the string-text tokens: it returns n ≥ 0
// if s allows every string text of n characters and none of n+1 (n =
// Vocab.strMax: every string text the vocabulary has), so those tokens
// are exactly strCum[n]; or -1 if they must be walked. It follows the sets
// of states after 1, 2, … characters.
func (e *engine) strLevel(s int32) int {
	max := e.v.strMax
	if max == 0 {
		return 0
	}
	e.levels = append(e.levels[:0], s)
	e.levelAt = append(e.levelAt[:0], 0)
	for l := 0; l < max; l++ {
		cur := e.levelAt[l]
		allDead, anyDead := true, false
		next := len(e.levels)
		for k := cur; k < next; k++ {
			q := e.levels[k]
			if !e.states[q].strKnown {
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
			return l
		case anyDead, len(e.levels)-next > maxLevelStates:
			return -1
		}
		lvl := e.levels[next:]
		slices.Sort(lvl)
		for k := 0; k <= l; k++ { // a level seen before: the levels cycle with no rejected character
			end := next
			if k < l {
				end = e.levelAt[k+1]
			}
			if slices.Equal(e.levels[e.levelAt[k]:end], lvl) {
				return max
			}
		}
		e.levelAt = append(e.levelAt, next)
	}
	return max
}

// strPair is a state of the product of a state with the UTF-8 decoder (see
// strNext) inside one string-text character.
type strPair struct {
	u int
	s int32
}

// strStep computes strDead and strNext of state q: the states after one
// string-text character, and whether some character is rejected.
func (e *engine) strStep(q int32) {
	dead := false
	var next []int32
	e.pairs = append(e.pairs[:0], strPair{u8Boundary, q})
	for k := 0; k < len(e.pairs); k++ {
		p := e.pairs[k]
		row := e.row(p.s)
		for b := 0; b < 256; b++ {
			u := strNext(p.u, byte(b))
			if u < 0 {
				continue
			}
			t := row[b]
			if t < 0 {
				dead = true
				continue
			}
			if u == u8Boundary {
				if !slices.Contains(next, t-1) {
					next = append(next, t-1)
				}
			} else if np := (strPair{u, t - 1}); !slices.Contains(e.pairs, np) {
				e.pairs = append(e.pairs, np)
			}
		}
	}
	st := &e.states[q]
	st.strKnown, st.strDead, st.strNext = true, dead, next
}
