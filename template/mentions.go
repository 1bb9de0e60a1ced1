package template

import "strings"

// MentionsTools reports whether template source refers to the tools
// variable inside a Jinja expression or statement, that is whether the
// model's template can present tool schemas. Text outside tags, string
// literals and attributes named tools (x.tools) do not count.
func MentionsTools(src string) bool {
	for {
		i := strings.Index(src, "{")
		if i < 0 || i+1 >= len(src) {
			return false
		}
		var closer string
		switch src[i+1] {
		case '{':
			closer = "}}"
		case '%':
			closer = "%}"
		default:
			src = src[i+1:]
			continue
		}
		body := src[i+2:]
		end := strings.Index(body, closer)
		if end < 0 {
			end = len(body)
		}
		if exprMentions(body[:end], "tools") {
			return true
		}
		if end == len(body) {
			return false
		}
		src = body[end+2:]
	}
}

// exprMentions reports whether name occurs as a variable identifier in the
// Jinja expression text expr, outside string literals and not as an
// attribute.
func exprMentions(expr, name string) bool {
	prev := byte(0) // last non-space byte outside identifiers
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			prev = c
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentChar(expr[j]) {
				j++
			}
			if expr[i:j] == name && prev != '.' {
				return true
			}
			i = j
			prev = 'a'
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				prev = c
			}
			i++
		}
	}
	return false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
