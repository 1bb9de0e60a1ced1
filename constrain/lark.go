package constrain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// larkCommon holds the terminals of Lark's common.lark that %import supports.
var larkCommon = map[string]string{
	"DIGIT":          `[0-9]`,
	"HEXDIGIT":       `[0-9a-fA-F]`,
	"INT":            `[0-9]+`,
	"SIGNED_INT":     `[+-]?[0-9]+`,
	"DECIMAL":        `[0-9]+\.[0-9]*|\.[0-9]+`,
	"FLOAT":          `[0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`,
	"SIGNED_FLOAT":   `[+-]?([0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)`,
	"NUMBER":         `[0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[0-9]+`,
	"SIGNED_NUMBER":  `[+-]?([0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[0-9]+)`,
	"ESCAPED_STRING": `"([^"\\]|\\.)*"`,
	"LCASE_LETTER":   `[a-z]`,
	"UCASE_LETTER":   `[A-Z]`,
	"LETTER":         `[A-Za-z]`,
	"WORD":           `[A-Za-z]+`,
	"CNAME":          `[_A-Za-z][_A-Za-z0-9]*`,
	"WS_INLINE":      `[ \t]+`,
	"WS":             `[ \t\f\r\n]+`,
	"CR":             `\r`,
	"LF":             `\n`,
	"NEWLINE":        `(\r?\n)+`,
}

// Lark compiles a grammar in the Lark subset used by llguidance and
// LiteRT-LM; the start rule is "start".
//
// Supported: rules (lowercase) and terminals (uppercase) `name: ...` with
// optional ?/! modifiers and .priority (ignored), alternatives (also on
// continuation lines starting with '|'), "literals" (with the i flag),
// "a".."z" ranges, /regex/flags, grouping, [optional], ? * + and ~ n / ~ n..m
// repetition, `-> alias` (ignored), // comments, %import common.NAME (and
// `%import common (A, B)`), %ignore, and the llguidance extensions
// `%json {...}` (a JSON Schema as a rule body or item) and `%llguidance {...}`
// (ignored). Terminals are matched at the byte level inside one context-free
// grammar, so lexing ambiguities resolve to any valid parse instead of the
// longest match; %ignore patterns are allowed before every terminal of a rule
// and at the end of the input.
func Lark(src string) (*Grammar, error) {
	p := &larkParser{gbnfParser: gbnfParser{scanner: scanner{lang: "lark", src: src}, b: newBuilder("lark"), used: map[int]int{}}}
	p.ignore = p.b.rule("%ignore")
	if err := p.grammar(); err != nil {
		return nil, err
	}
	p.b.define(p.ignore, star(alt(p.ignores...)))
	if len(p.ignores) == 0 {
		p.b.define(p.ignore, emptyExpr)
	}
	start, ok := p.b.index["start"]
	if !ok || !p.b.defined(start) {
		return nil, &CompileError{Lang: "lark", Line: 1, Col: 1, Msg: `grammar has no "start" rule`, Err: ErrInvalid}
	}
	for id, at := range p.used {
		if !p.b.defined(id) {
			return nil, p.errAt(at, ErrInvalid, "rule or terminal %q is not defined", p.b.names[id])
		}
	}
	root := p.b.fresh("%root")
	p.b.define(root, seq(ref(start), ref(p.ignore)))
	return compileGrammar(p.b, root)
}

type larkParser struct {
	gbnfParser
	ignore   int
	ignores  []*expr
	terminal bool // parsing a terminal definition (no %ignore insertion)
}

// space skips blanks and // comments; newlines too if newlines is set.
func (p *larkParser) space(newlines bool) {
	for !p.eof() {
		c := p.peek()
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '\n' && newlines:
			p.pos++
		case c == '/' && p.hasPrefix("//"):
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *larkParser) continuation() bool {
	save := p.pos
	p.space(true)
	if p.peek() == '|' {
		return true
	}
	p.pos = save
	return false
}

func isUpperName(s string) bool {
	s = strings.TrimLeft(s, "_")
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

func (p *larkParser) grammar() error {
	p.space(true)
	for !p.eof() {
		start := p.pos
		if p.peek() == '%' {
			if err := p.directive(); err != nil {
				return err
			}
		} else {
			for p.peek() == '?' || p.peek() == '!' {
				p.pos++
			}
			name := p.name()
			if name == "" {
				return p.errAt(start, ErrSyntax, "expected a rule or terminal name, found %q", p.peek())
			}
			if p.peek() == '.' { // priority
				p.pos++
				p.space(false)
				if p.peek() == '-' {
					p.pos++
				}
				for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
					p.pos++
				}
			}
			if p.peek() == '{' {
				return p.errAt(p.pos, ErrUnsupported, "rule templates are not supported")
			}
			p.space(false)
			if p.peek() != ':' {
				return p.errAt(p.pos, ErrSyntax, "expected ':' after %q", name)
			}
			p.pos++
			p.space(false)
			p.terminal = isUpperName(name)
			var e *expr
			var err error
			if p.hasPrefix("%json") {
				e, err = p.item()
			} else {
				e, err = p.alternates(false)
			}
			if err != nil {
				return err
			}
			id := p.b.rule(name)
			if p.b.defined(id) {
				return p.errAt(start, ErrInvalid, "%q is defined twice", name)
			}
			p.b.define(id, e)
		}
		p.space(false)
		if !p.eof() && p.peek() != '\n' {
			return p.errAt(p.pos, ErrSyntax, "unexpected %q", p.peek())
		}
		p.space(true)
	}
	return nil
}

func (p *larkParser) directive() error {
	start := p.pos
	p.pos++
	word := p.name()
	p.space(false)
	switch word {
	case "import":
		path := p.src[p.pos:]
		if i := strings.IndexByte(path, '\n'); i >= 0 {
			path = path[:i]
		}
		p.pos += len(path)
		path = strings.TrimSpace(path)
		if i := strings.Index(path, "//"); i >= 0 {
			path = strings.TrimSpace(path[:i])
		}
		var names [][2]string // name, alias
		switch {
		case strings.HasPrefix(path, "common.") || strings.HasPrefix(path, "%common."):
			rest := path[strings.IndexByte(path, '.')+1:]
			name, alias := rest, rest
			if i := strings.Index(rest, "->"); i >= 0 {
				name, alias = strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+2:])
			}
			names = append(names, [2]string{name, alias})
		case strings.HasPrefix(path, "common") && strings.Contains(path, "("):
			inner := path[strings.IndexByte(path, '(')+1:]
			inner = strings.TrimSuffix(strings.TrimSpace(inner), ")")
			for _, n := range strings.Split(inner, ",") {
				n = strings.TrimSpace(n)
				names = append(names, [2]string{n, n})
			}
		default:
			return p.errAt(start, ErrUnsupported, "only %%import common.NAME is supported, got %q", path)
		}
		for _, n := range names {
			re, ok := larkCommon[n[0]]
			if !ok {
				return p.errAt(start, ErrUnsupported, "common terminal %q is not supported", n[0])
			}
			e, err := regexExpr(re, "lark")
			if err != nil {
				return err
			}
			id := p.b.rule(n[1])
			if !p.b.defined(id) {
				p.b.define(id, e)
			}
		}
		return nil
	case "ignore":
		save := p.terminal
		p.terminal = true
		e, err := p.alternates(false)
		p.terminal = save
		if err != nil {
			return err
		}
		p.ignores = append(p.ignores, e)
		return nil
	case "llguidance":
		_, _, err := p.jsonBlock()
		return err
	}
	return p.errAt(start, ErrUnsupported, "directive %%%s is not supported", word)
}

func (p *larkParser) alternates(nested bool) (*expr, error) {
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

func (p *larkParser) sequence(nested bool) (*expr, error) {
	var items []*expr
	for {
		p.space(nested)
		if p.eof() {
			break
		}
		c := p.peek()
		if c == '|' || c == ')' || c == ']' || c == '\n' {
			break
		}
		if p.hasPrefix("->") { // alias
			p.pos += 2
			p.space(false)
			p.name()
			continue
		}
		e, err := p.item()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	if !nested && p.peek() == '\n' {
		p.continuation()
	}
	return seq(items...), nil
}

// item parses one atom with its postfix operators.
func (p *larkParser) item() (*expr, error) {
	start := p.pos
	c := p.peek()
	var e *expr
	lexeme := false // a terminal-level item inside a rule gets %ignore before it
	switch {
	case c == '"':
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		if p.hasPrefix("..") {
			p.pos += 2
			p.space(false)
			if p.peek() != '"' {
				return nil, p.errAt(p.pos, ErrSyntax, "expected a string after '..'")
			}
			s2, err := p.quoted()
			if err != nil {
				return nil, err
			}
			lo, n1 := utf8.DecodeRuneInString(s)
			hi, n2 := utf8.DecodeRuneInString(s2)
			if n1 != len(s) || n2 != len(s2) || s == "" || s2 == "" || hi < lo {
				return nil, p.errAt(start, ErrSyntax, "invalid range %q..%q", s, s2)
			}
			e = runeClass([]runeRange{{lo, hi}})
		} else if p.peek() == 'i' && (p.pos+1 >= len(p.src) || !isWordChar(p.src[p.pos+1])) {
			p.pos++
			var subs []*expr
			for _, r := range s {
				subs = append(subs, runeExpr(r, true))
			}
			e = seq(subs...)
		} else {
			e = lit(s)
		}
		lexeme = true
	case c == '/' && !p.hasPrefix("//"):
		re, at, err := p.regexLiteral()
		if err != nil {
			return nil, err
		}
		if e, err = embedRegex(&p.scanner, re, at); err != nil {
			return nil, err
		}
		lexeme = true
	case c == '(' || c == '[':
		p.pos++
		p.space(true)
		sub, err := p.alternates(true)
		if err != nil {
			return nil, err
		}
		p.space(true)
		want := byte(')')
		if c == '[' {
			want = ']'
		}
		if p.peek() != want {
			return nil, p.errAt(start, ErrSyntax, "missing %q", want)
		}
		p.pos++
		e = sub
		if c == '[' {
			e = opt(sub)
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
		lexeme = true
	case c == '<':
		return nil, p.errAt(start, ErrUnsupported, "token references are not supported")
	case isWordChar(c):
		name := p.name()
		id := p.b.rule(name)
		if _, ok := p.used[id]; !ok {
			p.used[id] = start
		}
		e = ref(id)
		lexeme = isUpperName(name)
	default:
		r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
		return nil, p.errAt(start, ErrSyntax, "unexpected %q", r)
	}
	if lexeme && !p.terminal {
		e = seq(ref(p.ignore), e)
	}
	for !p.eof() {
		save := p.pos
		p.space(false)
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
		case '~':
			p.pos++
			p.space(false)
			lo, err := p.number()
			if err != nil {
				return nil, err
			}
			hi := lo
			if p.hasPrefix("..") {
				p.pos += 2
				if hi, err = p.number(); err != nil {
					return nil, err
				}
			}
			if hi < lo {
				return nil, p.errAt(start, ErrSyntax, "repetition ~ %d..%d: maximum below minimum", lo, hi)
			}
			e = rep(e, lo, hi)
			continue
		}
		p.pos = save
		break
	}
	return e, nil
}

func (p *larkParser) number() (int, error) {
	start := p.pos
	for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil || n > 1<<16 {
		return 0, p.errAt(start, ErrSyntax, "expected a repetition count")
	}
	return n, nil
}
