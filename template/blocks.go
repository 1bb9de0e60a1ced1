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
