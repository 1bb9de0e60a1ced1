package template

import "strings"

// tagKind is the kind of a template tag.
type tagKind int

const (
	tagExpr    tagKind = iota // {{ ... }}
	tagStmt                   // {% ... %}
	tagComment                // {# ... #}
)

// tag is one {{ }}, {% %} or {# #} tag of template source. Start and End
// delimit its content (inside the delimiters and whitespace-control
// markers) as byte offsets into the source; Line is the 1-based line of
// the opening delimiter.
type tag struct {
	kind       tagKind
	open       int // offset of the opening delimiter
	start, end int
	next       int // offset just after the closing delimiter
	line       int
}

// scanTags splits template source into tags the way the jinja engine does:
// quotes inside expression and statement tags are honoured, and the body
// of {% raw %} ... {% endraw %} is text. An unclosed tag ends the scan; the
// engine reports it.
func scanTags(src string) []tag {
	var tags []tag
	line := 1
	inRaw := false
	for i := 0; i < len(src); {
		c := src[i]
		if c == '\n' {
			line++
		}
		if c != '{' || i+1 >= len(src) {
			i++
			continue
		}
		var kind tagKind
		var closer string
		switch src[i+1] {
		case '{':
			kind, closer = tagExpr, "}}"
		case '%':
			kind, closer = tagStmt, "%}"
		case '#':
			kind, closer = tagComment, "#}"
		default:
			i++
			continue
		}
		if inRaw && kind != tagStmt {
			i++
			continue
		}
		tagLine := line
		j := i + 2
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			j++
		}
		start := j
		end, next, ok := findCloser(src, j, kind, closer)
		if !ok {
			return tags
		}
		body := src[start:end]
		if inRaw {
			if strings.TrimSpace(body) != "endraw" {
				i++
				continue
			}
			inRaw = false
		} else if kind == tagStmt && strings.TrimSpace(body) == "raw" {
			inRaw = true
		}
		tags = append(tags, tag{kind: kind, open: i, start: start, end: end, next: next, line: tagLine})
		line += strings.Count(src[i:next], "\n")
		i = next
	}
	return tags
}

// findCloser finds the end of a tag's content starting at j. It returns
// the content end (before any -/+ marker), the offset after the closer and
// whether a closer was found.
func findCloser(src string, j int, kind tagKind, closer string) (end, next int, ok bool) {
	depth := 0
	for j < len(src) {
		ch := src[j]
		if kind != tagComment && (ch == '\'' || ch == '"') {
			j++
			for j < len(src) && src[j] != ch {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				j++
			}
			j++
			continue
		}
		if depth == 0 && (ch == '-' || ch == '+') && j+2 < len(src) && src[j+1] == closer[0] && src[j+2] == closer[1] {
			return j, j + 3, true
		}
		if depth == 0 && j+1 < len(src) && ch == closer[0] && src[j+1] == closer[1] {
			return j, j + 2, true
		}
		if kind != tagComment {
			switch ch {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		j++
	}
	return 0, 0, false
}

// token is one lexical token of a Jinja expression: a name, a number, a
// string literal or an operator/punctuation. Off is its offset in the
// source.
type token struct {
	text string
	off  int
	kind byte // 'n' name, '1' number, 's' string, 'p' punctuation
}

// lexExpr splits the content of a tag (src[start:end]) into tokens.
func lexExpr(src string, start, end int) []token {
	var toks []token
	for i := start; i < end; {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < end && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, end)
			toks = append(toks, token{src[i:j], i, 's'})
			i = j
		case isIdentStart(c) || c >= 0x80:
			j := i
			for j < end && (isIdentChar(src[j]) || src[j] >= 0x80) {
				j++
			}
			toks = append(toks, token{src[i:j], i, 'n'})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < end && (isIdentChar(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{src[i:j], i, '1'})
			i = j
		default:
			n := 1
			if i+1 < end {
				switch src[i : i+2] {
				case "==", "!=", "<=", ">=", "//", "**":
					n = 2
				}
			}
			toks = append(toks, token{src[i : i+n], i, 'p'})
			i += n
		}
	}
	return toks
}
