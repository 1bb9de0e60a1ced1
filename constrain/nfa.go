package constrain

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

const (
	// maxNodes bounds the size of a compiled automaton.
	maxNodes = 2_000_000
	// inlineLimit is the largest expanded size of a non-recursive rule that
	// is inlined at its call sites instead of being called through the stack.
	inlineLimit = 1 << 14
)

// bedge is a byte transition.
type bedge struct {
	lo, hi byte
	to     int32
}

// nnode is a node of the byte-level recursive transition network.
type nnode struct {
	edges []bedge
	eps   []int32
	call  int32 // rule called from this node, -1 if none
	ret   int32 // node to continue at after the call returns
	tail  bool  // the call is in tail position: no frame is pushed
	final bool  // end of its rule
}

// nfa is a compiled grammar: one sub-automaton per rule, calls between them.
type nfa struct {
	nodes     []nnode
	ruleStart []int32
	ruleEnd   []int32
	ruleName  []string
	start     int32 // root rule id
}

type nfaCompiler struct {
	b         *builder
	recursive []bool
	size      []int // expanded size of non-recursive rules, -1 unknown
	ruleMap   []int32
	queue     []int
	n         *nfa
	err       error
	epsPool   []int32 // eps and edge: the first slots of nodes' lists
	edgePool  []bedge
}

// compileGrammar turns the rules of b (root rule root) into a trimmed automaton.
func compileGrammar(b *builder, root int) (*Grammar, error) {
	for id, body := range b.bodies {
		if body == nil {
			return nil, &CompileError{Lang: b.lang, Msg: fmt.Sprintf("rule %q is used but not defined", b.names[id]), Err: ErrInvalid}
		}
	}
	c := &nfaCompiler{b: b, n: &nfa{}}
	c.findRecursion()
	c.size = make([]int, len(b.bodies))
	for i := range c.size {
		c.size[i] = -1
	}
	c.ruleMap = make([]int32, len(b.bodies))
	for i := range c.ruleMap {
		c.ruleMap[i] = -1
	}
	c.n.nodes = make([]nnode, 0, c.estimate())
	c.n.start = c.ruleID(root)
	for len(c.queue) > 0 && c.err == nil {
		r := c.queue[0]
		c.queue = c.queue[1:]
		id := c.ruleMap[r]
		c.compile(b.bodies[r], c.n.ruleStart[id], c.n.ruleEnd[id])
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := c.n.analyze(b.lang); err != nil {
		return nil, err
	}
	return &Grammar{nfa: c.n, key: c.n.fingerprint(), engines: map[*Vocab]*engine{}}, nil
}

// findRecursion marks rules that belong to a reference cycle (Tarjan SCC).
func (c *nfaCompiler) findRecursion() {
	n := len(c.b.bodies)
	adj := make([][]int, n)
	last := make([]int, n) // by rule: 1 + the last body that referred to it
	seen := map[*expr]bool{}
	for i, body := range c.b.bodies {
		clear(seen)
		walkRefs(body, func(r int) {
			if last[r] != i+1 {
				last[r] = i + 1
				adj[i] = append(adj[i], r)
			}
		}, seen)
	}
	c.recursive = make([]bool, n)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	counter := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				for _, w := range comp {
					c.recursive[w] = true
				}
			} else {
				for _, w := range adj[v] {
					if w == v {
						c.recursive[v] = true
					}
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		if index[i] < 0 {
			visit(i)
		}
	}
}

func walkRefs(e *expr, f func(int), seen map[*expr]bool) {
	switch e.op {
	case opRef:
		f(e.rule)
		return
	case opEmpty, opNothing, opBytes:
		return
	}
	if seen[e] { // shared subexpressions are walked once
		return
	}
	seen[e] = true
	switch e.op {
	case opGraph:
		for _, ed := range e.graph.edges {
			if ed.e != nil {
				walkRefs(ed.e, f, seen)
			}
		}
	default:
		for _, s := range e.subs {
			walkRefs(s, f, seen)
		}
	}
}

// maxEstimate bounds the nodes allocated ahead by estimate.
const maxEstimate = 1 << 16

// estimate is the number of nodes to allocate ahead: the expanded sizes of
// the rules that are called rather than inlined (growing the node slice
// by copies cost more than a third of compiling).
func (c *nfaCompiler) estimate() int {
	n := 0
	for r := range c.b.bodies {
		if !c.inline(r) {
			n += exprSize(c.b.bodies[r], c.refSize, maxEstimate) + 2
		}
		if n >= maxEstimate {
			return maxEstimate
		}
	}
	return n
}

// ruleSize is the expanded size of a rule if inlined.
func (c *nfaCompiler) ruleSize(r int) int {
	if c.recursive[r] {
		return 1
	}
	if c.size[r] < 0 {
		c.size[r] = inlineLimit + 1 // guard
		c.size[r] = exprSize(c.b.bodies[r], c.refSize, inlineLimit+1)
	}
	return c.size[r]
}

func (c *nfaCompiler) refSize(r int) int {
	if c.inline(r) {
		return c.ruleSize(r)
	}
	return 1
}

func (c *nfaCompiler) inline(r int) bool {
	return !c.recursive[r] && (r >= len(c.b.called) || !c.b.called[r]) && c.ruleSize(r) <= inlineLimit
}

// ruleID returns the automaton rule id of builder rule r, scheduling its compilation.
func (c *nfaCompiler) ruleID(r int) int32 {
	if c.ruleMap[r] >= 0 {
		return c.ruleMap[r]
	}
	id := int32(len(c.n.ruleStart))
	c.ruleMap[r] = id
	s, e := c.node(), c.node()
	c.n.ruleStart = append(c.n.ruleStart, s)
	c.n.ruleEnd = append(c.n.ruleEnd, e)
	c.n.ruleName = append(c.n.ruleName, c.b.names[r])
	if e >= 0 {
		c.n.nodes[e].final = true
	}
	c.queue = append(c.queue, r)
	return id
}

func (c *nfaCompiler) node() int32 {
	if len(c.n.nodes) >= maxNodes {
		if c.err == nil {
			c.err = &CompileError{Lang: c.b.lang, Msg: fmt.Sprintf("constraint too large (more than %d automaton nodes)", maxNodes), Err: ErrInvalid}
		}
		return 0
	}
	c.n.nodes = append(c.n.nodes, nnode{call: -1, ret: -1})
	return int32(len(c.n.nodes) - 1)
}

func (c *nfaCompiler) eps(from, to int32) {
	nd := &c.n.nodes[from]
	if nd.eps == nil { // most nodes have one or two: carve them from a pool
		if len(c.epsPool)+2 > cap(c.epsPool) {
			c.epsPool = make([]int32, 0, 4096)
		}
		k := len(c.epsPool)
		c.epsPool = c.epsPool[:k+2]
		nd.eps = c.epsPool[k : k : k+2]
	}
	nd.eps = append(nd.eps, to)
}

// edge adds a byte edge from node from.
func (c *nfaCompiler) edge(from int32, ed bedge) {
	nd := &c.n.nodes[from]
	if nd.edges == nil {
		if len(c.edgePool)+2 > cap(c.edgePool) {
			c.edgePool = make([]bedge, 0, 2048)
		}
		k := len(c.edgePool)
		c.edgePool = c.edgePool[:k+2]
		nd.edges = c.edgePool[k : k : k+2]
	}
	nd.edges = append(nd.edges, ed)
}

// compile adds the automaton for e between from and to.
func (c *nfaCompiler) compile(e *expr, from, to int32) {
	if c.err != nil {
		return
	}
	switch e.op {
	case opEmpty:
		c.eps(from, to)
	case opNothing:
	case opBytes:
		c.edge(from, bedge{lo: e.lo, hi: e.hi, to: to})
	case opSeq:
		cur := from
		for i, s := range e.subs {
			next := to
			if i < len(e.subs)-1 {
				next = c.node()
			}
			c.compile(s, cur, next)
			cur = next
		}
	case opAlt:
		// Alternatives that are sequences of byte ranges share the nodes
		// of equal suffixes (the continuation bytes of a UTF-8 class), as
		// RE2's UTF-8 compiler does: fewer nodes, fewer states.
		var suffix map[string]int32
		for _, s := range e.subs {
			if !byteSeq(s) {
				c.compile(s, from, to)
				continue
			}
			if suffix == nil {
				suffix = map[string]int32{}
			}
			next := to
			for k := len(s.subs) - 1; k >= 1; k-- {
				key := make([]byte, 0, 2*(len(s.subs)-k))
				for _, r := range s.subs[k:] {
					key = append(key, r.lo, r.hi)
				}
				n, ok := suffix[string(key)]
				if !ok {
					n = c.node()
					c.edge(n, bedge{lo: s.subs[k].lo, hi: s.subs[k].hi, to: next})
					suffix[string(key)] = n
				}
				next = n
			}
			c.edge(from, bedge{lo: s.subs[0].lo, hi: s.subs[0].hi, to: next})
		}
	case opRepeat:
		cur := from
		for i := 0; i < e.min; i++ {
			next := c.node()
			c.compile(e.subs[0], cur, next)
			cur = next
			if c.err != nil {
				return
			}
		}
		if e.max < 0 {
			loop := c.node()
			c.eps(cur, loop)
			c.compile(e.subs[0], loop, loop)
			c.eps(loop, to)
			return
		}
		for i := e.min; i < e.max; i++ {
			c.eps(cur, to)
			next := to
			if i < e.max-1 {
				next = c.node()
			}
			c.compile(e.subs[0], cur, next)
			cur = next
			if c.err != nil {
				return
			}
		}
		if e.max == e.min {
			c.eps(cur, to)
		}
	case opRef:
		if c.inline(e.rule) {
			c.compile(c.b.bodies[e.rule], from, to)
			return
		}
		id := c.ruleID(e.rule)
		n := c.node()
		c.eps(from, n)
		c.n.nodes[n].call = id
		c.n.nodes[n].ret = to
	case opGraph:
		g := e.graph
		ids := make([]int32, g.n)
		deg := make([]int32, g.n+1)
		for _, ed := range g.edges {
			deg[ed.from]++
		}
		deg[g.end]++
		// The nodes' epsilon lists share one array (an object's member
		// graph has hundreds of nodes with a few edges each).
		eps := make([]int32, len(g.edges)+1)
		off := int32(0)
		for i := range ids {
			ids[i] = c.node()
			if c.err != nil {
				return
			}
			c.n.nodes[ids[i]].eps = eps[off : off : off+deg[i]]
			off += deg[i]
		}
		c.eps(from, ids[g.start])
		c.eps(ids[g.end], to)
		for _, ed := range g.edges {
			if ed.e == nil {
				c.eps(ids[ed.from], ids[ed.to])
			} else {
				c.compile(ed.e, ids[ed.from], ids[ed.to])
			}
		}
	}
}

// byteSeq reports whether e is a sequence of byte ranges.
func byteSeq(e *expr) bool {
	if e.op != opSeq {
		return false
	}
	for _, s := range e.subs {
		if s.op != opBytes {
			return false
		}
	}
	return true
}

// analyze checks productivity and left recursion, trims dead nodes and marks tail calls.
func (n *nfa) analyze(lang string) error {
	nr := len(n.ruleStart)
	// Productive and nullable rules (fixpoints).
	mk := newMarks(len(n.nodes))
	productive := n.fixpoint(true, mk)
	nullable := n.fixpoint(false, mk)
	if !productive[n.start] {
		return &CompileError{Lang: lang, Msg: "the constraint matches no string", Err: ErrInvalid}
	}
	// Left recursion: calls reachable from a rule start without consuming bytes.
	leftCalls := make([][]int32, nr)
	var stack []int32
	for r := 0; r < nr; r++ {
		mk.reset()
		stack = append(stack[:0], n.ruleStart[r])
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !mk.mark(x) {
				continue
			}
			nd := &n.nodes[x]
			stack = append(stack, nd.eps...)
			if nd.call >= 0 && productive[nd.call] {
				leftCalls[r] = append(leftCalls[r], nd.call)
				if nullable[nd.call] {
					stack = append(stack, nd.ret)
				}
			}
		}
	}
	state := make([]uint8, nr)
	var path []int32
	var cyc []int32
	var dfs func(r int32) bool
	dfs = func(r int32) bool {
		state[r] = 1
		path = append(path, r)
		for _, q := range leftCalls[r] {
			if state[q] == 1 {
				for i, p := range path {
					if p == q {
						cyc = append([]int32{}, path[i:]...)
					}
				}
				cyc = append(cyc, q)
				return true
			}
			if state[q] == 0 && dfs(q) {
				return true
			}
		}
		path = path[:len(path)-1]
		state[r] = 2
		return false
	}
	for r := int32(0); r < int32(nr); r++ {
		if state[r] == 0 && dfs(r) {
			names := make([]string, len(cyc))
			for i, q := range cyc {
				names[i] = n.ruleName[q]
			}
			return &CompileError{Lang: lang, Msg: "left recursion is not supported: " + strings.Join(names, " -> "), Err: ErrUnsupported}
		}
	}
	// Trim: keep nodes that can reach the end of their rule.
	// The reverse edges in one array: rev[at[x]:at[x+1]] lead to x.
	at := make([]int32, len(n.nodes)+1)
	n.eachSucc(productive, func(_, to int32) { at[to+1]++ })
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	rev := make([]int32, at[len(n.nodes)])
	fill := slices.Clone(at[:len(n.nodes)])
	n.eachSucc(productive, func(from, to int32) {
		rev[fill[to]] = from
		fill[to]++
	})
	live := make([]bool, len(n.nodes))
	stack = append(stack[:0], n.ruleEnd...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if live[x] {
			continue
		}
		live[x] = true
		stack = append(stack, rev[at[x]:at[x+1]]...)
	}
	for i := range n.nodes {
		nd := &n.nodes[i]
		eps := nd.eps[:0]
		for _, t := range nd.eps {
			if live[t] {
				eps = append(eps, t)
			}
		}
		if len(eps) < len(nd.eps) { // store only what changed (a pointer store is dear while the GC runs)
			nd.eps = eps
		}
		edges := nd.edges[:0]
		for _, ed := range nd.edges {
			if live[ed.to] {
				edges = append(edges, ed)
			}
		}
		if len(edges) < len(nd.edges) {
			nd.edges = edges
		}
		if nd.call >= 0 && (!productive[nd.call] || !live[nd.ret]) {
			nd.call = -1
		}
	}
	// Tail calls: nothing but the rule end follows the return node.
	for i := range n.nodes {
		nd := &n.nodes[i]
		if nd.call >= 0 {
			nd.tail, stack = n.onlyEnd(nd.ret, mk, stack[:0])
		}
	}
	return nil
}

// eachSucc calls f for every edge of the automaton: epsilon, byte, and
// from a call of a productive rule to its return node.
func (n *nfa) eachSucc(productive []bool, f func(from, to int32)) {
	for i := range n.nodes {
		nd := &n.nodes[i]
		for _, t := range nd.eps {
			f(int32(i), t)
		}
		for _, ed := range nd.edges {
			f(int32(i), ed.to)
		}
		if nd.call >= 0 && productive[nd.call] {
			f(int32(i), nd.ret)
		}
	}
}

// fingerprint hashes the automaton, so identical constraints compiled
// separately can share determinized states and cached masks.
func (n *nfa) fingerprint() [32]byte {
	h := sha256.New()
	buf := make([]byte, 0, 64)
	put := func(x int32) { buf = binary.LittleEndian.AppendUint32(buf, uint32(x)) }
	put(n.start)
	put(int32(len(n.nodes)))
	for i := range n.ruleStart {
		put(n.ruleStart[i])
		put(n.ruleEnd[i])
	}
	for i := range n.nodes {
		nd := &n.nodes[i]
		put(int32(len(nd.edges)))
		for _, ed := range nd.edges {
			buf = append(buf, ed.lo, ed.hi)
			put(ed.to)
		}
		put(int32(len(nd.eps)))
		for _, x := range nd.eps {
			put(x)
		}
		put(nd.call)
		put(nd.ret)
		flags := byte(0)
		if nd.tail {
			flags |= 1
		}
		if nd.final {
			flags |= 2
		}
		buf = append(buf, flags)
		if len(buf) > 4096 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// onlyEnd reports whether every node epsilon-reachable from x has no byte
// edges and no calls. It returns stack, its scratch, for reuse.
func (n *nfa) onlyEnd(x int32, mk *marks, stack []int32) (bool, []int32) {
	mk.reset()
	stack = append(stack, x)
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !mk.mark(y) {
			continue
		}
		nd := &n.nodes[y]
		if len(nd.edges) > 0 || nd.call >= 0 {
			return false, stack
		}
		stack = append(stack, nd.eps...)
	}
	return true, stack
}

// fixpoint computes, for each rule, whether its end is reachable from its
// start using epsilon edges, byte edges (if bytes) and calls to rules already
// known to qualify.
func (n *nfa) fixpoint(bytes bool, mk *marks) []bool {
	nr := len(n.ruleStart)
	ok := make([]bool, nr)
	for changed := true; changed; {
		changed = false
		// Callees get higher ids than their first caller: the reverse
		// order settles most rules in the first pass.
		for r := nr - 1; r >= 0; r-- {
			if ok[r] {
				continue
			}
			if n.reach(n.ruleStart[r], n.ruleEnd[r], bytes, ok, mk) {
				ok[r] = true
				changed = true
			}
		}
	}
	return ok
}

func (n *nfa) reach(from, to int32, bytes bool, ok []bool, mk *marks) bool {
	mk.reset()
	stack := []int32{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if !mk.mark(x) {
			continue
		}
		nd := &n.nodes[x]
		stack = append(stack, nd.eps...)
		if bytes {
			for _, ed := range nd.edges {
				stack = append(stack, ed.to)
			}
		}
		if nd.call >= 0 && ok[nd.call] {
			stack = append(stack, nd.ret)
		}
	}
	return false
}

// marks is a reusable visited set over node ids.
type marks struct {
	stamp []uint32
	gen   uint32
}

func newMarks(n int) *marks { return &marks{stamp: make([]uint32, n), gen: 1} }

func (m *marks) reset() {
	m.gen++
	if m.gen == 0 {
		clear(m.stamp)
		m.gen = 1
	}
}

// mark marks x and reports whether it was unmarked.
func (m *marks) mark(x int32) bool {
	if m.stamp[x] == m.gen {
		return false
	}
	m.stamp[x] = m.gen
	return true
}
