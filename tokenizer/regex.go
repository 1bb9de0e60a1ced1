package tokenizer

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// This file is a small backtracking regex engine with the semantics of
// libstdc++'s std::regex in ECMAScript mode (the one llama.cpp's
// unicode_regex_split_stl runs): ordered alternation, greedy quantifiers
// with backtracking, lookahead, and the "C" locale's ASCII-only \s, \d and
// \w. It runs over a subject of int32 characters: llama.cpp's collapsed
// text (one byte per code point) or its wide text (code points, non-ASCII
// whitespace replaced by \v). Pre-tokenizers that no hand-written splitter
// covers are run by it, so adding one is a regex string in the table in
// pretok.go.

// Limits on a pattern (the patterns are data compiled at load).
const (
	maxPatternLen  = 8 << 10
	maxProgramLen  = 1 << 16
	maxRepeatCount = 1024
	maxPatternNest = 64
)

// reClass is a bracket expression or a class escape.
type reClass struct {
	neg    bool
	bits   [4]uint64  // members below 256
	ranges [][2]int32 // members from 256 up
}

func (c *reClass) addRange(lo, hi int32) {
	for ; lo <= hi && lo < 256; lo++ {
		c.bits[lo>>6] |= 1 << (lo & 63)
	}
	if lo <= hi {
		c.ranges = append(c.ranges, [2]int32{lo, hi})
	}
}

func (c *reClass) has(x int32) bool {
	in := false
	if x >= 0 && x < 256 {
		in = c.bits[x>>6]&(1<<(x&63)) != 0
	} else {
		for _, r := range c.ranges {
			if x >= r[0] && x <= r[1] {
				in = true
				break
			}
		}
	}
	return in != c.neg
}

// union adds the members of d (which must not be negated) to c.
func (c *reClass) union(d *reClass) {
	for i := range c.bits {
		c.bits[i] |= d.bits[i]
	}
	c.ranges = append(c.ranges, d.ranges...)
}

// escapeClass returns the class of \d, \s or \w (and their negations) in the
// "C" locale: ASCII only.
func escapeClass(e byte) *reClass {
	c := &reClass{}
	switch e | 0x20 {
	case 'd':
		c.addRange('0', '9')
	case 's':
		c.addRange('\t', '\r')
		c.addRange(' ', ' ')
	case 'w':
		c.addRange('0', '9')
		c.addRange('A', 'Z')
		c.addRange('a', 'z')
		c.addRange('_', '_')
	default:
		return nil
	}
	c.neg = e >= 'A' && e <= 'Z'
	return c
}

// Regex syntax tree.
type reNode struct {
	op       reOp
	c        int32
	cls      *reClass
	subs     []*reNode
	min, max int // repeat; max -1: unbounded
	neg      bool
}

type reOp uint8

const (
	nLit reOp = iota
	nClass
	nAny
	nCat
	nAlt
	nRepeat
	nLook
	nEnd
	nBegin
	nWordB
)

type reParser struct {
	src  []rune
	pos  int
	wide bool
	nest int
}

func (p *reParser) errorf(format string, args ...any) error {
	return fmt.Errorf("regex %q at %d: %s", string(p.src), p.pos, fmt.Sprintf(format, args...))
}

func (p *reParser) more() bool { return p.pos < len(p.src) }
func (p *reParser) peek() rune { return p.src[p.pos] }

func (p *reParser) alt() (*reNode, error) {
	if p.nest++; p.nest > maxPatternNest {
		return nil, p.errorf("nested too deeply")
	}
	defer func() { p.nest-- }()
	var alts []*reNode
	for {
		cat, err := p.cat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, cat)
		if !p.more() || p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &reNode{op: nAlt, subs: alts}, nil
}

func (p *reParser) cat() (*reNode, error) {
	n := &reNode{op: nCat}
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		a, err := p.atom()
		if err != nil {
			return nil, err
		}
		if a, err = p.quant(a); err != nil {
			return nil, err
		}
		n.subs = append(n.subs, a)
	}
	return n, nil
}

func (p *reParser) quant(a *reNode) (*reNode, error) {
	for p.more() {
		min, max := 0, 0
		switch p.peek() {
		case '*':
			min, max = 0, -1
			p.pos++
		case '+':
			min, max = 1, -1
			p.pos++
		case '?':
			min, max = 0, 1
			p.pos++
		case '{':
			p.pos++
			var err error
			if min, err = p.number(); err != nil {
				return nil, err
			}
			max = min
			if p.more() && p.peek() == ',' {
				p.pos++
				max = -1
				if p.more() && p.peek() != '}' {
					if max, err = p.number(); err != nil {
						return nil, err
					}
				}
			}
			if !p.more() || p.peek() != '}' {
				return nil, p.errorf("unterminated {")
			}
			p.pos++
			if max >= 0 && max < min {
				return nil, p.errorf("bad repeat {%d,%d}", min, max)
			}
		default:
			return a, nil
		}
		if p.more() && p.peek() == '?' {
			return nil, p.errorf("lazy quantifiers are not supported")
		}
		if a.op == nLook || a.op == nEnd || a.op == nBegin || a.op == nWordB {
			return nil, p.errorf("quantified assertion")
		}
		a = &reNode{op: nRepeat, subs: []*reNode{a}, min: min, max: max}
	}
	return a, nil
}

func (p *reParser) number() (int, error) {
	start := p.pos
	for p.more() && p.peek() >= '0' && p.peek() <= '9' {
		p.pos++
	}
	v, err := strconv.Atoi(string(p.src[start:p.pos]))
	if err != nil || v > maxRepeatCount {
		return 0, p.errorf("bad repeat count")
	}
	return v, nil
}

func (p *reParser) atom() (*reNode, error) {
	c := p.peek()
	p.pos++
	switch c {
	case '(':
		look, neg := false, false
		if p.pos+1 < len(p.src) && p.src[p.pos] == '?' {
			switch p.src[p.pos+1] {
			case ':':
			case '=':
				look = true
			case '!':
				look, neg = true, true
			default:
				return nil, p.errorf("unsupported group (?%c", p.src[p.pos+1])
			}
			p.pos += 2
		}
		n, err := p.alt()
		if err != nil {
			return nil, err
		}
		if !p.more() || p.peek() != ')' {
			return nil, p.errorf("missing )")
		}
		p.pos++
		if look {
			return &reNode{op: nLook, subs: []*reNode{n}, neg: neg}, nil
		}
		return n, nil
	case '[':
		return p.bracket()
	case '.':
		return &reNode{op: nAny}, nil
	case '$':
		return &reNode{op: nEnd}, nil
	case '^':
		return &reNode{op: nBegin}, nil
	case '\\':
		if !p.more() {
			return nil, p.errorf("trailing \\")
		}
		e := p.peek()
		if e == 'b' || e == 'B' {
			p.pos++
			return &reNode{op: nWordB, neg: e == 'B'}, nil
		}
		if e < 128 {
			if cls := escapeClass(byte(e)); cls != nil {
				p.pos++
				return &reNode{op: nClass, cls: cls}, nil
			}
		}
		v, err := p.escapeChar()
		if err != nil {
			return nil, err
		}
		return &reNode{op: nLit, c: v}, nil
	case '*', '+', '?', '{':
		return nil, p.errorf("nothing to repeat")
	}
	return &reNode{op: nLit, c: c}, nil
}

// escapeChar reads the character of an escape (after the backslash).
func (p *reParser) escapeChar() (int32, error) {
	e := p.peek()
	p.pos++
	switch e {
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'f':
		return '\f', nil
	case '0':
		return 0, nil
	case 'x', 'u':
		n := 2
		if e == 'u' {
			n = 4
		}
		if p.pos+n > len(p.src) {
			return 0, p.errorf("short \\%c escape", e)
		}
		v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+n]), 16, 32)
		if err != nil {
			return 0, p.errorf("bad \\%c escape", e)
		}
		p.pos += n
		return int32(v), nil
	case 'p', 'P':
		return 0, p.errorf("unicode property escapes are not supported by std::regex")
	}
	return e, nil // identity escape
}

func (p *reParser) bracket() (*reNode, error) {
	cls := &reClass{}
	if p.more() && p.peek() == '^' {
		cls.neg = true
		p.pos++
	}
	first := true
	for {
		if !p.more() {
			return nil, p.errorf("missing ]")
		}
		c := p.peek()
		if c == ']' && !first {
			p.pos++
			break
		}
		first = false
		p.pos++
		lo := c
		if c == '\\' {
			if !p.more() {
				return nil, p.errorf("trailing \\")
			}
			if e := p.peek(); e < 128 {
				if esc := escapeClass(byte(e)); esc != nil {
					if esc.neg {
						return nil, p.errorf("negated class escape in brackets")
					}
					p.pos++
					cls.union(esc)
					continue
				}
			}
			v, err := p.escapeChar()
			if err != nil {
				return nil, err
			}
			lo = v
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.peek() == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			h := p.peek()
			p.pos++
			if h == '\\' {
				if !p.more() {
					return nil, p.errorf("trailing \\")
				}
				v, err := p.escapeChar()
				if err != nil {
					return nil, err
				}
				h = v
			}
			if h < lo {
				return nil, p.errorf("bad range %q-%q", lo, h)
			}
			hi = h
		}
		cls.addRange(lo, hi)
	}
	return &reNode{op: nClass, cls: cls}, nil
}

// Program.
type reInst struct {
	op    instOp
	x, y  int32 // jump targets
	c     int32
	cls   *reClass
	sub   *reProg
	guard *charSet // iSplit: x is taken only when the next character is in guard (nil: always)
}

type instOp uint8

const (
	iChar instOp = iota
	iClass
	iAny
	iSplit // try x, then y
	iJmp
	iLook // sub must (neg: must not) match here
	iNotLook
	iEnd
	iBegin
	iWordB
	iNotWordB
	iMatch
	iPeek    // the next character is in cls
	iNotPeek // there is no next character in cls
)

// singleClass returns the class when n matches exactly one character of
// it, else nil.
func singleClass(n *reNode) *reClass {
	for n.op == nCat && len(n.subs) == 1 {
		n = n.subs[0]
	}
	switch n.op {
	case nClass:
		return n.cls
	case nLit:
		c := &reClass{}
		c.addRange(n.c, n.c)
		return c
	}
	return nil
}

// reProg is a compiled pattern.
type reProg struct {
	inst     []reInst
	first    *charSet // characters that can start a match (when not nullable)
	nullable bool
}

// compileRegex compiles pattern for the given subject encoding.
func compileRegex(pattern string) (*reProg, error) {
	if len(pattern) > maxPatternLen || !utf8.ValidString(pattern) {
		return nil, fmt.Errorf("regex too long or not UTF-8 (%d bytes)", len(pattern))
	}
	p := &reParser{src: []rune(pattern)}
	n, err := p.alt()
	if err != nil {
		return nil, err
	}
	if p.more() {
		return nil, p.errorf("unbalanced )")
	}
	return buildProg(n)
}

func buildProg(n *reNode) (*reProg, error) {
	c := &reCompiler{}
	if err := c.emit(n); err != nil {
		return nil, err
	}
	c.add(reInst{op: iMatch})
	prog := &reProg{inst: c.prog}
	prog.first, prog.nullable = firstSet(n)
	return prog, nil
}

type reCompiler struct{ prog []reInst }

func (c *reCompiler) add(in reInst) int32 {
	c.prog = append(c.prog, in)
	return int32(len(c.prog) - 1)
}

func (c *reCompiler) emit(n *reNode) error {
	if len(c.prog) > maxProgramLen {
		return fmt.Errorf("regex program longer than %d instructions", maxProgramLen)
	}
	switch n.op {
	case nLit:
		c.add(reInst{op: iChar, c: n.c})
	case nClass:
		c.add(reInst{op: iClass, cls: n.cls})
	case nAny:
		c.add(reInst{op: iAny})
	case nEnd:
		c.add(reInst{op: iEnd})
	case nBegin:
		c.add(reInst{op: iBegin})
	case nWordB:
		op := iWordB
		if n.neg {
			op = iNotWordB
		}
		c.add(reInst{op: op})
	case nCat:
		for _, s := range n.subs {
			if err := c.emit(s); err != nil {
				return err
			}
		}
	case nAlt:
		var jmps []int32
		for i, s := range n.subs {
			if i < len(n.subs)-1 {
				split := c.add(reInst{op: iSplit, guard: guardOf(s)})
				c.prog[split].x = split + 1
				if err := c.emit(s); err != nil {
					return err
				}
				jmps = append(jmps, c.add(reInst{op: iJmp}))
				c.prog[split].y = int32(len(c.prog))
			} else if err := c.emit(s); err != nil {
				return err
			}
		}
		for _, j := range jmps {
			c.prog[j].x = int32(len(c.prog))
		}
	case nLook:
		if cls := singleClass(n.subs[0]); cls != nil { // (?=[..]) and (?!\S): peek one character
			op := iPeek
			if n.neg {
				op = iNotPeek
			}
			c.add(reInst{op: op, cls: cls})
			return nil
		}
		sub, err := buildProg(n.subs[0])
		if err != nil {
			return err
		}
		op := iLook
		if n.neg {
			op = iNotLook
		}
		c.add(reInst{op: op, sub: sub})
	case nRepeat:
		body := n.subs[0]
		if _, nullable := firstSet(body); nullable && n.max != n.min {
			return fmt.Errorf("regex: a repeated group that can match empty is not supported")
		}
		for i := 0; i < n.min; i++ {
			if err := c.emit(body); err != nil {
				return err
			}
		}
		switch {
		case n.max < 0: // star: L: split(body, out); body; jmp L
			split := c.add(reInst{op: iSplit, guard: guardOf(body)})
			c.prog[split].x = split + 1
			if err := c.emit(body); err != nil {
				return err
			}
			c.add(reInst{op: iJmp, x: split})
			c.prog[split].y = int32(len(c.prog))
		default: // (body(body(...)?)?)? for max-min optional copies
			var splits []int32
			for i := n.min; i < n.max; i++ {
				split := c.add(reInst{op: iSplit, guard: guardOf(body)})
				c.prog[split].x = split + 1
				splits = append(splits, split)
				if err := c.emit(body); err != nil {
					return err
				}
			}
			for _, s := range splits {
				c.prog[s].y = int32(len(c.prog))
			}
		}
	}
	return nil
}

// guardOf is the guard of a split into n: its first set, or nil when n
// can match empty.
func guardOf(n *reNode) *charSet {
	if f, nullable := firstSet(n); !nullable {
		return f
	}
	return nil
}

// charSet is a superset of the characters that can start a match: exact
// below 256, and one bit for everything from 256 up.
type charSet struct {
	bits [4]uint64
	high bool
}

func (c *charSet) has(x int32) bool {
	if x >= 0 && x < 256 {
		return c.bits[x>>6]&(1<<(x&63)) != 0
	}
	return c.high
}

func (c *charSet) union(d *charSet) {
	for i := range c.bits {
		c.bits[i] |= d.bits[i]
	}
	c.high = c.high || d.high
}

func anySet() *charSet {
	return &charSet{bits: [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, high: true}
}

// firstSet returns a superset of the characters that can start a match of
// n, and whether n can match the empty string (then any character may
// follow and the set does not restrict where a match starts).
func firstSet(n *reNode) (*charSet, bool) {
	switch n.op {
	case nLit:
		c := &charSet{}
		if n.c >= 0 && n.c < 256 {
			c.bits[n.c>>6] |= 1 << (n.c & 63)
		} else {
			c.high = true
		}
		return c, false
	case nClass:
		c := &charSet{bits: n.cls.bits, high: len(n.cls.ranges) > 0}
		if n.cls.neg {
			for i := range c.bits {
				c.bits[i] = ^c.bits[i]
			}
			c.high = true
		}
		return c, false
	case nAny:
		return anySet(), false
	case nEnd, nBegin, nWordB, nLook:
		return &charSet{}, true
	case nCat:
		acc := &charSet{}
		for _, s := range n.subs {
			f, nullable := firstSet(s)
			acc.union(f)
			if !nullable {
				return acc, false
			}
		}
		return acc, true
	case nAlt:
		acc := &charSet{}
		anyNull := false
		for _, s := range n.subs {
			f, nullable := firstSet(s)
			acc.union(f)
			anyNull = anyNull || nullable
		}
		return acc, anyNull
	case nRepeat:
		f, nullable := firstSet(n.subs[0])
		return f, nullable || n.min == 0
	}
	return anySet(), true
}

// reMatcher holds the backtracking stacks of one running split.
type reMatcher struct {
	stack [][]int32 // per lookahead depth
}

// matchAt runs prog anchored at pos over subj[begin:end] and returns the
// end of the first match in ECMAScript order, or -1. With notNull an empty
// match does not count.
func (m *reMatcher) matchAt(prog *reProg, subj []int32, begin, pos, end int, notNull bool, depth int) int {
	if depth >= len(m.stack) {
		m.stack = append(m.stack, make([]int32, 0, 64))
	}
	st := m.stack[depth][:0]
	pc, i := int32(0), pos
	inst := prog.inst
	for {
		in := &inst[pc]
		ok := true
		switch in.op {
		case iChar:
			if ok = i < end && subj[i] == in.c; ok {
				i++
				pc++
			}
		case iClass:
			if ok = i < end && in.cls.has(subj[i]); ok {
				i++
				pc++
			}
		case iAny:
			if ok = i < end && subj[i] != '\n' && subj[i] != '\r'; ok {
				i++
				pc++
			}
		case iSplit:
			if g := in.guard; g != nil && (i >= end || !g.has(subj[i])) {
				pc = in.y // x cannot match here
				continue
			}
			st = append(st, in.y, int32(i))
			pc = in.x
		case iJmp:
			pc = in.x
		case iPeek, iNotPeek:
			if ok = (i < end && in.cls.has(subj[i])) == (in.op == iPeek); ok {
				pc++
			}
		case iLook, iNotLook:
			r := m.matchAt(in.sub, subj, i, i, end, false, depth+1)
			if ok = (r >= 0) == (in.op == iLook); ok {
				pc++
			}
		case iEnd:
			if ok = i == end; ok {
				pc++
			}
		case iBegin:
			if ok = i == begin; ok {
				pc++
			}
		case iWordB, iNotWordB:
			left := i > begin && isWordChar(subj[i-1])
			right := i < end && isWordChar(subj[i])
			if ok = (left != right) == (in.op == iWordB); ok {
				pc++
			}
		case iMatch:
			if !notNull || i > pos {
				m.stack[depth] = st[:0]
				return i
			}
			ok = false
		}
		if ok {
			continue
		}
		if len(st) == 0 {
			m.stack[depth] = st[:0]
			return -1
		}
		pc, i = st[len(st)-2], int(st[len(st)-1])
		st = st[:len(st)-2]
	}
}

func isWordChar(c int32) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}

// search finds the first match starting at or after from, as regex_search.
func (m *reMatcher) search(prog *reProg, subj []int32, begin, from, end int) (int, int) {
	for p := from; p <= end; p++ {
		if !prog.nullable {
			for p < end && !prog.first.has(subj[p]) {
				p++
			}
			if p >= end {
				return -1, -1
			}
		}
		if e := m.matchAt(prog, subj, begin, p, end, false, 0); e >= 0 {
			return p, e
		}
	}
	return -1, -1
}

// split runs prog over subj[start:end] as llama.cpp's unicode_regex_split_stl
// does with std::regex_iterator: matches and the gaps between them become
// fragments (an empty match gives an empty fragment).
func (m *reMatcher) split(prog *reProg, subj []int32, start, end int, emit func(int)) {
	prev := start
	m0, m1 := m.search(prog, subj, start, start, end)
	for m0 >= 0 {
		if m0 > prev {
			emit(m0)
		}
		emit(m1)
		prev = m1
		from := m1
		if m0 == m1 {
			if m1 == end {
				break
			}
			if e := m.matchAt(prog, subj, start, m1, end, true, 0); e >= 0 {
				m0, m1 = m1, e
				continue
			}
			from++
		}
		m0, m1 = m.search(prog, subj, start, from, end)
	}
	if prev < end {
		emit(end)
	}
}
