package constrain

// This file builds deterministic automata of regular expressions (string
// contents, object keys, number spellings) so that keywords needing
// intersection or complement (several patterns, a pattern with a length,
// patternProperties next to undeclared keys, propertyNames, not) compile
// exactly.

// dfa is a complete byte automaton; state 0 is the start, -1 is dead.
type dfa struct {
	next   []*[256]int32
	accept []bool
}

// maxDFAStates bounds every automaton this file builds.
const maxDFAStates = 1 << 15

// exprDFA determinizes a regular expression (no rule references); ok is
// false past maxDFAStates states.
func exprDFA(e *expr) (*dfa, bool) {
	b := newBuilder("dfa")
	root := b.rule("root")
	b.define(root, e)
	g, err := compileGrammar(b, root)
	if err != nil { // matches nothing
		return &dfa{next: []*[256]int32{deadRow()}, accept: []bool{false}}, true
	}
	en := newEngine(g.nfa, nil)
	// Bytes that no edge tells apart step alike: one step per class.
	cls := &en.cls
	d := &dfa{}
	index := map[int32]int32{0: 0}
	queue := []int32{0}
	d.next = append(d.next, new([256]int32))
	d.accept = append(d.accept, en.states[0].accepting)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		from := index[s]
		for c := 0; c < 256; c++ {
			if c > 0 && cls[c] == cls[c-1] {
				d.next[from][c] = d.next[from][c-1]
				continue
			}
			t := en.step(s, byte(c))
			if t < 0 {
				d.next[from][c] = -1
				continue
			}
			id, ok := index[t]
			if !ok {
				if len(d.next) >= maxDFAStates {
					return nil, false
				}
				id = int32(len(d.next))
				index[t] = id
				d.next = append(d.next, new([256]int32))
				d.accept = append(d.accept, en.states[t].accepting)
				queue = append(queue, t)
			}
			d.next[from][c] = id
		}
	}
	return d, true
}

func deadRow() *[256]int32 {
	var r [256]int32
	for i := range r {
		r[i] = -1
	}
	return &r
}

// dfaProduct runs a and b side by side; a state accepts iff keep(a accepts,
// b accepts). Dead states of a or b take part (for complements).
func dfaProduct(a, b *dfa, keep func(x, y bool) bool) (*dfa, bool) {
	type pair struct{ x, y int32 }
	acc := func(d *dfa, s int32) bool { return s >= 0 && d.accept[s] }
	step := func(d *dfa, s int32, c int) int32 {
		if s < 0 {
			return -1
		}
		return d.next[s][c]
	}
	out := &dfa{}
	index := map[pair]int32{}
	var queue []pair
	add := func(p pair) int32 {
		if id, ok := index[p]; ok {
			return id
		}
		id := int32(len(out.next))
		index[p] = id
		out.next = append(out.next, new([256]int32))
		out.accept = append(out.accept, keep(acc(a, p.x), acc(b, p.y)))
		queue = append(queue, p)
		return id
	}
	add(pair{0, 0})
	for len(queue) > 0 {
		if len(out.next) > maxDFAStates {
			return nil, false
		}
		p := queue[0]
		queue = queue[1:]
		from := index[p]
		for c := 0; c < 256; c++ {
			if c > 0 && step(a, p.x, c) == step(a, p.x, c-1) && step(b, p.y, c) == step(b, p.y, c-1) {
				out.next[from][c] = out.next[from][c-1]
				continue
			}
			q := pair{step(a, p.x, c), step(b, p.y, c)}
			if q.x < 0 && q.y < 0 && !keep(false, false) {
				out.next[from][c] = -1
				continue
			}
			out.next[from][c] = add(q)
		}
	}
	return out.trim(), true
}

// trim marks states that cannot reach acceptance dead.
func (d *dfa) trim() *dfa {
	rev := make([][]int32, len(d.next))
	for s := range d.next {
		prev := int32(-2)
		for _, t := range d.next[s] {
			if t >= 0 && t != prev {
				rev[t] = append(rev[t], int32(s))
			}
			prev = t
		}
	}
	live := make([]bool, len(d.next))
	var stack []int32
	for s, a := range d.accept {
		if a {
			live[s] = true
			stack = append(stack, int32(s))
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range rev[t] {
			if !live[s] {
				live[s] = true
				stack = append(stack, s)
			}
		}
	}
	for s := range d.next {
		for c, t := range d.next[s] {
			if t >= 0 && !live[t] {
				d.next[s][c] = -1
			}
		}
	}
	return d
}

// empty reports whether d accepts nothing.
func (d *dfa) empty() bool {
	seen := make([]bool, len(d.next))
	stack := []int32{0}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		if d.accept[s] {
			return false
		}
		for _, t := range d.next[s] {
			if t >= 0 {
				stack = append(stack, t)
			}
		}
	}
	return true
}

// expr turns d back into an expression (a graph with byte-range edges).
func (d *dfa) expr() *expr {
	n := len(d.next)
	g := &graphExpr{n: n + 1, start: 0, end: n}
	for s := range d.next {
		row := d.next[s]
		for c := 0; c < 256; {
			t := row[c]
			e := c
			for e+1 < 256 && row[e+1] == t {
				e++
			}
			if t >= 0 {
				g.edges = append(g.edges, graphEdge{from: s, to: int(t), e: byteRange(byte(c), byte(e))})
			}
			c = e + 1
		}
		if d.accept[s] {
			g.edges = append(g.edges, graphEdge{from: s, to: n})
		}
	}
	return &expr{op: opGraph, graph: g}
}

// langOp combines regular languages given as expressions over the same
// alphabet: the intersection of pos minus the union of neg, within universe.
// cache (may be nil) keeps the automata of expressions already determinized.
func langOp(universe *expr, pos, neg []*expr, cache map[*expr]*dfa) (*dfa, bool) {
	get := func(e *expr) (*dfa, bool) {
		if d, ok := cache[e]; ok {
			return d, true
		}
		d, ok := exprDFA(e)
		if ok && cache != nil {
			cache[e] = d
		}
		return d, ok
	}
	d, ok := get(universe)
	if !ok {
		return nil, false
	}
	for _, p := range pos {
		pd, ok := get(p)
		if !ok {
			return nil, false
		}
		if d, ok = dfaProduct(d, pd, func(x, y bool) bool { return x && y }); !ok {
			return nil, false
		}
	}
	for _, n := range neg {
		nd, ok := get(n)
		if !ok {
			return nil, false
		}
		if d, ok = dfaProduct(d, nd, func(x, y bool) bool { return x && !y }); !ok {
			return nil, false
		}
	}
	return d, true
}

// textChar is one code point the dialect can write inside a string.
func (c *schemaCompiler) textChar() *expr {
	if q := c.opts.Dialect.Quote; q != "" {
		first := []rune(q)[0]
		return runeClass(withoutRune(first))
	}
	return anyChar()
}

// spellContent turns a language of decoded string contents into its
// spelling between the quotes (canonical JSON escapes).
func (c *schemaCompiler) spellContent(e *expr) *expr {
	if c.opts.Dialect.Quote != "" {
		return e
	}
	return escapeJSON(e, map[*expr]*expr{})
}

// stringLangs returns regular languages over decoded text whose
// intersection is the strings alternative x allows: lengths, patterns,
// asserted formats and, if x has const/enum, its valid string literals.
func (c *schemaCompiler) stringLangs(x conj) ([]*expr, error) {
	langs, err := c.stringLangsNoLength(x)
	if err != nil {
		return nil, err
	}
	minL, maxL, err := c.bounds(x, "minLength", "maxLength")
	if err != nil {
		return nil, err
	}
	if minL > 0 || maxL >= 0 {
		langs = append(langs, rep(c.textChar(), minL, maxL))
	}
	return langs, nil
}

// stringLangsNoLength is stringLangs without minLength/maxLength.
func (c *schemaCompiler) stringLangsNoLength(x conj) ([]*expr, error) {
	var langs []*expr
	srcs, ptrs := c.stringPatterns(x)
	for i, src := range srcs {
		e, err := c.pattern(src, ptrs[i])
		if err != nil {
			return nil, err
		}
		langs = append(langs, e)
	}
	if lits, ok := c.conjLiterals(x); ok {
		var alts []*expr
		for _, l := range lits {
			if l.kind != jString {
				continue
			}
			if ok, err := c.validConj(l, x); err != nil {
				return nil, err
			} else if ok {
				alts = append(alts, lit(l.str))
			}
		}
		langs = append(langs, alt(alts...))
	}
	return langs, nil
}

// pattern compiles a JSON Schema pattern found at ptr (once per source).
func (c *schemaCompiler) pattern(src, ptr string) (*expr, error) {
	if e, ok := c.patterns[src]; ok {
		return e, nil
	}
	e, err := patternExpr(src)
	if err != nil {
		if ce, ok := err.(*CompileError); ok {
			ce.Lang, ce.Pointer = "json-schema", ptr
			if ce.Err == ErrSyntax && regexSyntaxUnsupported(src) {
				ce.Err = ErrUnsupported
				ce.Msg = "ECMA-262 regex syntax that RE2 lacks: " + ce.Msg
			}
		}
		return nil, err
	}
	c.patterns[src] = e
	return e, nil
}

// textDFA intersects langs within the dialect's strings, minus negs.
func (c *schemaCompiler) textDFA(langs, negs []*expr, ptr string) (*dfa, error) {
	if c.textAll == nil {
		c.textAll = star(c.textChar())
	}
	d, ok := langOp(c.textAll, langs, negs, c.dfas)
	if !ok {
		return nil, c.tooLarge(ptr, "combining string constraints needs more than %d automaton states", maxDFAStates)
	}
	return d, nil
}

// withLength runs d (over UTF-8 text) with a code point counter, keeping
// the texts of minL..maxL code points (maxL < 0: no maximum); cheaper than
// a product with a length automaton, as the counter needs no byte table.
func withLength(d *dfa, minL, maxL int) (*expr, bool) {
	top := maxL
	if top < 0 {
		top = minL // counts saturate at minL
	}
	type state struct{ s, n int32 }
	ids := map[state]int{}
	var queue []state
	get := func(st state) (int, bool) {
		if id, ok := ids[st]; ok {
			return id, true
		}
		if len(ids) >= maxDFAStates {
			return 0, false
		}
		ids[st] = len(ids)
		queue = append(queue, st)
		return ids[st], true
	}
	get(state{0, 0})
	type edge struct {
		from, to int
		lo, hi   byte
	}
	var edges []edge
	var finals []int
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		from := ids[st]
		if d.accept[st.s] && int(st.n) >= minL {
			finals = append(finals, from)
		}
		row := d.next[st.s]
		for c := 0; c < 256; {
			t := row[c]
			cont := c >= 0x80 && c <= 0xBF
			e := c
			for e+1 < 256 && row[e+1] == t && (e+1 >= 0x80 && e+1 <= 0xBF) == cont {
				e++
			}
			if t >= 0 {
				n := st.n
				if !cont {
					n++
				}
				if maxL < 0 && int(n) > top {
					n = int32(top)
				}
				if int(n) <= top {
					to, ok := get(state{t, n})
					if !ok {
						return nil, false
					}
					edges = append(edges, edge{from, to, byte(c), byte(e)})
				}
			}
			c = e + 1
		}
	}
	g := &graphExpr{n: len(ids) + 1, start: 0, end: len(ids)}
	for _, e := range edges {
		g.edges = append(g.edges, graphEdge{from: e.from, to: e.to, e: byteRange(e.lo, e.hi)})
	}
	for _, f := range finals {
		g.edges = append(g.edges, graphEdge{from: f, to: g.end})
	}
	return &expr{op: opGraph, graph: g}, true
}
