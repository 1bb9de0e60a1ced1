package constrain

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanner is a cursor over grammar source text shared by the GBNF and Lark parsers.
type scanner struct {
	lang string
	src  string
	pos  int
}

func (s *scanner) errAt(pos int, sentinel error, format string, args ...any) error {
	line, col := lineCol(s.src, pos)
	return &CompileError{Lang: s.lang, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

func (s *scanner) eof() bool { return s.pos >= len(s.src) }

func (s *scanner) peek() byte {
	if s.pos < len(s.src) {
		return s.src[s.pos]
	}
	return 0
}

func (s *scanner) hasPrefix(p string) bool { return strings.HasPrefix(s.src[s.pos:], p) }

// quoted parses a double-quoted literal with GBNF/Lark escapes and returns
// its UTF-8 bytes.
func (s *scanner) quoted() (string, error) {
	start := s.pos
	s.pos++ // opening quote
	var sb strings.Builder
	for {
		if s.eof() {
			return "", s.errAt(start, ErrSyntax, "unterminated string literal")
		}
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			return sb.String(), nil
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if r < 0 { // raw byte from \xHH above 0x7F stays a code point
				sb.WriteByte(byte(-r))
			} else {
				sb.WriteRune(r)
			}
		case c == '\n':
			return "", s.errAt(start, ErrSyntax, "newline in string literal")
		default:
			r, n := utf8.DecodeRuneInString(s.src[s.pos:])
			sb.WriteRune(r)
			s.pos += n
		}
	}
}

// escape parses a backslash escape at s.pos and returns its code point.
func (s *scanner) escape() (rune, error) {
	start := s.pos
	s.pos++
	if s.eof() {
		return 0, s.errAt(start, ErrSyntax, "unterminated escape")
	}
	c := s.src[s.pos]
	s.pos++
	switch c {
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'f':
		return '\f', nil
	case 'v':
		return '\v', nil
	case 'a':
		return '\a', nil
	case 'b':
		return '\b', nil
	case '0':
		return 0, nil
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if s.pos+n > len(s.src) {
			return 0, s.errAt(start, ErrSyntax, "truncated \\%c escape", c)
		}
		v, err := strconv.ParseUint(s.src[s.pos:s.pos+n], 16, 32)
		if err != nil || v > 0x10FFFF {
			return 0, s.errAt(start, ErrSyntax, "invalid \\%c escape %q", c, s.src[s.pos:s.pos+n])
		}
		s.pos += n
		return rune(v), nil
	}
	return rune(c), nil
}

// regexLiteral parses /.../flags and returns the regex source with flags applied.
func (s *scanner) regexLiteral() (string, int, error) {
	start := s.pos
	s.pos++
	var sb strings.Builder
	for {
		if s.eof() || s.src[s.pos] == '\n' {
			return "", start, s.errAt(start, ErrSyntax, "unterminated regex literal")
		}
		c := s.src[s.pos]
		if c == '\\' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '/' {
			sb.WriteByte('/')
			s.pos += 2
			continue
		}
		if c == '\\' && s.pos+1 < len(s.src) {
			sb.WriteString(s.src[s.pos : s.pos+2])
			s.pos += 2
			continue
		}
		s.pos++
		if c == '/' {
			break
		}
		sb.WriteByte(c)
	}
	flags := ""
	for !s.eof() && strings.IndexByte("imsuxl", s.src[s.pos]) >= 0 {
		if f := s.src[s.pos]; f == 'i' || f == 's' || f == 'm' {
			flags += string(f)
		}
		s.pos++
	}
	re := sb.String()
	if flags != "" {
		re = "(?" + flags + ")" + re
	}
	return re, start, nil
}

// jsonBlock parses a balanced {...} JSON object after %json.
func (s *scanner) jsonBlock() (string, int, error) {
	for !s.eof() && (s.peek() == ' ' || s.peek() == '\t' || s.peek() == '\n' || s.peek() == '\r') {
		s.pos++
	}
	start := s.pos
	if s.peek() != '{' {
		return "", start, s.errAt(start, ErrSyntax, "expected '{' after %%json")
	}
	depth := 0
	inStr := false
	for ; !s.eof(); s.pos++ {
		c := s.src[s.pos]
		if inStr {
			if c == '\\' {
				s.pos++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				s.pos++
				return s.src[start:s.pos], start, nil
			}
		}
	}
	return "", start, s.errAt(start, ErrSyntax, "unterminated %%json object")
}

// embedJSON compiles an embedded JSON schema into builder b.
func embedJSON(s *scanner, b *builder, src string, at int, n int) (*expr, error) {
	c, err := newSchemaCompiler(b, []byte(src), JSONOptions{}, fmt.Sprintf("json%d:", n))
	if err != nil {
		return nil, s.errAt(at, ErrSyntax, "%%json: %v", err)
	}
	e, err := c.compileRoot()
	if err != nil {
		return nil, s.errAt(at, errSentinel(err), "%%json: %v", err)
	}
	return e, nil
}

// embedRegex compiles an embedded regex, reporting errors at the literal.
func embedRegex(s *scanner, re string, at int) (*expr, error) {
	e, err := regexExpr(re, s.lang)
	if err != nil {
		return nil, s.errAt(at, errSentinel(err), "regex /%s/: %v", re, err)
	}
	return e, nil
}

func errSentinel(err error) error {
	if ce, ok := err.(*CompileError); ok && ce.Err != nil {
		return ce.Err
	}
	return ErrSyntax
}

// classItems parses the inside of a [...] character class (after '[') up
// to and including ']' and returns its ranges and whether it is negated.
func (s *scanner) classItems() ([]runeRange, bool, error) {
	start := s.pos - 1
	neg := false
	if s.peek() == '^' {
		neg = true
		s.pos++
	}
	var rs []runeRange
	read := func() (rune, error) {
		if s.eof() {
			return 0, s.errAt(start, ErrSyntax, "unterminated character class")
		}
		if s.src[s.pos] == '\\' {
			return s.escape()
		}
		r, n := utf8.DecodeRuneInString(s.src[s.pos:])
		s.pos += n
		return r, nil
	}
	for {
		if s.eof() {
			return nil, false, s.errAt(start, ErrSyntax, "unterminated character class")
		}
		if s.peek() == ']' {
			s.pos++
			break
		}
		lo, err := read()
		if err != nil {
			return nil, false, err
		}
		hi := lo
		if s.peek() == '-' && s.pos+1 < len(s.src) && s.src[s.pos+1] != ']' {
			s.pos++
			if hi, err = read(); err != nil {
				return nil, false, err
			}
			if hi < lo {
				return nil, false, s.errAt(start, ErrSyntax, "character class range %q-%q is reversed", lo, hi)
			}
		}
		rs = append(rs, runeRange{lo, hi})
	}
	return rs, neg, nil
}

// negateRanges returns the complement of rs over all code points.
func negateRanges(rs []runeRange) []runeRange {
	sorted := append([]runeRange(nil), rs...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].lo < sorted[j-1].lo; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var out []runeRange
	next := rune(0)
	for _, r := range sorted {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		if r.hi+1 > next {
			next = r.hi + 1
		}
	}
	if next <= 0x10FFFF {
		out = append(out, runeRange{next, 0x10FFFF})
	}
	return out
}

// repeatSuffix parses {m}, {m,}, {m,n}, {,n} after '{'.
func (s *scanner) braces() (int, int, error) {
	start := s.pos - 1
	end := strings.IndexByte(s.src[s.pos:], '}')
	if end < 0 {
		return 0, 0, s.errAt(start, ErrSyntax, "unterminated repetition {...}")
	}
	body := strings.TrimSpace(s.src[s.pos : s.pos+end])
	s.pos += end + 1
	parse := func(x string, def int) (int, error) {
		x = strings.TrimSpace(x)
		if x == "" {
			return def, nil
		}
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 || n > 1<<16 {
			return 0, s.errAt(start, ErrSyntax, "invalid repetition count %q", x)
		}
		return n, nil
	}
	lo, hi := 0, 0
	var err error
	if i := strings.IndexByte(body, ','); i >= 0 {
		if lo, err = parse(body[:i], 0); err != nil {
			return 0, 0, err
		}
		if hi, err = parse(body[i+1:], -1); err != nil {
			return 0, 0, err
		}
	} else {
		if lo, err = parse(body, -2); err != nil || lo == -2 {
			return 0, 0, s.errAt(start, ErrSyntax, "invalid repetition {%s}", body)
		}
		hi = lo
	}
	if hi >= 0 && hi < lo {
		return 0, 0, s.errAt(start, ErrSyntax, "repetition {%s}: maximum below minimum", body)
	}
	return lo, hi, nil
}
