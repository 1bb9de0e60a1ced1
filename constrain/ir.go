package constrain

// op is the kind of an intermediate-representation expression.
type op uint8

const (
	opEmpty   op = iota // matches the empty string
	opNothing           // matches nothing
	opBytes             // one byte in [lo, hi]
	opSeq               // concatenation of subs
	opAlt               // alternation of subs
	opRepeat            // subs[0] repeated min..max times (max < 0: unbounded)
	opRef               // reference to rule `rule`
	opGraph             // explicit automaton whose edges are expressions
)

// expr is a node of the intermediate representation shared by all front ends.
// Expressions may be shared (a DAG); the compiler expands them as trees.
type expr struct {
	op       op
	lo, hi   byte
	subs     []*expr
	min, max int
	rule     int
	graph    *graphExpr
}

// graphExpr is a small automaton with nodes 0..n-1 whose edges are labelled
// with expressions (nil = epsilon). It expresses constructs such as "object
// properties, each optional, comma separated" without exponential blowup.
type graphExpr struct {
	n, start, end int
	edges         []graphEdge
}

type graphEdge struct {
	from, to int
	e        *expr
}

var (
	emptyExpr   = &expr{op: opEmpty}
	nothingExpr = &expr{op: opNothing}
)

func byteRange(lo, hi byte) *expr { return &expr{op: opBytes, lo: lo, hi: hi} }

func lit(s string) *expr {
	switch len(s) {
	case 0:
		return emptyExpr
	case 1:
		return byteRange(s[0], s[0])
	}
	subs := make([]*expr, len(s))
	for i := 0; i < len(s); i++ {
		subs[i] = byteRange(s[i], s[i])
	}
	return &expr{op: opSeq, subs: subs}
}

func seq(subs ...*expr) *expr {
	out := make([]*expr, 0, len(subs))
	for _, s := range subs {
		switch s.op {
		case opEmpty:
			continue
		case opNothing:
			return nothingExpr
		case opSeq:
			out = append(out, s.subs...)
		default:
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return emptyExpr
	case 1:
		return out[0]
	}
	return &expr{op: opSeq, subs: out}
}

func alt(subs ...*expr) *expr {
	out := make([]*expr, 0, len(subs))
	for _, s := range subs {
		switch s.op {
		case opNothing:
			continue
		case opAlt:
			out = append(out, s.subs...)
		default:
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return nothingExpr
	case 1:
		return out[0]
	}
	return &expr{op: opAlt, subs: out}
}

func rep(e *expr, lo, hi int) *expr {
	if hi >= 0 && hi < lo {
		return nothingExpr
	}
	if hi == 0 || e.op == opEmpty {
		return emptyExpr
	}
	if lo == 1 && hi == 1 {
		return e
	}
	if e.op == opNothing {
		if lo == 0 {
			return emptyExpr
		}
		return nothingExpr
	}
	return &expr{op: opRepeat, subs: []*expr{e}, min: lo, max: hi}
}

func opt(e *expr) *expr  { return rep(e, 0, 1) }
func star(e *expr) *expr { return rep(e, 0, -1) }
func plus(e *expr) *expr { return rep(e, 1, -1) }
func ref(rule int) *expr { return &expr{op: opRef, rule: rule} }

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

// runeClass returns an expression matching the UTF-8 encoding of any code
// point in the given ranges (surrogates excluded).
func runeClass(ranges []runeRange) *expr {
	var alts []*expr
	// Merge ASCII single bytes into few byte ranges first.
	for _, r := range ranges {
		lo, hi := r.lo, r.hi
		if lo < 0 {
			lo = 0
		}
		if hi > 0x10FFFF {
			hi = 0x10FFFF
		}
		if lo > hi {
			continue
		}
		// Exclude surrogates.
		if lo <= 0xDFFF && hi >= 0xD800 {
			if lo < 0xD800 {
				alts = appendUTF8Range(alts, lo, 0xD7FF)
			}
			if hi > 0xDFFF {
				alts = appendUTF8Range(alts, 0xE000, hi)
			}
			continue
		}
		alts = appendUTF8Range(alts, lo, hi)
	}
	return alt(alts...)
}

var utf8Bounds = [...]rune{0x7F, 0x7FF, 0xFFFF, 0x10FFFF}

// appendUTF8Range appends byte-sequence expressions covering [lo, hi].
func appendUTF8Range(out []*expr, lo, hi rune) []*expr {
	for i, b := range utf8Bounds {
		start := rune(0)
		if i > 0 {
			start = utf8Bounds[i-1] + 1
		}
		l, h := max(lo, start), min(hi, b)
		if l <= h {
			out = splitUTF8(out, l, h, i+1)
		}
	}
	return out
}

// splitUTF8 splits [lo, hi] (same encoded length n) into ranges where every
// byte position spans a contiguous range, as in RE2's UTF-8 compiler.
func splitUTF8(out []*expr, lo, hi rune, n int) []*expr {
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*uint(i)) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				out = splitUTF8(out, lo, lo|m, n)
				return splitUTF8(out, (lo|m)+1, hi, n)
			}
			if hi&m != m {
				out = splitUTF8(out, lo, (hi&^m)-1, n)
				return splitUTF8(out, hi&^m, hi, n)
			}
		}
	}
	a, b := encodeRune(lo, n), encodeRune(hi, n)
	subs := make([]*expr, n)
	for i := 0; i < n; i++ {
		subs[i] = byteRange(a[i], b[i])
	}
	if n == 1 {
		return append(out, subs[0])
	}
	return append(out, &expr{op: opSeq, subs: subs})
}

func encodeRune(r rune, n int) []byte {
	switch n {
	case 1:
		return []byte{byte(r)}
	case 2:
		return []byte{0xC0 | byte(r>>6), 0x80 | byte(r)&0x3F}
	case 3:
		return []byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F}
	default:
		return []byte{0xF0 | byte(r>>18), 0x80 | byte(r>>12)&0x3F, 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F}
	}
}

// anyChar matches any valid UTF-8 encoded code point.
func anyChar() *expr { return runeClass([]runeRange{{0, 0x10FFFF}}) }

// exprSize estimates the number of automaton nodes an expression expands to,
// saturating at limit.
func exprSize(e *expr, inlineSize func(rule int) int, limit int) int {
	var n int
	switch e.op {
	case opEmpty, opNothing, opBytes:
		return 1
	case opRef:
		if inlineSize != nil {
			return inlineSize(e.rule)
		}
		return 1
	case opSeq, opAlt:
		n = 1
		for _, s := range e.subs {
			n += exprSize(s, inlineSize, limit)
			if n >= limit {
				return limit
			}
		}
	case opRepeat:
		s := exprSize(e.subs[0], inlineSize, limit)
		k := e.max
		if k < 0 {
			k = e.min + 1
		}
		if k == 0 {
			k = 1
		}
		if s > limit/k {
			return limit
		}
		n = s*k + k + 1
	case opGraph:
		n = e.graph.n
		for _, ed := range e.graph.edges {
			if ed.e != nil {
				n += exprSize(ed.e, inlineSize, limit)
				if n >= limit {
					return limit
				}
			}
		}
	}
	return min(n, limit)
}
