package template

import (
	"sort"
	"strings"
)

// The jinja engine is more lenient than Python jinja2 in a few places that
// chat templates depend on to fail loudly. Parse rewrites template source,
// uniformly for every template, to route those operations through helpers
// (see compat.go). The helpers are methods of one per-render dict named
// __lrt, plus one filter named __lrt_g, so that they add at most two
// template globals:
//
//   - for loops iterate over __lrt.iter(EXPR), which rejects None and
//     numbers ("'NoneType' object is not iterable") as Python does;
//   - the map, select, reject, selectattr and rejectattr filters, which
//     return generators in jinja2, are followed by __lrt_g(1), which marks
//     the resulting list as a generator; in templates that use them, tojson,
//     length and count are preceded by __lrt_g, which fails for generators
//     as json.dumps and len do;
//   - every macro body starts with a call of __lrt.guard(), and the argument
//     of every loop(...) call of a recursive for loop passes through it; the
//     guard turns runaway recursion into an error ("maximum recursion depth
//     exceeded") instead of a Go stack overflow;
//   - the list and dict methods that the engine implements by mutating
//     (append, insert, pop, update), which the ImmutableSandboxedEnvironment
//     forbids, are renamed so that calling them fails (the engine does not
//     implement the other mutating methods, so they fail already);
//   - namespace(...) calls __lrt.namespace(...), which records the objects
//     it makes, and "{% set NAME.ATTR = EXPR %}" assigns
//     __lrt.nsset(NAME, EXPR), which fails unless NAME is such an object,
//     as jinja2 does.
//
// Together these make template inputs read-only, so Render can share them
// without copying.
//
// Rewrites only insert text within a line, so line numbers are unchanged.

// Names the rewrite introduces.
const (
	helperObj    = "__lrt"
	helperFilter = "__lrt_g"
	unsafePrefix = "__lrt_unsafe_"
)

// generatorFilters are the jinja2 filters that return generators.
var generatorFilters = map[string]bool{"map": true, "select": true, "reject": true, "selectattr": true, "rejectattr": true}

// sizedFilters are the filters that fail for generators.
var sizedFilters = map[string]bool{"tojson": true, "length": true, "count": true}

// mutatingMethods are the mutating list and dict methods the engine
// implements; the jinja2 sandbox forbids them.
var mutatingMethods = map[string]bool{"append": true, "insert": true, "pop": true, "update": true}

// edit inserts ins at off. Closing edits (the ")" that ends a wrapped
// expression) go after other edits at the same offset.
type edit struct {
	off     int
	ins     string
	closing bool
}

// rewriteInfo records which helpers a rewritten template uses and which
// names its expressions refer to.
type rewriteInfo struct {
	iter, gen, guard, ns bool
	// names holds every identifier used as a variable (not as an
	// attribute) in the template's tags.
	names map[string]bool
}

// helpers reports whether the template needs the __lrt object.
func (r rewriteInfo) helpers() bool { return r.iter || r.guard || r.ns }

// rewrite applies the compatibility rewrites to prepared template source.
func rewrite(src string) (string, rewriteInfo) {
	var edits []edit
	info := rewriteInfo{names: map[string]bool{}}
	tags := scanTags(src)
	lexed := make([][]token, len(tags))
	for n, tg := range tags {
		if tg.kind == tagComment {
			continue
		}
		toks := lexExpr(src, tg.start, tg.end)
		lexed[n] = toks
		for i, t := range toks {
			if t.kind == 'n' && (i == 0 || toks[i-1].text != ".") {
				info.names[t.text] = true
			}
			// Generators only exist where generator filters are used;
			// without them tojson and length need no check.
			if t.text == "|" && i+1 < len(toks) && toks[i+1].kind == 'n' && generatorFilters[toks[i+1].text] {
				info.gen = true
			}
		}
	}
	for n, tg := range tags {
		toks := lexed[n]
		if len(toks) == 0 {
			continue
		}
		var closing []edit
		if tg.kind == tagStmt {
			switch {
			case toks[0].text == "macro":
				// A statement tag right after the macro tag, with the
				// same right whitespace control, leaves trimming unchanged.
				marker := ""
				if c := src[tg.end]; c == '-' || c == '+' {
					marker = string(c)
				}
				edits = append(edits, edit{off: tg.next, ins: "{% set __lrt_d = " + helperObj + ".guard() " + marker + "%}"})
				info.guard = true
			case toks[0].text == "set" && len(toks) > 5 && toks[1].kind == 'n' &&
				toks[2].text == "." && toks[3].kind == 'n' && toks[4].text == "=":
				edits = append(edits, edit{off: toks[5].off, ins: helperObj + ".nsset(" + toks[1].text + ", "})
				closing = append(closing, edit{off: tg.end, ins: ")", closing: true})
				info.ns = true
			case toks[0].text == "for":
				if e, ok := rewriteFor(toks); ok {
					edits = append(edits, e...)
					info.iter = true
				}
			}
		}
		for i := 0; i+1 < len(toks); i++ {
			t, next := toks[i], toks[i+1]
			afterDot := i > 0 && toks[i-1].text == "."
			switch {
			case t.text == "|" && next.kind == 'n' && generatorFilters[next.text]:
				edits = append(edits, edit{off: filterEnd(toks, i+1), ins: "|" + helperFilter + "(1)"})
			case info.gen && t.text == "|" && next.kind == 'n' && sizedFilters[next.text]:
				edits = append(edits, edit{off: next.off, ins: helperFilter + "|"})
			case t.kind == 'n' && t.text == "loop" && next.text == "(" && !afterDot:
				if end := filterEnd(toks, i); end > next.off+1 {
					edits = append(edits, edit{off: next.off + 1, ins: helperObj + ".guard("}, edit{off: end - 1, ins: ")", closing: true})
					info.guard = true
				}
			case t.kind == 'n' && t.text == "namespace" && next.text == "(" && !afterDot:
				edits = append(edits, edit{off: t.off, ins: helperObj + "."})
				info.ns = true
			case t.text == "." && next.kind == 'n' && mutatingMethods[next.text]:
				edits = append(edits, edit{off: next.off, ins: unsafePrefix})
			}
		}
		edits = append(edits, closing...)
	}
	if info.helpers() {
		info.names[helperObj] = true
	}
	if info.gen {
		info.names[helperFilter] = true
	}
	if len(edits) == 0 {
		return src, info
	}
	sort.SliceStable(edits, func(a, b int) bool {
		if edits[a].off != edits[b].off {
			return edits[a].off < edits[b].off
		}
		return !edits[a].closing && edits[b].closing
	})
	var b strings.Builder
	b.Grow(len(src) + 16*len(edits))
	prev := 0
	for _, e := range edits {
		b.WriteString(src[prev:e.off])
		b.WriteString(e.ins)
		prev = e.off
	}
	b.WriteString(src[prev:])
	return b.String(), info
}

// rewriteFor wraps the iterable of "for TARGETS in ITER [if COND] [recursive]"
// in __lrt.iter(...).
func rewriteFor(toks []token) ([]edit, bool) {
	depth := 0
	in := -1
	for i := 1; i < len(toks) && in < 0; i++ {
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "in":
			if depth == 0 && toks[i].kind == 'n' {
				in = i
			}
		}
	}
	if in < 0 || in+1 >= len(toks) {
		return nil, false
	}
	last := -1
	depth = 0
loop:
	for i := in + 1; i < len(toks); i++ {
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "if", "recursive":
			if depth == 0 && toks[i].kind == 'n' {
				break loop
			}
		}
		last = i
	}
	if last < in+1 {
		return nil, false
	}
	end := toks[last].off + len(toks[last].text)
	return []edit{{off: toks[in+1].off, ins: helperObj + ".iter("}, {off: end, ins: ")", closing: true}}, true
}

// filterEnd returns the source offset just after the filter or call whose
// name is toks[i], including a parenthesised argument list.
func filterEnd(toks []token, i int) int {
	end := toks[i].off + len(toks[i].text)
	if i+1 >= len(toks) || toks[i+1].text != "(" {
		return end
	}
	depth := 0
	for j := i + 1; j < len(toks); j++ {
		switch toks[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
		if depth == 0 {
			return toks[j].off + len(toks[j].text)
		}
	}
	return end
}
