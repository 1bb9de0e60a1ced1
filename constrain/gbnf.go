package constrain

import (
	"unicode/utf8"
)

// GBNF compiles a llama.cpp GBNF grammar; the start rule is "root".
//
// Supported: rules `name ::= ...`, string literals with escapes (\n \r \t
// \\ \" \xHH \uHHHH \UHHHHHHHH), character classes ([a-z], [^"\\]), '.', rule
// references, grouping, alternation, the postfix operators * + ? {m} {m,}
// {m,n} {,n}, and # comments. A line starting with '|' continues the
// previous rule. Extensions in the llguidance style: `/regex/` terminals and
// `%json {...}` embedding a JSON Schema. Token references (<[id]>) and left
// recursion are not supported.
func GBNF(src string) (*Grammar, error) {
	p := &gbnfParser{scanner: scanner{lang: "gbnf", src: src}, b: newBuilder("gbnf"), used: map[int]int{}}
	if err := p.grammar(); err != nil {
		return nil, err
	}
	root, ok := p.b.index["root"]
	if !ok || !p.b.defined(root) {
		return nil, &CompileError{Lang: "gbnf", Line: 1, Col: 1, Msg: `grammar has no "root" rule`, Err: ErrInvalid}
	}
	for id, at := range p.used {
		if !p.b.defined(id) {
			return nil, p.errAt(at, ErrInvalid, "rule %q is not defined", p.b.names[id])
		}
	}
	return compileGrammar(p.b, root)
}

type gbnfParser struct {
	scanner
	b     *builder
	used  map[int]int // rule id -> first use position
	jsons int
}

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// space skips blanks and comments; newlines too if newlines is set.
func (p *gbnfParser) space(newlines bool) {
	for !p.eof() {
		c := p.peek()
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '\n' && newlines:
			p.pos++
		case c == '#':
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// continuation reports whether the next line continues the rule with '|'.
func (p *gbnfParser) continuation() bool {
	save := p.pos
	p.space(true)
	if p.peek() == '|' {
		return true
	}
	p.pos = save
	return false
}

func (p *gbnfParser) name() string {
	start := p.pos
	for !p.eof() && isWordChar(p.peek()) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *gbnfParser) grammar() error {
	p.space(true)
	for !p.eof() {
		start := p.pos
		name := p.name()
		if name == "" {
			return p.errAt(start, ErrSyntax, "expected rule name, found %q", p.peek())
		}
		p.space(false)
		if !p.hasPrefix("::=") {
			return p.errAt(p.pos, ErrSyntax, "expected '::=' after rule name %q", name)
		}
		p.pos += 3
		p.space(true)
		e, err := p.alternates(false)
		if err != nil {
			return err
		}
		id := p.b.rule(name)
		if p.b.defined(id) {
			return p.errAt(start, ErrInvalid, "rule %q is defined twice", name)
		}
		p.b.define(id, e)
		p.space(false)
		if !p.eof() && p.peek() != '\n' {
			return p.errAt(p.pos, ErrSyntax, "unexpected %q at end of rule %q", p.peek(), name)
		}
		p.space(true)
	}
	return nil
}

func (p *gbnfParser) alternates(nested bool) (*expr, error) {
	var alts []*expr
	for {
		e, err := p.sequence(nested)
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
		if p.peek() != '|' {
			return alt(alts...), nil
		}
		p.pos++
		p.space(true)
	}
}

func (p *gbnfParser) sequence(nested bool) (*expr, error) {
	var items []*expr
	for {
		p.space(nested)
		if p.eof() {
			break
		}
		c := p.peek()
		if c == '|' || c == ')' || c == '\n' {
			break
		}
		start := p.pos
		var e *expr
		switch {
		case c == '"':
			s, err := p.quoted()
			if err != nil {
				return nil, err
			}
			e = lit(s)
		case c == '[':
			p.pos++
			rs, neg, err := p.classItems()
			if err != nil {
				return nil, err
			}
			if neg {
				rs = negateRanges(rs)
			}
			e = runeClass(rs)
		case c == '.':
			p.pos++
			e = anyChar()
		case c == '(':
			p.pos++
			p.space(true)
			sub, err := p.alternates(true)
			if err != nil {
				return nil, err
			}
			p.space(true)
			if p.peek() != ')' {
				return nil, p.errAt(start, ErrSyntax, "missing ')'")
			}
			p.pos++
			e = sub
		case c == '/':
			re, at, err := p.regexLiteral()
			if err != nil {
				return nil, err
			}
			if e, err = embedRegex(&p.scanner, re, at); err != nil {
				return nil, err
			}
		case p.hasPrefix("%json"):
			p.pos += len("%json")
			js, at, err := p.jsonBlock()
			if err != nil {
				return nil, err
			}
			p.jsons++
			if e, err = embedJSON(&p.scanner, p.b, js, at, p.jsons); err != nil {
				return nil, err
			}
		case c == '<':
			return nil, p.errAt(start, ErrUnsupported, "token references are not supported")
		case isWordChar(c):
			name := p.name()
			id := p.b.rule(name)
			if _, ok := p.used[id]; !ok {
				p.used[id] = start
			}
			e = ref(id)
		default:
			r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
			return nil, p.errAt(start, ErrSyntax, "unexpected %q", r)
		}
		// Postfix operators.
		for !p.eof() {
			switch p.peek() {
			case '*':
				p.pos++
				e = star(e)
				continue
			case '+':
				p.pos++
				e = plus(e)
				continue
			case '?':
				p.pos++
				e = opt(e)
				continue
			case '{':
				p.pos++
				lo, hi, err := p.braces()
				if err != nil {
					return nil, err
				}
				e = rep(e, lo, hi)
				continue
			}
			break
		}
		items = append(items, e)
	}
	if !nested && p.peek() == '\n' {
		p.continuation() // a following line starting with '|' continues the rule
	}
	return seq(items...), nil
}
