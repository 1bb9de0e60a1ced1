package toolcall

// Scanning shared by all families: whitespace, a JSON scanner that tells a
// complete value from a prefix of one (and where a malformed one goes
// wrong), and the hold-back of streamed text that may still become a
// marker.

import (
	"fmt"
	"strings"
)

// jsonError is a JSON value that does not scan: either the text ended
// inside it (eof: what is there is a prefix of valid JSON) or it is invalid
// at off.
type jsonError struct {
	off int
	tok int // the start of the literal, number or string off is in (else off)
	eof bool
	msg string
}

func (e *jsonError) Error() string {
	if e.eof {
		return "unexpected end of JSON"
	}
	return e.msg
}

const maxJSONDepth = 1000

func eofAt(i int) *jsonError { return &jsonError{off: i, tok: i, eof: true} }

func badAt(i int, format string, args ...any) *jsonError { return badIn(i, i, format, args...) }

// badIn is badAt for an error inside the token that starts at tok.
func badIn(tok, i int, format string, args ...any) *jsonError {
	return &jsonError{off: i, tok: tok, msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// scanJSON returns the end of the JSON value that starts at s[i]. A number
// that reaches the end of s counts as unfinished (it could go on).
func scanJSON(s string, i int) (int, *jsonError) { return scanValue(s, i, 0) }

func scanValue(s string, i, depth int) (int, *jsonError) {
	if i >= len(s) {
		return i, eofAt(i)
	}
	switch c := s[i]; {
	case c == '{':
		return scanObject(s, i, depth+1)
	case c == '[':
		return scanArray(s, i, depth+1)
	case c == '"':
		return scanString(s, i)
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(s, i)
	case c == 't':
		return scanLiteral(s, i, "true")
	case c == 'f':
		return scanLiteral(s, i, "false")
	case c == 'n':
		return scanLiteral(s, i, "null")
	default:
		return i, badAt(i, "invalid character %q in JSON", c)
	}
}

func scanLiteral(s string, i int, lit string) (int, *jsonError) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(s) {
			return i + k, eofAt(i + k)
		}
		if s[i+k] != lit[k] {
			return i + k, badIn(i, i+k, "invalid literal (want %s)", lit)
		}
	}
	return i + len(lit), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func scanNumber(s string, i int) (int, *jsonError) {
	j := i
	if s[j] == '-' {
		j++
	}
	digits := func() (bool, *jsonError) { // at least one digit
		if j >= len(s) {
			return false, eofAt(j)
		}
		if !isDigit(s[j]) {
			return false, badIn(i, j, "invalid number")
		}
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return true, nil
	}
	if j >= len(s) {
		return j, eofAt(j)
	}
	switch {
	case s[j] == '0':
		j++
	case isDigit(s[j]):
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	default:
		return j, badIn(i, j, "invalid number")
	}
	if j >= len(s) {
		return j, eofAt(j)
	}
	if s[j] == '.' {
		j++
		if _, err := digits(); err != nil {
			return j, err
		}
		if j >= len(s) {
			return j, eofAt(j)
		}
	}
	if s[j] == 'e' || s[j] == 'E' {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if _, err := digits(); err != nil {
			return j, err
		}
		if j >= len(s) {
			return j, eofAt(j)
		}
	}
	return j, nil
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func scanString(s string, i int) (int, *jsonError) {
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			return j + 1, nil
		case c == '\\':
			if j+1 >= len(s) {
				return j + 1, eofAt(j + 1)
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				for k := 0; k < 4; k++ {
					if j+2+k >= len(s) {
						return j + 2 + k, eofAt(j + 2 + k)
					}
					if !isHex(s[j+2+k]) {
						return j + 2 + k, badIn(i, j+2+k, "invalid \\u escape in JSON string")
					}
				}
				j += 6
			default:
				return j + 1, badIn(i, j+1, "invalid escape %q in JSON string", s[j+1])
			}
		case c < 0x20:
			return j, badIn(i, j, "control character in JSON string")
		default:
			j++
		}
	}
	return j, eofAt(j)
}

func scanObject(s string, i, depth int) (int, *jsonError) {
	if depth > maxJSONDepth {
		return i, badAt(i, "JSON nested too deeply")
	}
	j := skipSpace(s, i+1)
	if j >= len(s) {
		return j, eofAt(j)
	}
	if s[j] == '}' {
		return j + 1, nil
	}
	for {
		if j >= len(s) {
			return j, eofAt(j)
		}
		if s[j] != '"' {
			return j, badAt(j, "want a string key in JSON object")
		}
		var err *jsonError
		if j, err = scanString(s, j); err != nil {
			return j, err
		}
		if j = skipSpace(s, j); j >= len(s) {
			return j, eofAt(j)
		}
		if s[j] != ':' {
			return j, badAt(j, "want ':' in JSON object")
		}
		if j, err = scanValue(s, skipSpace(s, j+1), depth); err != nil {
			return j, err
		}
		if j = skipSpace(s, j); j >= len(s) {
			return j, eofAt(j)
		}
		switch s[j] {
		case ',':
			j = skipSpace(s, j+1)
		case '}':
			return j + 1, nil
		default:
			return j, badAt(j, "want ',' or '}' in JSON object")
		}
	}
}

func scanArray(s string, i, depth int) (int, *jsonError) {
	if depth > maxJSONDepth {
		return i, badAt(i, "JSON nested too deeply")
	}
	j := skipSpace(s, i+1)
	if j >= len(s) {
		return j, eofAt(j)
	}
	if s[j] == ']' {
		return j + 1, nil
	}
	for {
		var err *jsonError
		if j, err = scanValue(s, j, depth); err != nil {
			return j, err
		}
		if j = skipSpace(s, j); j >= len(s) {
			return j, eofAt(j)
		}
		switch s[j] {
		case ',':
			j = skipSpace(s, j+1)
		case ']':
			return j + 1, nil
		default:
			return j, badAt(j, "want ',' or ']' in JSON array")
		}
	}
}

// holdBack cuts the longest tail of s that is a proper prefix of one of
// the markers in groups: text that may still turn into a marker.
func holdBack(s string, groups ...[]string) string {
	cut := len(s)
	for _, g := range groups {
		for _, m := range g {
			for n := min(len(m)-1, len(s)); n > 0; n-- {
				if strings.HasSuffix(s, m[:n]) {
					cut = min(cut, len(s)-n)
					break
				}
			}
		}
	}
	return s[:cut]
}
