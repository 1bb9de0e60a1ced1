package constrain

import (
	"fmt"
	"math/big"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file lowers the per-type keywords of one alternative (a conj) into
// expressions: objects, arrays, strings, numbers and literals.

// quoted matches the string s in the dialect's spelling (nothing if the
// dialect cannot write it).
func (c *schemaCompiler) quoted(s string) *expr {
	if q := c.opts.Dialect.Quote; q != "" {
		if strings.Index(s+q, q) != len(s) { // the parser would end the string early
			return nothingExpr
		}
		return lit(q + s + q)
	}
	return c.strLiteral(s)
}

// key matches the object key k in the dialect's spelling.
func (c *schemaCompiler) key(k string) *expr {
	if c.opts.Dialect.BareKeys && isIdentifier(k) {
		return lit(k)
	}
	if c.opts.Dialect.Quote != "" {
		return c.quoted(k)
	}
	return lit(canonicalJSON(k))
}

// anyString matches any string in the dialect's spelling.
func (c *schemaCompiler) anyString() *expr {
	if q := c.opts.Dialect.Quote; q != "" {
		return seq(lit(q), textAvoiding([]string{q}), lit(q))
	}
	return seq(lit(`"`), star(c.char), lit(`"`))
}

// anyKey matches an undeclared object key in the dialect's spelling.
func (c *schemaCompiler) anyKey() *expr {
	if c.opts.Dialect.BareKeys {
		return seq(runeClass([]runeRange{{'A', 'Z'}, {'_', '_'}, {'a', 'z'}}),
			star(runeClass([]runeRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}})))
	}
	return c.anyString()
}

// isIdentifier reports whether s is [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return s != ""
}

// withoutRune is every code point but r, as rune ranges.
func withoutRune(r rune) []runeRange {
	var out []runeRange
	if r > 0 {
		out = append(out, runeRange{0, r - 1})
	}
	if r < 0x10FFFF {
		out = append(out, runeRange{r + 1, 0x10FFFF})
	}
	return out
}

// withoutByte rewrites an expression over string content so that it never
// matches the byte x (content of a dialect string that must avoid its quote).
func withoutByte(e *expr, x byte, memo map[*expr]*expr) *expr {
	if r, ok := memo[e]; ok {
		return r
	}
	var out *expr
	switch e.op {
	case opBytes:
		switch {
		case x < e.lo || x > e.hi:
			out = e
		case e.lo == e.hi:
			out = nothingExpr
		case x == e.lo:
			out = byteRange(x+1, e.hi)
		case x == e.hi:
			out = byteRange(e.lo, x-1)
		default:
			out = alt(byteRange(e.lo, x-1), byteRange(x+1, e.hi))
		}
	case opSeq, opAlt, opRepeat:
		subs := make([]*expr, len(e.subs))
		for i, s := range e.subs {
			subs[i] = withoutByte(s, x, memo)
		}
		cp := *e
		cp.subs = subs
		out = &cp
	case opGraph:
		out = mapGraph(e, func(y *expr) *expr { return withoutByte(y, x, memo) })
	default:
		out = e
	}
	memo[e] = out
	return out
}

// mapGraph copies a graph expression with f applied to its edge labels.
func mapGraph(e *expr, f func(*expr) *expr) *expr {
	g := *e.graph
	g.edges = make([]graphEdge, len(e.graph.edges))
	for i, ed := range e.graph.edges {
		if ed.e != nil {
			ed.e = f(ed.e)
		}
		g.edges[i] = ed
	}
	return &expr{op: opGraph, graph: &g}
}

// ecmaSyntax parses a JSON Schema pattern (ECMA-262) as RE2 syntax, with
// ECMA's "." that also excludes \r, U+2028 and U+2029.
func ecmaSyntax(src string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	var fix func(r *syntax.Regexp)
	fix = func(r *syntax.Regexp) {
		if r.Op == syntax.OpAnyCharNotNL {
			r.Op = syntax.OpCharClass
			r.Rune = []rune{0, '\n' - 1, '\n' + 1, '\r' - 1, '\r' + 1, 0x2027, 0x202A, unicode.MaxRune}
		}
		for _, s := range r.Sub {
			fix(s)
		}
	}
	fix(re)
	return re, nil
}

// ecmaRegexp compiles a JSON Schema pattern for matching in Go.
func ecmaRegexp(src string) (*regexp.Regexp, error) {
	re, err := ecmaSyntax(src)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(re.String())
}

// patternExpr compiles a JSON Schema pattern: an unanchored search unless it
// starts with ^ / ends with $.
func patternExpr(src string) (*expr, error) {
	re, err := ecmaSyntax(src)
	if err != nil {
		return nil, regexError(src, "regex", err)
	}
	e, err := regexToExpr(re, src, "regex")
	if err != nil {
		return nil, err
	}
	startAnchored, endAnchored := false, false
	isBegin := func(r *syntax.Regexp) bool { return r.Op == syntax.OpBeginText || r.Op == syntax.OpBeginLine }
	isEnd := func(r *syntax.Regexp) bool { return r.Op == syntax.OpEndText || r.Op == syntax.OpEndLine }
	switch {
	case re.Op == syntax.OpConcat && len(re.Sub) > 0:
		startAnchored, endAnchored = isBegin(re.Sub[0]), isEnd(re.Sub[len(re.Sub)-1])
	default:
		startAnchored, endAnchored = isBegin(re), isEnd(re)
	}
	if !startAnchored {
		e = seq(star(anyChar()), e)
	}
	if !endAnchored {
		e = seq(e, star(anyChar()))
	}
	return e, nil
}

// escapeJSON rewrites an expression over decoded string content into one over
// its JSON encoding: '"', '\' and control characters become escapes.
func escapeJSON(e *expr, memo map[*expr]*expr) *expr {
	if r, ok := memo[e]; ok {
		return r
	}
	var out *expr
	switch e.op {
	case opBytes:
		if e.lo >= 0x20 && (e.lo > '"' || e.hi < '"') && (e.lo > '\\' || e.hi < '\\') {
			out = e
			break
		}
		var alts []*expr
		start := -1
		for b := int(e.lo); b <= int(e.hi)+1; b++ {
			special := b <= int(e.hi) && (b < 0x20 || b == '"' || b == '\\')
			if b <= int(e.hi) && !special {
				if start < 0 {
					start = b
				}
				continue
			}
			if start >= 0 {
				alts = append(alts, byteRange(byte(start), byte(b-1)))
				start = -1
			}
			if special {
				alts = append(alts, lit(escapeByte(byte(b))))
			}
		}
		out = alt(alts...)
	case opSeq, opAlt, opRepeat:
		subs := make([]*expr, len(e.subs))
		for i, s := range e.subs {
			subs[i] = escapeJSON(s, memo)
		}
		cp := *e
		cp.subs = subs
		out = &cp
	case opGraph:
		out = mapGraph(e, func(x *expr) *expr { return escapeJSON(x, memo) })
	default:
		out = e
	}
	memo[e] = out
	return out
}

func escapeByte(b byte) string {
	switch b {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	return fmt.Sprintf(`\u%04x`, b)
}

// canonicalJSON is the JSON string literal of s with only the escapes JSON
// requires (quote, backslash, control characters), the one spelling object
// keys are written in, so a declared key cannot be written as another key.
func canonicalJSON(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' {
			sb.WriteString(escapeByte(byte(r)))
			continue
		}
		sb.WriteRune(r)
	}
	sb.WriteByte('"')
	return sb.String()
}

// strLiteral matches the JSON spellings of the string s. In Spec mode that
// is every spelling (each code point raw or escaped: \n, \u00e9, \u00E9, a
// surrogate pair, ...); otherwise only Go's encoding of it, so a generated
// literal reads back as the same text.
func (c *schemaCompiler) strLiteral(s string) *expr {
	if !utf8.ValidString(s) || !c.opts.Spec {
		return lit(quoteJSON(s))
	}
	parts := []*expr{lit(`"`)}
	for _, r := range s {
		parts = append(parts, c.runeSpellings(r))
	}
	return seq(append(parts, lit(`"`))...)
}

// runeSpellings matches the JSON spellings of one code point.
func (c *schemaCompiler) runeSpellings(r rune) *expr {
	hexCase := func(s string) *expr {
		var parts []*expr
		for i := 0; i < len(s); i++ {
			if s[i] >= 'a' && s[i] <= 'f' {
				parts = append(parts, alt(lit(s[i:i+1]), lit(strings.ToUpper(s[i:i+1]))))
			} else {
				parts = append(parts, lit(s[i:i+1]))
			}
		}
		return seq(parts...)
	}
	var alts []*expr
	if r >= 0x20 && r != '"' && r != '\\' {
		alts = append(alts, lit(string(r)))
	}
	switch r {
	case '"', '\\', '\b', '\f', '\n', '\r', '\t':
		alts = append(alts, lit(escapeByte(byte(r))))
	case '/':
		if !c.opts.Dialect.Python {
			alts = append(alts, lit(`\/`))
		}
	}
	if r < 0x10000 {
		alts = append(alts, seq(lit(`\u`), hexCase(fmt.Sprintf("%04x", r))))
	} else {
		hi, lo := 0xD800+((r-0x10000)>>10), 0xDC00+((r-0x10000)&0x3FF)
		alts = append(alts, seq(lit(`\u`), hexCase(fmt.Sprintf("%04x", hi)), lit(`\u`), hexCase(fmt.Sprintf("%04x", lo))))
	}
	return alt(alts...)
}

// literal matches the JSON value v: numbers by value (1.0 = 1), strings in
// any spelling, object keys in any order.
func (c *schemaCompiler) literal(v *jvalue) *expr {
	switch v.kind {
	case jArray:
		parts := []*expr{lit("["), c.ws}
		for i, x := range v.arr {
			if i > 0 {
				parts = append(parts, c.comma)
			}
			parts = append(parts, c.literal(x))
		}
		return seq(append(parts, c.ws, lit("]"))...)
	case jObject:
		g := objectGraph{required: make([]bool, len(v.keys)), deps: make([][]int, len(v.keys)), maxP: -1}
		for i, k := range v.keys {
			g.kvs = append(g.kvs, seq(c.key(k), c.colon, c.literal(v.vals[i])))
			g.required[i] = true
		}
		e, err := c.objectExpr(g, "")
		if err != nil {
			return nothingExpr
		}
		return e
	case jString:
		return c.quoted(v.str)
	case jBool:
		if v.b {
			return lit(c.lTrue)
		}
		return lit(c.lFalse)
	case jNull:
		return lit(c.lNull)
	}
	if r, ok := ratOf(v); ok {
		if e, ok := c.numLiteral(r); ok {
			return e
		}
	}
	var sb strings.Builder
	v.encode(&sb)
	return lit(sb.String())
}

// numLiteral matches the numbers equal to r. Outside Spec mode an integer
// is spelled without fraction (Go and most decoders reject 2.0 for an int).
func (c *schemaCompiler) numLiteral(r *big.Rat) (*expr, bool) {
	return rangeExpr(interval{lo: r, hi: r}, r.IsInt() && !c.opts.Spec, false)
}

// shared turns e into a rule that is called, not inlined, so an automaton
// that uses it on many edges holds one copy.
func (c *schemaCompiler) shared(e *expr) *expr {
	if e.op == opRef || e.op == opNothing || e.op == opEmpty {
		if e.op == opRef {
			c.b.noInline(e.rule)
		}
		return e
	}
	id := c.b.fresh(c.prefix + "kv")
	c.b.define(id, e)
	c.b.noInline(id)
	return ref(id)
}

// subtractRunes removes the code points in cut from rs.
func subtractRunes(rs []runeRange, cut []rune) []runeRange {
	out := rs
	for _, x := range cut {
		var next []runeRange
		for _, r := range out {
			if x < r.lo || x > r.hi {
				next = append(next, r)
				continue
			}
			if r.lo < x {
				next = append(next, runeRange{r.lo, x - 1})
			}
			if x < r.hi {
				next = append(next, runeRange{x + 1, r.hi})
			}
		}
		out = next
	}
	return out
}

// keyNotIn matches an object key, in the dialect's spelling for undeclared
// keys, whose text is none of names.
func (c *schemaCompiler) keyNotIn(names []string) *expr {
	d := c.opts.Dialect
	var allowed func(depth int) []runeRange
	unit := runeClass
	open, close := `"`, `"`
	switch {
	case d.BareKeys:
		ident := []runeRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
		allowed = func(depth int) []runeRange {
			if depth == 0 {
				return ident[1:]
			}
			return ident
		}
		names = append(names, "")
		open, close = "", ""
	case d.Quote != "":
		first, _ := utf8.DecodeRuneInString(d.Quote)
		allowed = func(int) []runeRange { return withoutRune(first) }
		open, close = d.Quote, d.Quote
	default:
		allowed = func(int) []runeRange { return []runeRange{{0, 0x10FFFF}} }
		unit = canonicalChars
	}
	// The free tail after a character that leaves the names is one
	// called rule, not a copy per trie node.
	tail := c.shared(star(unit(allowed(1))))
	var node func(set []string, depth int) *expr
	node = func(set []string, depth int) *expr {
		var alts []*expr
		children := map[rune][]string{}
		var order []rune
		end := true
		for _, s := range set {
			if s == "" {
				end = false
				continue
			}
			r, n := utf8.DecodeRuneInString(s)
			if _, ok := children[r]; !ok {
				order = append(order, r)
			}
			children[r] = append(children[r], s[n:])
		}
		if end {
			alts = append(alts, emptyExpr)
		}
		for _, r := range order {
			alts = append(alts, seq(unit([]runeRange{{r, r}}), node(children[r], depth+1)))
		}
		alts = append(alts, seq(unit(subtractRunes(allowed(depth), order)), tail))
		return alt(alts...)
	}
	return seq(lit(open), node(names, 0), lit(close))
}

// canonicalChars matches the canonical JSON spelling of the code points in rs.
func canonicalChars(rs []runeRange) *expr {
	var alts []*expr
	var plain []runeRange
	for _, r := range rs {
		for _, sp := range []runeRange{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}} {
			for x := max(r.lo, sp.lo); x <= min(r.hi, sp.hi); x++ {
				alts = append(alts, lit(escapeByte(byte(x))))
			}
		}
		plain = append(plain, r)
	}
	plain = subtractRunes(plain, []rune{'"', '\\'})
	var out []runeRange
	for _, r := range plain {
		if r.hi < 0x20 {
			continue
		}
		out = append(out, runeRange{max(r.lo, 0x20), r.hi})
	}
	return alt(append(alts, runeClass(out))...)
}

// objectGraph describes an object's members for objectExpr: kvs[i] writes
// declared property i (nothing if it cannot appear), extra an undeclared
// one (nil: none).
type objectGraph struct {
	kvs        []*expr
	required   []bool
	deps       [][]int // deps[i]: properties required when i is present
	extra      *expr
	minP, maxP int // maxP < 0: unbounded
	ordered    bool
}

// maxSharedRepeat is the unrolled size of a bounded array repeat above
// which its item is called rather than copied.
const maxSharedRepeat = 1024

// maxObjectNodes bounds the automaton of one object's member list.
const maxObjectNodes = 1 << 15

// objectExpr lowers an object's member list. Declared properties come in
// any order (the automaton tracks the set already written) unless g.ordered,
// JSONOptions.PropertyOrder or more than MaxAnyOrder of them; then in
// declaration order. Members are counted for min/maxProperties; undeclared
// keys count at most once towards minProperties (a repeated key is one
// property once parsed), so minProperties above 1 with undeclared keys is
// refused.
func (c *schemaCompiler) objectExpr(g objectGraph, ptr string) (*expr, error) {
	n := len(g.kvs)
	ordered := g.ordered || c.opts.PropertyOrder || n > c.opts.MaxAnyOrder
	for _, d := range g.deps {
		if ordered && len(d) > 0 {
			return nil, c.unsupported(ptr+"/dependentRequired", "dependentRequired on objects whose properties come in declaration order (more than %d properties) is not supported", c.opts.MaxAnyOrder)
		}
	}
	if g.extra != nil && g.minP > 1 {
		return nil, c.unsupported(ptr+"/minProperties", "minProperties %d with undeclared properties is not supported (a repeated key would count twice)", g.minP)
	}
	// State: pos (next property, or the set written), d declared
	// properties written (saturating at dcap), e undeclared ones; in any
	// order, sep: after the comma that every next member shares (one
	// copy of the separator, not one per member that may follow).
	type state struct {
		pos, d, e int
		sep       bool
	}
	dcap := max(g.minP, 1)
	if g.maxP >= 0 {
		dcap = max(g.maxP, 1)
	}
	hint := n + 1 // states and edges of the usual shape, allocated ahead
	if !ordered {
		hint = 2 << min(n, 12) // the sets written, each with its comma state
	}
	// States are numbered through a dense table when it is small (in any
	// order, d is the size of the set pos), else through a map.
	ecap := 2
	if g.maxP >= 0 {
		ecap = g.maxP + 1
	}
	key := func(s state) int {
		p := s.pos
		if ordered {
			p = p*(dcap+1) + s.d
		}
		k := (p*ecap + s.e) * 2
		if s.sep {
			k++
		}
		return k
	}
	size := (n + 1) * (dcap + 1) * ecap * 2
	if !ordered {
		size = -1
		if n < 16 {
			size = (1 << n) * ecap * 2
		}
	}
	var dense []int32 // by key: id+1
	var ids map[state]int
	if size >= 0 && size <= 1<<16 {
		dense = make([]int32, size)
	} else {
		ids = make(map[state]int, hint)
	}
	count := 0
	queue := make([]state, 0, hint)
	gr := &graphExpr{}
	get := func(s state) int {
		if dense != nil {
			k := key(s)
			if dense[k] == 0 {
				count++
				dense[k] = int32(count)
				queue = append(queue, s)
			}
			return int(dense[k]) - 1
		}
		if id, ok := ids[s]; ok {
			return id
		}
		ids[s] = count
		count++
		queue = append(queue, s)
		return ids[s]
	}
	get(state{})
	type pending struct {
		from  int
		to    int // state id
		idx   int // property index, -1 for an undeclared key, -2 for the end, -3 skip, -4 comma
		first bool
	}
	edges := make([]pending, 0, hint*(n+2)/4)
	for len(queue) > 0 {
		if count > maxObjectNodes {
			return nil, c.tooLarge(ptr, "an object with %d declared properties needs more than %d automaton nodes", n, maxObjectNodes)
		}
		s := queue[0]
		queue = queue[1:]
		from := get(s)
		total := s.d + s.e
		canAdd := g.maxP < 0 || total < g.maxP
		first := total == 0 || s.sep
		final := s.d+min(s.e, 1) >= g.minP && !s.sep
		comma := false // members follow the shared comma state
		add := func(to state, idx int) {
			edges = append(edges, pending{from: from, to: get(to), idx: idx, first: first})
		}
		if ordered {
			if s.pos < n {
				if canAdd && g.kvs[s.pos].op != opNothing {
					add(state{pos: s.pos + 1, d: min(s.d+1, dcap), e: s.e}, s.pos)
				}
				if !g.required[s.pos] {
					edges = append(edges, pending{from: from, to: get(state{pos: s.pos + 1, d: s.d, e: s.e}), idx: -3})
				}
				continue
			}
		} else {
			comma = !first
			member := g.extra != nil
			for i := 0; i < n; i++ {
				if s.pos&(1<<i) != 0 {
					for _, d := range g.deps[i] {
						final = final && s.pos&(1<<d) != 0
					}
					continue
				}
				final = final && !g.required[i]
				if canAdd && g.kvs[i].op != opNothing {
					member = true
					if !comma {
						add(state{pos: s.pos | 1<<i, d: s.d + 1, e: s.e}, i)
					}
				}
			}
			if comma && canAdd && member {
				edges = append(edges, pending{from: from, to: get(state{s.pos, s.d, s.e, true}), idx: -4})
			}
		}
		if canAdd && g.extra != nil && !comma {
			e := s.e + 1
			if g.maxP < 0 {
				e = 1
			}
			add(state{pos: s.pos, d: s.d, e: e}, -1)
		}
		if final {
			edges = append(edges, pending{from: from, idx: -2})
		}
	}
	gr.n = count + 1
	gr.end = count
	big := len(edges) > 8
	wrap := func(e *expr) *expr {
		if big {
			return c.shared(e)
		}
		return e
	}
	firstKV, laterKV := make([]*expr, n), make([]*expr, n)
	for i, kv := range g.kvs {
		firstKV[i] = wrap(kv)
		if ordered { // in any order, the comma is an edge of its own
			laterKV[i] = wrap(seq(c.comma, firstKV[i]))
		}
	}
	var firstExtra, laterExtra *expr
	if g.extra != nil {
		firstExtra = wrap(g.extra)
		if ordered {
			laterExtra = wrap(seq(c.comma, firstExtra))
		}
	}
	comma := c.comma
	if big && !ordered {
		if c.commaRule == nil {
			c.commaRule = c.shared(c.comma)
		}
		comma = c.commaRule
	}
	gr.edges = make([]graphEdge, 0, len(edges))
	for _, p := range edges {
		switch {
		case p.idx == -2:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: gr.end})
		case p.idx == -3:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to})
		case p.idx == -4:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to, e: comma})
		case p.idx == -1 && p.first:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to, e: firstExtra})
		case p.idx == -1:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to, e: laterExtra})
		case p.first:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to, e: firstKV[p.idx]})
		default:
			gr.edges = append(gr.edges, graphEdge{from: p.from, to: p.to, e: laterKV[p.idx]})
		}
	}
	return seq(lit("{"), c.ws, &expr{op: opGraph, graph: gr}, c.ws, lit("}")), nil
}

// maxKeyPatterns bounds the distinct patternProperties patterns next to
// undeclared keys (the key space splits into 2^n regions).
const maxKeyPatterns = 4

// undeclared lowers the members with keys outside names: one alternative
// per region of the key space that the patterns (and propertyNames) cut,
// each with the schemas that apply there.
func (c *schemaCompiler) undeclared(members []member, names []string, partsFor func(*string, map[string]bool) ([]part, error),
	isFalse func([]part) bool, ptr string) (*expr, error) {
	var pats, patPtrs []string
	var nameLangs [][]*expr // propertyNames: each a union of alternatives
	simple := true
	for _, m := range members {
		for _, p := range m.s.v.get("patternProperties").keysOrNil() {
			if !contains(pats, p) {
				pats, patPtrs = append(pats, p), append(patPtrs, m.s.ptr+"/patternProperties/"+pointerToken(p))
			}
		}
		if pn := m.s.v.get("propertyNames"); pn != nil {
			ps := c.sub(m.s, pn, "/propertyNames")
			alts, err := c.expand(ps, nil, map[*jvalue]bool{})
			if err != nil {
				return nil, err
			}
			var union []*expr
			for _, a := range alts {
				if c.conjTypes(a)&tString == 0 {
					continue
				}
				if len(a.neg) > 0 {
					return nil, c.unsupported(ps.ptr, "propertyNames with not is not supported")
				}
				langs, err := c.stringLangs(a)
				if err != nil {
					return nil, err
				}
				d, err := c.textDFA(langs, nil, ps.ptr)
				if err != nil {
					return nil, err
				}
				union = append(union, d.expr())
			}
			nameLangs = append(nameLangs, union)
			simple = false
		}
	}
	if len(pats) == 0 && simple {
		parts, err := partsFor(nil, nil)
		if err != nil || isFalse(parts) {
			return nil, err
		}
		v, err := c.value(parts, ptr+"/additionalProperties")
		if err != nil {
			return nil, err
		}
		return seq(c.keyNotIn(names), c.colon, v), nil
	}
	if len(pats) > maxKeyPatterns {
		return nil, c.tooLarge(patPtrs[maxKeyPatterns], "more than %d patternProperties next to undeclared properties", maxKeyPatterns)
	}
	var declared []*expr
	for _, n := range names {
		declared = append(declared, lit(n))
	}
	var pos0 []*expr
	for _, u := range nameLangs {
		pos0 = append(pos0, alt(u...))
	}
	if c.opts.Dialect.BareKeys {
		pos0 = append(pos0, seq(runeClass([]runeRange{{'A', 'Z'}, {'_', '_'}, {'a', 'z'}}),
			star(runeClass([]runeRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}))))
	}
	var alts []*expr
	for set := 0; set < 1<<len(pats); set++ {
		region := map[string]bool{}
		pos := append([]*expr(nil), pos0...)
		neg := []*expr{alt(declared...)}
		for i, p := range pats {
			e, err := c.pattern(p, patPtrs[i])
			if err != nil {
				return nil, err
			}
			if set&(1<<i) != 0 {
				region[p] = true
				pos = append(pos, e)
			} else {
				neg = append(neg, e)
			}
		}
		d, err := c.textDFA(pos, neg, ptr)
		if err != nil {
			return nil, err
		}
		if d.empty() {
			continue
		}
		parts, err := partsFor(nil, region)
		if err != nil {
			return nil, err
		}
		if isFalse(parts) {
			continue
		}
		v, err := c.value(parts, ptr+"/additionalProperties")
		if err != nil {
			return nil, err
		}
		key := d.expr()
		switch {
		case c.opts.Dialect.BareKeys:
		case c.opts.Dialect.Quote != "":
			key = seq(lit(c.opts.Dialect.Quote), key, lit(c.opts.Dialect.Quote))
		default:
			key = seq(lit(`"`), escapeJSON(key, map[*expr]*expr{}), lit(`"`))
		}
		alts = append(alts, seq(key, c.colon, v))
	}
	if len(alts) == 0 {
		return nil, nil
	}
	return alt(alts...), nil
}

// scope is the set of members at or below m (unevaluated* sees their annotations).
func scope(x conj, m member) []member {
	var out []member
	for _, d := range x.pos {
		if d.s.v == m.s.v {
			out = append(out, d)
			continue
		}
		for _, a := range d.anc {
			if a == m.s.v {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// patternMatch reports whether the JSON Schema pattern p matches s.
func (c *schemaCompiler) patternMatch(p, s, ptr string) (bool, error) {
	re, err := ecmaRegexp(p)
	if err != nil {
		return false, c.unsupported(ptr, "pattern %q: %v", p, err)
	}
	return re.MatchString(s), nil
}

func (c *schemaCompiler) object(x conj, ptr string) (*expr, error) {
	var members []member
	for _, m := range x.pos {
		if m.s.v.kind == jObject {
			members = append(members, m)
		}
	}
	var names []string
	seen := map[string]bool{}
	addName := func(k string) {
		if !seen[k] {
			seen[k] = true
			names = append(names, k)
		}
	}
	declared := false
	hasExtra := false // some member says what undeclared keys are
	for _, m := range members {
		s := m.s.v
		for _, k := range s.get("properties").keysOrNil() {
			addName(k)
			declared = true
		}
		for _, r := range requiredNames(s) {
			addName(r)
		}
		for _, dk := range []string{"dependentRequired", "dependencies"} {
			d := s.get(dk)
			for j, k := range d.keysOrNil() {
				if d.vals[j].kind == jArray {
					addName(k)
					for _, r := range d.vals[j].arr {
						if r.kind != jString {
							return nil, c.errf(m.s.ptr+"/"+dk+"/"+pointerToken(k), ErrSyntax, "%s must list property names", dk)
						}
						addName(r.str)
					}
				}
			}
		}
		for _, k := range []string{"additionalProperties", "patternProperties", "unevaluatedProperties"} {
			hasExtra = hasExtra || s.get(k) != nil
		}
	}
	closed := !c.opts.AdditionalProperties && !hasExtra && declared
	if x.anyOf {
		for _, m := range members {
			if m.s.v.get("unevaluatedProperties") != nil {
				return nil, c.unsupported(m.s.ptr+"/unevaluatedProperties", "unevaluatedProperties over anyOf branches is not supported")
			}
		}
	}
	// matches reports whether pattern p matches key k; for undeclared keys
	// (k nil) the region says which patterns match.
	matches := func(p string, k *string, region map[string]bool, ptr string) (bool, error) {
		if k == nil {
			return region[p], nil
		}
		return c.patternMatch(p, *k, ptr)
	}
	// evaluated reports whether key k is evaluated below m by something
	// other than m's own unevaluatedProperties.
	evaluated := func(m member, k *string, region map[string]bool) bool {
		for _, d := range scope(x, m) {
			s := d.s.v
			if s.get("additionalProperties") != nil || d.s.v != m.s.v && s.get("unevaluatedProperties") != nil {
				return true
			}
			if k != nil && s.get("properties").get(*k) != nil {
				return true
			}
			for _, p := range s.get("patternProperties").keysOrNil() {
				if ok, _ := matches(p, k, region, ""); ok {
					return true
				}
			}
		}
		return false
	}
	partsFor := func(k *string, region map[string]bool) ([]part, error) {
		var parts []part
		for _, m := range members {
			s := m.s.v
			matched := false
			if k != nil {
				if p := s.get("properties").get(*k); p != nil {
					parts = append(parts, part{s: c.sub(m.s, p, "/properties/"+pointerToken(*k))})
					matched = true
				}
			}
			pats := s.get("patternProperties")
			for j, p := range pats.keysOrNil() {
				pp := m.s.ptr + "/patternProperties/" + pointerToken(p)
				ok, err := matches(p, k, region, pp)
				if err != nil {
					return nil, err
				}
				if ok {
					parts = append(parts, part{s: c.sub(m.s, pats.vals[j], "/patternProperties/"+pointerToken(p))})
					matched = true
				}
			}
			if ap := s.get("additionalProperties"); ap != nil && !matched {
				parts = append(parts, part{s: c.sub(m.s, ap, "/additionalProperties")})
			}
			if u := s.get("unevaluatedProperties"); u != nil && !evaluated(m, k, region) {
				parts = append(parts, part{s: c.sub(m.s, u, "/unevaluatedProperties")})
			}
			if pn := s.get("propertyNames"); pn != nil && k != nil {
				ok, err := c.valid(&jvalue{kind: jString, str: *k}, c.sub(m.s, pn, "/propertyNames"), 0)
				if err != nil {
					return nil, err
				}
				if !ok {
					return []part{{s: sref{v: &jvalue{kind: jBool}}}}, nil
				}
			}
		}
		return parts, nil
	}
	isFalse := func(parts []part) bool {
		for _, p := range parts {
			if p.s.v.kind == jBool && !p.s.v.b {
				return true
			}
		}
		return false
	}
	g := objectGraph{required: make([]bool, len(names)), deps: make([][]int, len(names))}
	index := map[string]int{}
	for i, k := range names {
		index[k] = i
	}
	var err error
	if g.minP, g.maxP, err = c.bounds(x, "minProperties", "maxProperties"); err != nil {
		return nil, err
	}
	for _, m := range members {
		for _, r := range requiredNames(m.s.v) {
			g.required[index[r]] = true
		}
		for _, dk := range []string{"dependentRequired", "dependencies"} {
			d := m.s.v.get(dk)
			for j, k := range d.keysOrNil() {
				for _, r := range d.vals[j].arrOrNil() {
					g.deps[index[k]] = append(g.deps[index[k]], index[r.str])
				}
			}
		}
	}
	for i, k := range names {
		parts, err := partsFor(&k, nil)
		if err != nil {
			return nil, err
		}
		if isFalse(parts) {
			if g.required[i] {
				return nothingExpr, nil
			}
			g.kvs = append(g.kvs, nothingExpr)
			continue
		}
		v, err := c.value(parts, ptr+"/properties/"+pointerToken(k))
		if err != nil {
			return nil, err
		}
		g.kvs = append(g.kvs, seq(c.key(k), c.colon, v))
	}
	if !closed {
		extra, err := c.undeclared(members, names, partsFor, isFalse, ptr)
		if err != nil {
			return nil, err
		}
		g.extra = extra
	}
	return c.objectExpr(g, ptr)
}

func (c *schemaCompiler) array(x conj, ptr string) (*expr, error) {
	type arr struct {
		m        member
		prefix   []sref
		rest     *sref
		contains *sref
		unevalU  *sref
	}
	var members []arr
	maxPrefix := 0
	for _, m := range x.pos {
		if m.s.v.kind != jObject {
			continue
		}
		a := arr{m: m}
		var rest *jvalue
		var restPath string
		a.prefix, rest, restPath = c.itemSchemas(m.s)
		if rest != nil {
			r := c.sub(m.s, rest, restPath)
			a.rest = &r
		}
		if ct := m.s.v.get("contains"); ct != nil {
			r := c.sub(m.s, ct, "/contains")
			a.contains = &r
		}
		if u := m.s.v.get("unevaluatedItems"); u != nil {
			r := c.sub(m.s, u, "/unevaluatedItems")
			a.unevalU = &r
		}
		if u := m.s.v.get("uniqueItems"); u != nil && u.kind == jBool && u.b && !c.opts.Lenient {
			_, hi, err := c.bounds(x, "minItems", "maxItems")
			if err != nil {
				return nil, err
			}
			if hi < 0 || hi > 1 {
				return nil, c.unsupported(m.s.ptr+"/uniqueItems", "uniqueItems on arrays of more than one item is not supported")
			}
		}
		maxPrefix = max(maxPrefix, len(a.prefix))
		members = append(members, a)
	}
	minI, maxI, err := c.bounds(x, "minItems", "maxItems")
	if err != nil {
		return nil, err
	}
	for _, a := range members {
		if a.unevalU != nil && x.anyOf {
			return nil, c.unsupported(a.unevalU.ptr, "unevaluatedItems over anyOf branches is not supported")
		}
	}
	if maxI >= 0 && maxI < minI {
		return c.conflict(x, "maxItems", minI, maxI), nil
	}
	var containers []arr
	for _, a := range members {
		if a.contains != nil {
			containers = append(containers, a)
		}
	}
	// partsAt returns the schemas of item i (i < 0: items after every prefix).
	partsAt := func(i int) ([]part, error) {
		var parts []part
		for _, a := range members {
			switch {
			case i >= 0 && i < len(a.prefix):
				parts = append(parts, part{s: a.prefix[i]})
			case a.rest != nil:
				parts = append(parts, part{s: *a.rest})
			}
			if a.unevalU == nil {
				continue
			}
			evaluated := false
			for _, d := range scope(x, a.m) {
				for _, o := range members {
					if o.m.s.v != d.s.v {
						continue
					}
					if o.contains != nil {
						return nil, c.unsupported(a.unevalU.ptr, "unevaluatedItems together with contains is not supported")
					}
					evaluated = evaluated || i >= 0 && i < len(o.prefix) || o.rest != nil || o.m.s.v != a.m.s.v && o.unevalU != nil
				}
			}
			if !evaluated {
				parts = append(parts, part{s: *a.unevalU})
			}
		}
		return parts, nil
	}
	restParts, err := partsAt(-1)
	if err != nil {
		return nil, err
	}
	if len(containers) > 0 {
		if len(containers) > 1 || maxPrefix > 0 {
			return nil, c.unsupported(containers[0].contains.ptr, "contains together with prefixItems or another contains is not supported")
		}
		return c.containsExpr(containers[0], restParts, minI, maxI, ptr)
	}
	item, err := c.value(restParts, ptr+"/items")
	if err != nil {
		return nil, err
	}
	var prefix []*expr
	for i := 0; i < maxPrefix; i++ {
		parts, err := partsAt(i)
		if err != nil {
			return nil, err
		}
		e, err := c.value(parts, fmt.Sprintf("%s/prefixItems/%d", ptr, i))
		if err != nil {
			return nil, err
		}
		prefix = append(prefix, e)
	}
	k := len(prefix)
	hasMax := maxI >= 0
	// rest: items after the prefix, each preceded by a comma when k > 0.
	restMin, restMax := max(minI-k, 0), -1
	if hasMax {
		restMax = max(maxI-k, 0)
	}
	// A long bounded repeat calls one shared copy of the item from each
	// position (maxItems copies of an item's automaton, unrolled, made
	// maxItems 5000 of integers take seconds); a short one stays inlined
	// (no call frames in its states).
	unit := seq(c.comma, item)
	if restMax > 2 && restMax*exprSize(unit, nil, maxSharedRepeat) > maxSharedRepeat {
		unit = c.shared(unit)
	}
	var rest *expr
	if k > 0 {
		rest = rep(unit, restMin, restMax)
	} else {
		first := seq(item, rep(unit, max(restMin-1, 0), max(restMax-1, -1)))
		if restMax == 0 {
			first = nothingExpr
		}
		if restMin == 0 {
			first = opt(first)
		}
		rest = first
	}
	// Prefix items, the i-th optional once i >= minItems and capped by maxItems.
	body := rest
	for i := k - 1; i >= 0; i-- {
		if hasMax && i >= maxI {
			body = emptyExpr
			continue
		}
		sep := emptyExpr
		if i > 0 {
			sep = c.comma
		}
		e := seq(sep, prefix[i], body)
		if i >= minI {
			e = opt(e)
		}
		body = e
	}
	return seq(lit("["), c.ws, body, c.ws, lit("]")), nil
}

// containsExpr lowers an array with contains: the automaton counts the
// items matching the contains schema (hits) and all items.
func (c *schemaCompiler) containsExpr(a struct {
	m        member
	prefix   []sref
	rest     *sref
	contains *sref
	unevalU  *sref
}, restParts []part, minI, maxI int, ptr string) (*expr, error) {
	minC, maxC := 1, -1
	if a.m.s.doc.draft != 7 {
		var err error
		if minC, maxC, err = c.containsBounds(a.m.s); err != nil {
			return nil, err
		}
	}
	if maxC >= 0 && maxC < minC {
		return nothingExpr, nil
	}
	anyItem, err := c.value(restParts, ptr+"/items")
	if err != nil {
		return nil, err
	}
	hit, err := c.value(append(append([]part(nil), restParts...), part{s: *a.contains}), ptr+"/contains")
	if err != nil {
		return nil, err
	}
	var miss *expr
	if maxC >= 0 {
		if miss, err = c.value(append(append([]part(nil), restParts...), part{s: *a.contains, neg: true}), ptr+"/contains"); err != nil {
			return nil, err
		}
	}
	h := minC
	if maxC >= 0 {
		h = maxC
	}
	e := max(minI, 1)
	if maxI >= 0 {
		e = maxI
	}
	if (h+1)*(e+1) > maxObjectNodes {
		return nil, c.tooLarge(ptr, "contains counts need more than %d automaton nodes", maxObjectNodes)
	}
	count := e + 1
	gr := &graphExpr{n: (h+1)*count + 1, start: 0, end: (h + 1) * count}
	id := func(hits, n int) int { return hits*count + n }
	big := (h+1)*count > 4
	wrap := func(x *expr) (*expr, *expr) {
		first, later := x, seq(c.comma, x)
		if big {
			return c.shared(first), c.shared(later)
		}
		return first, later
	}
	anyF, anyL := wrap(anyItem)
	hitF, hitL := wrap(hit)
	var missF, missL *expr
	if miss != nil {
		missF, missL = wrap(miss)
	}
	for hits := 0; hits <= h; hits++ {
		for n := 0; n <= e; n++ {
			from := id(hits, n)
			nn := min(n+1, e)
			ok := true
			if maxI >= 0 {
				nn, ok = n+1, n+1 <= maxI
			}
			pick := func(f, l *expr) *expr {
				if n == 0 {
					return f
				}
				return l
			}
			if ok {
				if maxC < 0 {
					gr.edges = append(gr.edges, graphEdge{from: from, to: id(hits, nn), e: pick(anyF, anyL)},
						graphEdge{from: from, to: id(min(hits+1, h), nn), e: pick(hitF, hitL)})
				} else {
					gr.edges = append(gr.edges, graphEdge{from: from, to: id(hits, nn), e: pick(missF, missL)})
					if hits < maxC {
						gr.edges = append(gr.edges, graphEdge{from: from, to: id(hits+1, nn), e: pick(hitF, hitL)})
					}
				}
			}
			if hits >= minC && n >= minI {
				gr.edges = append(gr.edges, graphEdge{from: from, to: gr.end})
			}
		}
	}
	return seq(lit("["), c.ws, &expr{op: opGraph, graph: gr}, c.ws, lit("]")), nil
}

// stringPatterns collects the patterns (and asserted formats, as anchored
// patterns) the members of x put on strings.
func (c *schemaCompiler) stringPatterns(x conj) (srcs, ptrs []string) {
	for _, m := range x.pos {
		if p := m.s.v.get("pattern"); p != nil && p.kind == jString {
			srcs, ptrs = append(srcs, p.str), append(ptrs, m.s.ptr+"/pattern")
		}
		if f := m.s.v.get("format"); f != nil && f.kind == jString && !c.opts.Spec {
			if re, ok := formatRegexes[f.str]; ok {
				srcs, ptrs = append(srcs, "^(?:"+re+")$"), append(ptrs, m.s.ptr+"/format")
			}
		}
	}
	return srcs, ptrs
}

// str lowers the strings of alternative x, minus those negs allow.
func (c *schemaCompiler) str(x conj, negs []conj, ptr string) (*expr, error) {
	minL, maxL, err := c.bounds(x, "minLength", "maxLength")
	if err != nil {
		return nil, err
	}
	if maxL >= 0 && maxL < minL {
		return c.conflict(x, "maxLength", minL, maxL), nil
	}
	q := c.opts.Dialect.Quote
	open := `"`
	if q != "" {
		open = q
	}
	srcs, ptrs := c.stringPatterns(x)
	var content *expr
	switch {
	case len(negs) > 0 || len(srcs) > 1 || len(srcs) == 1 && (minL > 0 || maxL >= 0):
		langs, err := c.stringLangsNoLength(x)
		if err != nil {
			return nil, err
		}
		var negLangs []*expr
		for _, a := range negs {
			l, err := c.stringLangs(a)
			if err != nil {
				return nil, err
			}
			d, err := c.textDFA(l, nil, ptr)
			if err != nil {
				return nil, err
			}
			negLangs = append(negLangs, d.expr())
		}
		d, err := c.textDFA(langs, negLangs, ptr)
		if err != nil {
			return nil, err
		}
		e := d.expr()
		if minL > 0 || maxL >= 0 {
			var ok bool
			if e, ok = withLength(d, minL, maxL); !ok {
				return nil, c.tooLarge(ptr, "a pattern with a length needs more than %d automaton states", maxDFAStates)
			}
		}
		content = c.spellContent(e)
	case len(srcs) == 1:
		e, err := c.pattern(srcs[0], ptrs[0])
		if err != nil {
			return nil, err
		}
		if q != "" {
			content = withoutByte(e, q[0], map[*expr]*expr{})
		} else {
			content = escapeJSON(e, map[*expr]*expr{})
		}
	case q != "" && minL == 0 && maxL < 0:
		content = textAvoiding([]string{q})
	case maxL < 0:
		content = rep(c.char, minL, maxL)
	default:
		// Bounded: every position calls one shared copy of the character
		// (maxLength copies of its UTF-8 and escape nodes made most of
		// the automaton).
		if c.charRule == nil {
			c.charRule = c.shared(c.char)
		}
		content = rep(c.charRule, minL, maxL)
	}
	return seq(lit(open), content, lit(open)), nil
}

// interval reads the numeric bounds of one member (draft-04 boolean
// exclusive flags included).
func (c *schemaCompiler) interval(s sref) (interval, error) {
	var iv interval
	if s.v.kind != jObject {
		return iv, nil
	}
	for _, b := range []struct {
		key          string
		lower, exclu bool
	}{{"minimum", true, false}, {"exclusiveMinimum", true, true}, {"maximum", false, false}, {"exclusiveMaximum", false, true}} {
		v := s.v.get(b.key)
		if v == nil || v.kind == jBool {
			continue
		}
		r, ok := ratOf(v)
		if !ok {
			return iv, c.errf(s.ptr+"/"+b.key, ErrSyntax, "%s must be a number", b.key)
		}
		open := b.exclu
		if !open {
			if e := s.v.get("exclusive" + strings.ToUpper(b.key[:1]) + b.key[1:]); e != nil && e.kind == jBool && e.b {
				open = true
			}
		}
		if b.lower {
			iv = iv.intersect(interval{lo: r, loOpen: open})
		} else {
			iv = iv.intersect(interval{hi: r, hiOpen: open})
		}
	}
	return iv, nil
}

// maxMultiples bounds the multiples of multipleOf listed for a bounded range.
const maxMultiples = 1024

func (c *schemaCompiler) number(x conj, types int, negs []sref) (*expr, error) {
	iv := interval{}
	var mult *big.Rat
	multPtr := ""
	for _, m := range x.pos {
		i, err := c.interval(m.s)
		if err != nil {
			return nil, err
		}
		iv = iv.intersect(i)
		if mv := m.s.v.get("multipleOf"); mv != nil {
			r, ok := ratOf(mv)
			if !ok || r.Sign() <= 0 {
				return nil, c.errf(m.s.ptr+"/multipleOf", ErrSyntax, "multipleOf must be a positive number")
			}
			multPtr = m.s.ptr + "/multipleOf"
			if mult == nil {
				mult = r
			} else { // lcm(a/b, c/d) = lcm(a, c) / gcd(b, d)
				g := new(big.Int).GCD(nil, nil, mult.Num(), r.Num())
				l := new(big.Int).Mul(mult.Num(), new(big.Int).Quo(r.Num(), g))
				mult = new(big.Rat).SetFrac(l, new(big.Int).GCD(nil, nil, mult.Denom(), r.Denom()))
			}
		}
	}
	var ivs []interval
	if !iv.empty() {
		ivs = []interval{iv}
	}
	var intCuts []interval // integers to remove from a number range
	for _, n := range negs {
		alts, err := c.expand(n, nil, map[*jvalue]bool{})
		if err != nil {
			return nil, err
		}
		for _, a := range alts {
			var cut []interval
			if lits, ok := c.conjLiterals(a); ok {
				for _, l := range lits {
					if r, ok := ratOf(l); ok {
						if ok, err := c.validConj(l, conj{pos: a.pos}); err != nil || !ok {
							continue
						}
						cut = append(cut, interval{lo: r, hi: r})
					}
				}
			} else {
				ai := interval{}
				for _, m := range a.pos {
					if m.s.v.get("multipleOf") != nil {
						return nil, c.unsupported(m.s.ptr+"/multipleOf", "not: excluding multiples is not supported")
					}
					i, err := c.interval(m.s)
					if err != nil {
						return nil, err
					}
					ai = ai.intersect(i)
				}
				if at := c.conjTypes(a) & tNumber; at == tInteger && types != tInteger {
					intCuts = append(intCuts, ai) // integers in ai, leaving fractions
					continue
				} else if at != tNumber && at != tInteger {
					return nil, c.unsupported(n.ptr, "not: excluding non-integers is not supported")
				}
				cut = []interval{ai}
			}
			for _, ci := range cut {
				var next []interval
				for _, i := range ivs {
					next = append(next, i.subtract(ci)...)
				}
				ivs = next
			}
		}
	}
	integer := types == tInteger
	if types == tFraction {
		intCuts = append(intCuts, interval{})
	}
	if mult != nil {
		if len(intCuts) > 0 {
			return nil, c.unsupported(multPtr, "multipleOf with not integer is not supported")
		}
		return c.multiples(ivs, mult, integer, multPtr)
	}
	var alts []*expr
	for _, i := range ivs {
		if i.lo == nil && i.hi == nil && len(intCuts) == 0 {
			if integer {
				e, _ := rangeExpr(i, true, c.opts.Spec)
				alts = append(alts, e)
			} else {
				alts = append(alts, jsonNumber())
			}
			continue
		}
		e, ok := rangeExpr(i, integer, c.opts.Spec)
		if !ok {
			return nil, c.unsupported(x.pos[0].s.ptr, "a numeric bound beyond %d integer or %d fraction digits is not supported", maxIntDigits, maxFracDigits)
		}
		alts = append(alts, e)
	}
	if len(intCuts) > 0 { // numbers minus some integers, by automaton
		var cuts []*expr
		for _, ci := range intCuts {
			e, ok := rangeExpr(ci, true, true)
			if !ok {
				return nil, c.unsupported(x.pos[0].s.ptr, "a numeric bound beyond %d integer digits is not supported", maxIntDigits)
			}
			cuts = append(cuts, e)
		}
		d, ok := langOp(alt(alts...), nil, cuts, nil)
		if !ok {
			return nil, c.tooLarge(x.pos[0].s.ptr, "a number range needs more than %d automaton states", maxDFAStates)
		}
		return d.expr(), nil
	}
	return alt(alts...), nil
}

// multiples matches the multiples of m: listed one by one in bounded
// ranges, or recognised digit by digit (remainder automaton) when unbounded.
func (c *schemaCompiler) multiples(ivs []interval, m *big.Rat, integer bool, ptr string) (*expr, error) {
	var alts []*expr
	for _, iv := range ivs {
		if iv.lo == nil && iv.hi == nil {
			e, err := c.multiplesAll(m, integer, ptr)
			if err != nil {
				return nil, err
			}
			alts = append(alts, e)
			continue
		}
		if iv.lo == nil || iv.hi == nil || c.manyMultiples(iv, m) {
			// The multiples automaton run together with the range's.
			all, err := c.multiplesAll(m, integer, ptr)
			if err != nil {
				return nil, err
			}
			r, ok := rangeExpr(iv, integer, c.opts.Spec)
			if !ok {
				return nil, c.unsupported(ptr, "a numeric bound beyond %d integer or %d fraction digits is not supported", maxIntDigits, maxFracDigits)
			}
			d, ok := langOp(all, []*expr{r}, nil, nil)
			if !ok {
				return nil, c.tooLarge(ptr, "multipleOf in a range needs more than %d automaton states", maxDFAStates)
			}
			alts = append(alts, d.expr())
			continue
		}
		// k from ceil(lo/m) to floor(hi/m).
		lo := new(big.Rat).Quo(iv.lo, m)
		hi := new(big.Rat).Quo(iv.hi, m)
		k := new(big.Int).Quo(lo.Num(), lo.Denom())
		if new(big.Rat).SetInt(k).Cmp(lo) < 0 {
			k.Add(k, big.NewInt(1))
		}
		kmax := new(big.Int).Quo(hi.Num(), hi.Denom())
		if lo.Sign() < 0 && !lo.IsInt() {
			k.Sub(k, big.NewInt(1)) // Quo truncates toward zero
			if new(big.Rat).SetInt(k).Cmp(lo) < 0 {
				k.Add(k, big.NewInt(1))
			}
		}
		if hi.Sign() < 0 && !hi.IsInt() {
			kmax.Sub(kmax, big.NewInt(1))
		}
		for ; k.Cmp(kmax) <= 0; k.Add(k, big.NewInt(1)) {
			v := new(big.Rat).Mul(new(big.Rat).SetInt(k), m)
			if !iv.contains(v) {
				continue
			}
			e, ok := c.numLiteral(v)
			if !ok {
				return nil, c.unsupported(ptr, "multipleOf value %s has too many digits", v.FloatString(maxFracDigits))
			}
			alts = append(alts, e)
		}
	}
	return alt(alts...), nil
}

// manyMultiples reports whether the bounded range iv holds more than
// maxMultiples multiples of m (too many to list).
func (c *schemaCompiler) manyMultiples(iv interval, m *big.Rat) bool {
	span := new(big.Rat).Quo(new(big.Rat).Sub(iv.hi, iv.lo), m)
	return span.Cmp(big.NewRat(maxMultiples, 1)) > 0
}

// maxRemainderNodes bounds the remainder automaton of an unbounded multipleOf.
const maxRemainderNodes = 1 << 15

// multiplesAll matches every number without exponent that is a multiple of
// m = a / 10^k: read without its dot and padded to k fraction digits, its
// digits are a multiple of a (a remainder automaton, like a DFA for
// divisibility). integer keeps integral values (fraction digits all zero).
func (c *schemaCompiler) multiplesAll(m *big.Rat, integer bool, ptr string) (*expr, error) {
	k := 0
	scaled := new(big.Rat).Set(m)
	for !scaled.IsInt() {
		if k >= maxFracDigits {
			return nil, c.unsupported(ptr, "multipleOf %s has more than %d fraction digits", m.RatString(), maxFracDigits)
		}
		scaled.Mul(scaled, big.NewRat(10, 1))
		k++
	}
	if !scaled.Num().IsInt64() || scaled.Num().Int64()*int64(maxFracDigits+3) > maxRemainderNodes {
		return nil, c.unsupported(ptr, "multipleOf %s needs more than %d automaton nodes", m.RatString(), maxRemainderNodes)
	}
	a := int(scaled.Num().Int64())
	// Nodes: phase p, remainder r at p*a+r. Phase 0: integer digits; 1: just
	// after the dot; 2..maxFracDigits+1: after p-1 fraction digits.
	phases := maxFracDigits + 2
	start, zero, end := phases*a, phases*a+1, phases*a+2
	g := &graphExpr{n: phases*a + 3, start: start, end: end}
	id := func(p, r int) int { return p*a + r }
	edge := func(from, to int, e *expr) { g.edges = append(g.edges, graphEdge{from: from, to: to, e: e}) }
	edge(start, zero, lit("0"))
	if !integer || c.opts.Spec {
		edge(zero, id(1, 0), lit("."))
	}
	pow := func(r, n int) int { // r * 10^n mod a
		for ; n > 0; n-- {
			r = r * 10 % a
		}
		return r
	}
	if pow(0, k) == 0 {
		edge(zero, end, nil)
	}
	for d := 1; d <= 9; d++ {
		edge(start, id(0, d%a), lit(strconv.Itoa(d)))
	}
	for r := 0; r < a; r++ {
		for d := 0; d <= 9; d++ {
			edge(id(0, r), id(0, (r*10+d)%a), lit(strconv.Itoa(d)))
		}
		if !integer || c.opts.Spec {
			edge(id(0, r), id(1, r), lit("."))
		}
		if pow(r, k) == 0 {
			edge(id(0, r), end, nil)
		}
		for p := 1; p < phases-1; p++ { // fraction digit number p
			j := p // digits written after this one
			for d := 0; d <= 9; d++ {
				if integer && (d != 0 || !c.opts.Spec) {
					continue
				}
				to := (r*10 + d) % a
				if j > k {
					if d != 0 {
						continue
					}
					to = r // digits past 10^-k must be zero
				}
				edge(id(p, r), id(p+1, to), lit(strconv.Itoa(d)))
			}
			if p > 1 && pow(r, max(k-(p-1), 0)) == 0 {
				edge(id(p, r), end, nil)
			}
		}
		if pow(r, 0) == 0 {
			edge(id(phases-1, r), end, nil)
		}
	}
	return seq(opt(lit("-")), &expr{op: opGraph, graph: g}), nil
}

// regexSyntaxUnsupported reports parse errors that come from ECMA-262
// features RE2 lacks (lookaround, backreferences), not from a bad pattern.
func regexSyntaxUnsupported(src string) bool {
	_, err := syntax.Parse(src, syntax.Perl)
	se, ok := err.(*syntax.Error)
	return ok && (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidEscape || se.Code == syntax.ErrInvalidNamedCapture)
}
