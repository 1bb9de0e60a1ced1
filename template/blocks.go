package template

import "strings"

// blockEnds maps each block statement to the statement that closes it.
var blockEnds = map[string]string{
	"if": "endif", "for": "endfor", "macro": "endmacro", "call": "endcall",
	"filter": "endfilter", "block": "endblock", "generation": "endgeneration",
	"raw": "endraw", "set": "endset",
}

// unclosedBlockLine returns the line of the first block statement that is
// never closed or is closed by the wrong end tag, or 0 if blocks balance.
// It names the line for parse errors the engine reports without one.
func unclosedBlockLine(src string) int {
	type open struct {
		name string
		line int
	}
	var stack []open
	for _, tg := range scanTags(src) {
		if tg.kind != tagStmt {
			continue
		}
		toks := lexExpr(src, tg.start, tg.end)
		if len(toks) == 0 {
			continue
		}
		kw := toks[0].text
		if kw == "set" && hasTopLevel(toks, "=") {
			continue // {% set x = ... %} has no body
		}
		if _, ok := blockEnds[kw]; ok {
			stack = append(stack, open{kw, tg.line})
			continue
		}
		if strings.HasPrefix(kw, "end") {
			if len(stack) == 0 {
				return tg.line
			}
			top := stack[len(stack)-1]
			if blockEnds[top.name] != kw {
				return top.line
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return stack[len(stack)-1].line
	}
	return 0
}

// hasTopLevel reports whether toks contain punctuation p outside brackets.
func hasTopLevel(toks []token, p string) bool {
	depth := 0
	for _, t := range toks {
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case p:
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// layout describes the block structure of a template for the budget
// helpers (limits.go), by tag index.
type layout struct {
	// captured marks the tags inside a macro, call, filter or block set,
	// whose output is captured rather than written to the prompt.
	captured []bool
	// text holds, for a for or macro tag, the bytes of text its body
	// writes outside nested loops and macros (an upper bound: every
	// branch is counted).
	text []int64
	// direct holds, for a for tag, the bytes of text directly in its
	// body, outside any nested block, less whitespace that trimming may
	// remove: written by every iteration (that does not continue or break
	// before it).
	direct []int64
	// end holds, for a block tag, the index of its end tag, or -1.
	end []int
}

// capturing are the blocks whose body output is captured.
var capturing = map[string]bool{"macro": true, "call": true, "filter": true, "set": true}

// blockLayout computes the layout of the tags of src, lexed as lexed.
func blockLayout(src string, tags []tag, lexed [][]token) layout {
	l := layout{captured: make([]bool, len(tags)), text: make([]int64, len(tags)), direct: make([]int64, len(tags)),
		end: make([]int, len(tags))}
	type open struct {
		n       int
		kw      string
		capture bool // this block or one around it captures
	}
	var stack []open
	inner := -1 // the innermost open for or macro tag
	for n, tg := range tags {
		l.end[n] = -1
		if len(stack) > 0 {
			l.captured[n] = stack[len(stack)-1].capture
		}
		if toks := lexed[n]; tg.kind == tagStmt && len(toks) > 0 && toks[0].kind == 'n' {
			kw := toks[0].text
			switch {
			case kw == "set" && hasTopLevel(toks, "="):
			case blockEnds[kw] != "" && kw != "raw":
				c := capturing[kw] || len(stack) > 0 && stack[len(stack)-1].capture
				stack = append(stack, open{n, kw, c})
			case strings.HasPrefix(kw, "end") && kw != "endraw" && len(stack) > 0:
				l.end[stack[len(stack)-1].n] = n
				stack = stack[:len(stack)-1]
			}
			inner = -1
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].kw == "for" || stack[i].kw == "macro" {
					inner = stack[i].n
					break
				}
			}
		}
		if inner >= 0 {
			next := len(src)
			if n+1 < len(tags) {
				next = tags[n+1].open
			}
			l.text[inner] += int64(next - tg.next)
			if top := stack[len(stack)-1]; top.n == inner && top.kw == "for" {
				// Whitespace at the ends may be trimmed.
				l.direct[inner] += int64(len(strings.TrimSpace(src[tg.next:next])))
			}
		}
	}
	return l
}
