package constrain

import (
	"fmt"
	"unicode/utf8"
)

// Pattern is a piece of a grammar composed in Go: literals, free text that
// avoids some strings, JSON values valid against a schema, and sequences,
// choices and repetitions of those. Compose compiles a Pattern into a
// Grammar. Patterns are immutable values; the zero Pattern matches nothing.
//
// Tool-call formats use Patterns to force a call in their own syntax:
//
//	Sequence(Literal("<tool_call>\n{\"name\": \"f\", \"arguments\": "),
//		JSONValue(schema, "", opts), Literal("}\n</tool_call>"))
type Pattern struct {
	build func(b *builder) (*expr, error)
}

// Compose compiles p into a Grammar.
func Compose(p Pattern) (*Grammar, error) {
	b := newBuilder("pattern")
	root := b.rule("root")
	e, err := p.expr(b)
	if err != nil {
		return nil, err
	}
	b.define(root, e)
	return compileGrammar(b, root)
}

func (p Pattern) expr(b *builder) (*expr, error) {
	if p.build == nil {
		return nothingExpr, nil
	}
	return p.build(b)
}

// Literal matches s exactly.
func Literal(s string) Pattern {
	return Pattern{build: func(*builder) (*expr, error) { return lit(s), nil }}
}

// AnyText matches any valid UTF-8 text, the empty string included.
func AnyText() Pattern {
	return Pattern{build: func(*builder) (*expr, error) { return star(anyChar()), nil }}
}

// TextWithout matches any valid UTF-8 text (the empty string included) that
// contains none of stops. Free text before a tool call uses it so that the
// text cannot open a call the grammar does not check.
func TextWithout(stops ...string) Pattern {
	return Pattern{build: func(*builder) (*expr, error) {
		for _, s := range stops {
			if s == "" || !utf8.ValidString(s) {
				return nil, &CompileError{Lang: "pattern", Msg: fmt.Sprintf("TextWithout: stop string %q must be non-empty UTF-8", s), Err: ErrInvalid}
			}
		}
		if len(stops) == 0 {
			return star(anyChar()), nil
		}
		return textAvoiding(stops), nil
	}}
}

// JSONValue matches a JSON value valid against the schema found at the JSON
// pointer (RFC 6901; "" is the whole document) inside schema. Local $refs
// resolve against the whole document, so a property's schema can be
// compiled on its own.
func JSONValue(schema []byte, pointer string, opts JSONOptions) Pattern {
	return Pattern{build: func(b *builder) (*expr, error) {
		c, err := newSchemaCompiler(b, schema, opts, fmt.Sprintf("json%d:", len(b.names)))
		if err != nil {
			return nil, err
		}
		node := c.root
		if pointer != "" {
			if node, err = c.resolve("#"+pointer, pointer); err != nil {
				return nil, err
			}
		}
		return c.schema(node, pointer)
	}}
}

// Sequence matches its parts one after another.
func Sequence(parts ...Pattern) Pattern { return combine(parts, seq) }

// Choice matches any one of its alternatives (none: nothing).
func Choice(alts ...Pattern) Pattern {
	if len(alts) == 0 {
		return Pattern{build: func(*builder) (*expr, error) { return nothingExpr, nil }}
	}
	return combine(alts, alt)
}

// combine builds ps and joins them with join (seq or alt).
func combine(ps []Pattern, join func(...*expr) *expr) Pattern {
	return Pattern{build: func(b *builder) (*expr, error) {
		subs := make([]*expr, len(ps))
		for i, p := range ps {
			e, err := p.expr(b)
			if err != nil {
				return nil, err
			}
			subs[i] = e
		}
		return join(subs...), nil
	}}
}

// Optional matches p or the empty string.
func Optional(p Pattern) Pattern { return Repeat(p, 0, 1) }

// Repeat matches p between min and max times; max < 0 means no upper bound.
func Repeat(p Pattern, min, max int) Pattern {
	return Pattern{build: func(b *builder) (*expr, error) {
		if min < 0 || (max >= 0 && max < min) {
			return nil, &CompileError{Lang: "pattern", Msg: fmt.Sprintf("Repeat: bad bounds %d..%d", min, max), Err: ErrInvalid}
		}
		e, err := p.expr(b)
		if err != nil {
			return nil, err
		}
		// Each repetition refers to one shared rule, so a large body is
		// compiled once.
		id := b.fresh("repeat")
		b.define(id, e)
		return rep(ref(id), min, max), nil
	}}
}

// utf8 decoder states of textAvoiding: how many continuation bytes are
// still needed, and in which range the next one must lie.
const (
	u8Boundary = iota // between characters
	u8Need1           // one continuation byte 80-BF
	u8Need2           // two: 80-BF, then one
	u8Need2E0         // after E0: A0-BF, then one (no overlongs)
	u8Need2ED         // after ED: 80-9F, then one (no surrogates)
	u8Need3           // three: 80-BF, then two
	u8Need3F0         // after F0: 90-BF, then two
	u8Need3F4         // after F4: 80-8F, then two (≤ U+10FFFF)
	u8States
)

// utf8Next returns the decoder state after byte c, or -1 if c is not valid
// there.
func utf8Next(u int, c byte) int {
	cont := func(lo, hi byte, next int) int {
		if c >= lo && c <= hi {
			return next
		}
		return -1
	}
	switch u {
	case u8Boundary:
		switch {
		case c < 0x80:
			return u8Boundary
		case c >= 0xC2 && c <= 0xDF:
			return u8Need1
		case c == 0xE0:
			return u8Need2E0
		case c == 0xED:
			return u8Need2ED
		case c >= 0xE1 && c <= 0xEF:
			return u8Need2
		case c == 0xF0:
			return u8Need3F0
		case c >= 0xF1 && c <= 0xF3:
			return u8Need3
		case c == 0xF4:
			return u8Need3F4
		}
		return -1
	case u8Need1:
		return cont(0x80, 0xBF, u8Boundary)
	case u8Need2:
		return cont(0x80, 0xBF, u8Need1)
	case u8Need2E0:
		return cont(0xA0, 0xBF, u8Need1)
	case u8Need2ED:
		return cont(0x80, 0x9F, u8Need1)
	case u8Need3:
		return cont(0x80, 0xBF, u8Need2)
	case u8Need3F0:
		return cont(0x90, 0xBF, u8Need2)
	case u8Need3F4:
		return cont(0x80, 0x8F, u8Need2)
	}
	return -1
}

// textAvoiding is the automaton of valid UTF-8 text containing none of
// stops: an Aho-Corasick automaton over the stops' bytes, run in product
// with a UTF-8 decoder.
func textAvoiding(stops []string) *expr {
	// Trie of the stops; node 0 is the root.
	type node struct {
		next [256]int32
		fail int32
		bad  bool // a stop ends here (or at a suffix of here)
	}
	nodes := []node{{}}
	for i := range nodes[0].next {
		nodes[0].next[i] = -1
	}
	for _, s := range stops {
		cur := int32(0)
		for i := 0; i < len(s); i++ {
			if nodes[cur].next[s[i]] < 0 {
				n := node{}
				for j := range n.next {
					n.next[j] = -1
				}
				nodes = append(nodes, n)
				nodes[cur].next[s[i]] = int32(len(nodes) - 1)
			}
			cur = nodes[cur].next[s[i]]
		}
		nodes[cur].bad = true
	}
	// Breadth-first: failure links and the full transition function.
	queue := []int32{}
	for c := 0; c < 256; c++ {
		if t := nodes[0].next[c]; t < 0 {
			nodes[0].next[c] = 0
		} else {
			nodes[t].fail = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if nodes[nodes[s].fail].bad {
			nodes[s].bad = true
		}
		for c := 0; c < 256; c++ {
			t := nodes[s].next[c]
			if t < 0 {
				nodes[s].next[c] = nodes[nodes[s].fail].next[c]
				continue
			}
			nodes[t].fail = nodes[nodes[s].fail].next[c]
			queue = append(queue, t)
		}
	}
	// Product states (trie node, decoder state), numbered as reached;
	// the last graph node is the end.
	id := map[[2]int32]int{{0, u8Boundary}: 0}
	order := [][2]int32{{0, u8Boundary}}
	var edges []graphEdge
	for i := 0; i < len(order); i++ {
		s, u := order[i][0], int(order[i][1])
		target := func(c byte) int {
			nu := utf8Next(u, c)
			nt := nodes[s].next[c]
			if nu < 0 || nodes[nt].bad {
				return -1
			}
			key := [2]int32{nt, int32(nu)}
			j, ok := id[key]
			if !ok {
				j = len(order)
				id[key] = j
				order = append(order, key)
			}
			return j
		}
		lo, prev := 0, target(0)
		for c := 1; c <= 256; c++ {
			t := -2
			if c < 256 {
				t = target(byte(c))
			}
			if t == prev {
				continue
			}
			if prev >= 0 {
				edges = append(edges, graphEdge{from: i, to: prev, e: byteRange(byte(lo), byte(c-1))})
			}
			lo, prev = c, t
		}
	}
	end := len(order)
	for i, key := range order {
		if key[1] == u8Boundary {
			edges = append(edges, graphEdge{from: i, to: end})
		}
	}
	return &expr{op: opGraph, graph: &graphExpr{n: end + 1, start: 0, end: end, edges: edges}}
}
