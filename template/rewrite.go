package template

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The jinja engine is more lenient than Python jinja2 in a few places that
// chat templates depend on to fail loudly. Parse rewrites template source,
// uniformly for every template, to route those operations through helpers
// (see compat.go, add.go and tojson.go). The helpers are template globals
// named __lrt_*, set only for the templates that use them:
//
//   - for loops iterate over __lrt_iter(EXPR), which rejects None and
//     numbers ("'NoneType' object is not iterable") as Python does, unless
//     EXPR always yields a sequence (a literal, range(...), .items(), a
//     |list or |dictsort filter, ...; see iterableExpr);
//   - the map, select, reject, selectattr and rejectattr filters, which
//     return generators in jinja2, are followed by __lrt_g(1), which marks
//     the resulting list as a generator; in templates that use them, length
//     and count are preceded by __lrt_g, which fails for generators as len
//     does;
//   - tojson is __lrt_json, transformers' json.dumps-based tojson (tojson.go),
//     which also fails for generators;
//   - every run "a + b + c" of binary "+" is a call of __lrt_add, which has
//     Python's semantics (UndefinedError, TypeError, Markup escaping); the
//     operands are found by a parser for jinja2's expression grammar
//     (addparse.go), so precedence is jinja2's; runs of literals stay as
//     they are; binary "-" is likewise __lrt_sub;
//   - the safe, escape, e and forceescape filters are __lrt_safe, which
//     makes Markup strings for __lrt_add (add.go); in templates that use
//     them, "~" runs are __lrt_cat, which makes plain strings;
//   - every macro body starts with a call of __lrt_macro(kwargs, ...), which
//     checks the arguments as jinja2 does and, by referring to kwargs first,
//     spares the engine a scan of the whole body each time the macro is
//     defined (see macroEntry); it and __lrt_guard, which the argument of
//     every loop(...) call of a recursive for loop passes through, turn
//     runaway recursion into an error ("maximum recursion depth exceeded")
//     instead of a Go stack overflow;
//   - the list and dict methods that the engine implements by mutating
//     (append, insert, pop, update), which the ImmutableSandboxedEnvironment
//     forbids, are renamed so that calling them fails (the engine does not
//     implement the other mutating methods, so they fail already);
//   - namespace(...) calls __lrt_namespace(...), which records the objects
//     it makes, and "{% set NAME.ATTR = EXPR %}" assigns
//     __lrt_nsset(NAME, EXPR), which fails unless NAME is such an object,
//     as jinja2 does.
//
// Together these make template inputs read-only, so Render can share them
// without copying. Further rewrites route the template's work through the
// render's budget (limits.go): output tags, loop iterations, macro calls,
// "~", "*" and "%", the filters that build large strings or lists, and the
// str methods replace, split and format.
//
// Rewrites only insert text within a line, so line numbers are unchanged.

// Names the rewrite introduces: template globals (see helpers in compat.go)
// and the prefix of forbidden method names.
const (
	helperIter   = "__lrt_iter"
	helperGuard  = "__lrt_guard"
	helperMacro  = "__lrt_macro"
	helperNS     = "__lrt_namespace"
	helperNSSet  = "__lrt_nsset"
	helperFilter = "__lrt_g"
	helperAdd    = "__lrt_add"
	helperSub    = "__lrt_sub"
	helperCat    = "__lrt_cat"
	helperSafe   = "__lrt_safe"
	helperJSON   = "__lrt_json"
	helperOut    = "__lrt_out"
	helperLeave  = "__lrt_leave"
	helperMul    = "__lrt_mul"
	helperIndent = "__lrt_indent"
	helperRepl   = "__lrt_replace"
	helperJoin   = "__lrt_join"
	helperTick   = "__lrt_tick"
	helperSeq    = "__lrt_seq"
	helperPrint  = "__lrt_print"
	helperFmt    = "__lrt_fmt"
	helperMethod = "__lrt_method"
	unsafePrefix = "__lrt_unsafe_"
)

// printFilters are the engine's filters that print their input (str(x))
// before they work; __lrt_print counts a list or dict printed.
var printFilters = map[string]bool{"trim": true, "lower": true, "upper": true, "title": true, "capitalize": true,
	"string": true, "wordcount": true}

// seqFilters are the engine's filters that turn a string input into a
// list of its characters (a Value of valueSize bytes each) before they
// work; __lrt_seq counts that before they run.
var seqFilters = map[string]bool{"list": true, "map": true, "select": true, "reject": true, "selectattr": true,
	"rejectattr": true, "unique": true, "batch": true, "first": true, "last": true, "min": true, "max": true,
	"sum": true, "sort": true}

// budgetFilters maps the filters that can build large strings to the
// helpers that build them under the render's budget (limits.go); the
// helpers take the template line as their first argument after the input.
var budgetFilters = map[string]string{"tojson": helperJSON, "indent": helperIndent, "replace": helperRepl, "join": helperJoin}

// generatorFilters are the jinja2 filters that return generators.
var generatorFilters = map[string]bool{"map": true, "select": true, "reject": true, "selectattr": true, "rejectattr": true}

// sizedFilters are the filters that fail for generators (besides tojson,
// which __lrt_json checks itself).
var sizedFilters = map[string]bool{"length": true, "count": true}

// markupFilters are the filters that make Markup strings.
var markupFilters = map[string]bool{"safe": true, "escape": true, "e": true, "forceescape": true}

// mutatingMethods are the mutating list and dict methods the engine
// implements; the jinja2 sandbox forbids them.
var mutatingMethods = map[string]bool{"append": true, "insert": true, "pop": true, "update": true}

// editClass orders edits at the same offset.
type editClass int

const (
	// suffix text belongs to the token before it ("|__lrt_g(1)").
	suffix editClass = iota
	// closer ends a wrapped span (")"); inner spans close first.
	closer
	// replace replaces del bytes (a "+" token, a filter name).
	replace
	// opener starts a wrapped span ("__lrt_add(0, "); outer spans open first.
	opener
	// prefix text belongs to the token after it ("__lrt_").
	prefix
)

// edit replaces src[off:off+del] with ins. For an opener, other is the
// offset where its span ends; for a closer, where its span starts.
type edit struct {
	off, del int
	ins      string
	class    editClass
	other    int
}

// wrap returns the edits that wrap src[start:end] in open ... close.
func wrap(start, end int, open, close string) []edit {
	return []edit{{off: start, ins: open, class: opener, other: end}, {off: end, ins: close, class: closer, other: start}}
}

// rewriteInfo records which helpers a rewritten template uses and which
// names its expressions refer to.
type rewriteInfo struct {
	// helpers holds the helper globals the rewritten template calls.
	helpers map[string]bool
	// adds holds the "+" runs routed through __lrt_add, by site index.
	adds []addSite
	// names holds every identifier used as a variable (not as an
	// attribute) in the template's tags, including the helpers.
	names map[string]bool
}

// rewrite applies the compatibility rewrites to prepared template source.
func rewrite(src string) (string, rewriteInfo) {
	var edits []edit
	info := rewriteInfo{helpers: map[string]bool{}, names: map[string]bool{}}
	use := func(name string) { info.helpers[name] = true }
	gen := false
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
				gen = true
			}
		}
	}
	bodyRefs := macroBodyRefs(tags, lexed)
	lay := blockLayout(src, tags, lexed)
	for n, tg := range tags {
		toks := lexed[n]
		if len(toks) == 0 {
			continue
		}
		line := strconv.Itoa(tg.line)
		if tg.kind == tagExpr && !hasTopLevel(toks, ",") {
			// The output is counted first, so that it wraps every
			// other helper with the same span.
			final := "1"
			if lay.captured[n] {
				final = "0"
			}
			last := toks[len(toks)-1]
			edits = append(edits, wrap(toks[0].off, last.off+len(last.text), helperOut+"("+line+", "+final+", ", ")")...)
			use(helperOut)
		}
		if tg.kind == tagStmt {
			switch {
			case toks[0].text == "macro":
				entry := macroEntry(toks, bodyRefs[n], tg.line, lay.text[n])
				edits = append(edits, edit{off: tg.next, ins: "{% set __lrt_d = " + entry + " " + afterMarker(src, tg) + "%}", class: prefix})
				use(helperMacro)
				if e := lay.end[n]; e >= 0 {
					// Right before the end tag, with its left whitespace
					// control and none on the right.
					marker := ""
					if c := src[tags[e].open+2]; c == '-' || c == '+' {
						marker = string(c)
					}
					edits = append(edits, edit{off: tags[e].open, ins: "{%" + marker + " set __lrt_d = " + helperLeave + "() +%}", class: prefix})
					use(helperLeave)
				}
			case toks[0].text == "filter" && len(toks) > 1 && toks[1].kind == 'n' && budgetFilters[toks[1].text] != "":
				// {% filter indent(8) %}: the block's filter, too.
				edits = append(edits, budgetFilter(toks, 1, line))
				use(budgetFilters[toks[1].text])
			case toks[0].text == "set" && len(toks) > 5 && toks[1].kind == 'n' &&
				toks[2].text == "." && toks[3].kind == 'n' && toks[4].text == "=":
				edits = append(edits, wrap(toks[5].off, tg.end, helperNSSet+"("+toks[1].text+", ", ")")...)
				use(helperNSSet)
			case toks[0].text == "for":
				if e, ok := rewriteFor(toks, tg.line, lay.text[n]); ok {
					edits = append(edits, e...)
					use(helperIter)
				}
				// Each iteration starts with a tick: a step, a look at
				// the clock and, outside macros and blocks, the text the
				// iteration writes to the prompt for certain.
				direct := "0"
				if !lay.captured[n] {
					direct = strconv.FormatInt(lay.direct[n], 10)
				}
				edits = append(edits, edit{off: tg.next, ins: "{% set __lrt_d = " + helperTick + "(" + line + ", " + direct + ") " + afterMarker(src, tg) + "%}", class: prefix})
				use(helperTick)
			}
		}
		for i := 0; i+1 < len(toks); i++ {
			t, next := toks[i], toks[i+1]
			afterDot := i > 0 && toks[i-1].text == "."
			switch {
			case t.text == "|" && next.kind == 'n' && generatorFilters[next.text]:
				edits = append(edits, edit{off: filterEnd(toks, i+1), ins: "|" + helperFilter + "(1)", class: suffix})
				use(helperFilter)
			case gen && t.text == "|" && next.kind == 'n' && sizedFilters[next.text]:
				edits = append(edits, edit{off: next.off, ins: helperFilter + "|", class: prefix})
			case t.text == "|" && next.kind == 'n' && seqFilters[next.text]:
				edits = append(edits, edit{off: next.off, ins: helperSeq + "(" + line + ")|", class: prefix})
				use(helperSeq)
			case t.text == "|" && next.kind == 'n' && printFilters[next.text]:
				edits = append(edits, edit{off: next.off, ins: helperPrint + "(" + line + ")|", class: prefix})
				use(helperPrint)
			case t.text == "|" && next.kind == 'n' && budgetFilters[next.text] != "":
				edits = append(edits, budgetFilter(toks, i+1, line))
				use(budgetFilters[next.text])
			case t.text == "|" && next.kind == 'n' && next.text == "safe":
				edits = append(edits, edit{off: next.off, del: len(next.text), ins: helperSafe, class: replace})
				use(helperSafe)
			case t.text == "|" && next.kind == 'n' && markupFilters[next.text]:
				edits = append(edits, edit{off: next.off, del: len(next.text), ins: helperSafe + "(1)", class: replace})
				use(helperSafe)
			case t.kind == 'n' && t.text == "loop" && next.text == "(" && !afterDot:
				if end := filterEnd(toks, i); end > next.off+1 {
					edits = append(edits, wrap(t.off, end, helperLeave+"(", ")")...)
					edits = append(edits, wrap(next.off+1, end-1, helperGuard+"("+line+", ", ")")...)
					use(helperGuard)
					use(helperLeave)
				}
			case t.kind == 'n' && t.text == "namespace" && next.text == "(" && !afterDot:
				edits = append(edits, edit{off: t.off, ins: "__lrt_", class: prefix})
				use(helperNS)
			case t.text == "." && next.kind == 'n' && mutatingMethods[next.text]:
				edits = append(edits, edit{off: next.off, ins: unsafePrefix, class: prefix})
			}
		}
		// After the other edits, so that a "+" run is the innermost of
		// wrappers with the same span.
		edits = append(edits, addEdits(src, tg.kind, toks, tg.line, &info)...)
	}
	for name := range info.helpers {
		info.names[name] = true
	}
	if len(edits) == 0 {
		return src, info
	}
	sort.SliceStable(edits, func(a, b int) bool {
		x, y := edits[a], edits[b]
		if x.off != y.off {
			return x.off < y.off
		}
		if x.class != y.class {
			return x.class < y.class
		}
		return x.other > y.other
	})
	var b strings.Builder
	b.Grow(len(src) + 16*len(edits))
	prev := 0
	for _, e := range edits {
		if e.off < prev {
			continue // overlaps a replaced token; cannot happen for well-formed edits
		}
		b.WriteString(src[prev:e.off])
		b.WriteString(e.ins)
		prev = e.off + e.del
	}
	b.WriteString(src[prev:])
	return b.String(), info
}

// addEdits routes the "+" runs of one tag through __lrt_add, and its
// binary "-" through __lrt_sub, and records their sites in info. Runs of
// literals only stay as they are: the engine computes them exactly as
// Python does.
func addEdits(src string, kind tagKind, toks []token, line int, info *rewriteInfo) []edit {
	var edits []edit
	for _, c := range addChains(kind, toks) {
		if c.format {
			// The left operand of "%" passes through __lrt_fmt, which
			// counts the widths in a format string.
			o := c.operands[0]
			edits = append(edits, wrap(toks[o.lo].off, spanEnd(toks, o), helperFmt+"("+strconv.Itoa(line)+", ", ")")...)
			info.helpers[helperFmt] = true
			continue
		}
		if c.method != "" {
			// OBJ.METHOD(ARGS) becomes __lrt_method(LINE, 'METHOD', OBJ, ARGS).
			dot, paren, closeParen := toks[c.call[0]], toks[c.call[1]], toks[c.call[2]]
			ins := ", "
			if c.call[2] == c.call[1]+1 {
				ins = ""
			}
			edits = append(edits,
				edit{off: toks[c.operands[0].lo].off, ins: fmt.Sprintf("%s(%d, '%s', ", helperMethod, line, c.method), class: opener, other: closeParen.off + 1},
				edit{off: dot.off, del: paren.off + 1 - dot.off, ins: ins, class: replace})
			info.helpers[helperMethod] = true
			continue
		}
		if c.cat || c.mul {
			// "~" builds a new plain string (the engine's "~" may return
			// an operand itself, keeping its Markup mark, where jinja2
			// makes a plain str), and both it and "*" may build large
			// ones: their helpers count the bytes (limits.go).
			name := helperCat
			if c.mul {
				name = helperMul
			}
			edits = append(edits, wrap(toks[c.operands[0].lo].off, spanEnd(toks, c.operands[len(c.operands)-1]), name+"("+strconv.Itoa(line)+", ", ")")...)
			for _, p := range c.plus {
				edits = append(edits, edit{off: toks[p].off, del: len(toks[p].text), ins: ",", class: replace})
			}
			info.helpers[name] = true
			continue
		}
		// Runs of string literals, and arithmetic on numbers (literals,
		// loop.index, x|length, ...), compute in the engine exactly as in
		// Python.
		literal, numeric := true, true
		for _, o := range c.operands {
			literal = literal && o.kind == opStrLit && !c.sub
			numeric = numeric && o.numeric
		}
		if literal || numeric {
			continue
		}
		site := addSite{undefined: make([]string, len(c.operands)), line: line}
		for i, o := range c.operands {
			site.undefined[i] = undefinedMessage(o, spanText(src, toks, o))
		}
		start := toks[c.operands[0].lo].off
		end := spanEnd(toks, c.operands[len(c.operands)-1])
		name := helperAdd
		if c.sub {
			name = helperSub
		}
		info.helpers[name] = true
		edits = append(edits, wrap(start, end, name+"("+strconv.Itoa(len(info.adds))+", ", ")")...)
		for _, p := range c.plus {
			edits = append(edits, edit{off: toks[p].off, del: 1, ins: ",", class: replace})
		}
		info.adds = append(info.adds, site)
	}
	return edits
}

// spanEnd returns the source offset just after an expression.
func spanEnd(toks []token, e exprInfo) int {
	last := toks[e.hi-1]
	return last.off + len(last.text)
}

// spanText returns the source text of an expression.
func spanText(src string, toks []token, e exprInfo) string {
	last := toks[e.hi-1]
	return src[toks[e.lo].off : last.off+len(last.text)]
}

// macroRefs records whether a macro body refers to kwargs and varargs.
type macroRefs struct{ kwargs, varargs bool }

// macroBodyRefs returns, for each macro tag (by tag index), which of the
// special names kwargs and varargs its body refers to.
func macroBodyRefs(tags []tag, lexed [][]token) map[int]macroRefs {
	refs := map[int]macroRefs{}
	var open []int
	for n, toks := range lexed {
		if tags[n].kind == tagStmt && len(toks) > 0 && toks[0].kind == 'n' {
			switch toks[0].text {
			case "macro":
				open = append(open, n)
				continue
			case "endmacro":
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
				continue
			}
		}
		for i, t := range toks {
			if t.kind != 'n' || i > 0 && toks[i-1].text == "." || t.text != "kwargs" && t.text != "varargs" {
				continue
			}
			for _, m := range open {
				r := refs[m]
				if t.text == "kwargs" {
					r.kwargs = true
				} else {
					r.varargs = true
				}
				refs[m] = r
			}
		}
	}
	return refs
}

// macroEntry returns the call that starts the body of the macro defined by
// toks: __lrt_macro(kwargs, varargs, NAME, NOKWARGS, MAXARGS). Its first argument
// refers to kwargs, so the engine, which scans a macro body for a reference
// to kwargs every time the macro tag runs, stops scanning at once and
// always collects extra keyword arguments into kwargs. __lrt_macro then
// rejects extra keyword arguments (NOKWARGS true) and extra positional
// arguments (MAXARGS >= 0) as jinja2 does when the body does not use
// kwargs or varargs.
func macroEntry(toks []token, refs macroRefs, line int, text int64) string {
	name := ""
	if len(toks) > 1 && toks[1].kind == 'n' {
		name = toks[1].text
	}
	params := 0
	depth := 0
	for i := 2; i < len(toks); i++ {
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
		if depth == 1 && toks[i].kind == 'n' && i+1 < len(toks) && (toks[i-1].text == "(" || toks[i-1].text == ",") {
			params++
		}
	}
	maxArgs := -1
	if !refs.varargs {
		maxArgs = params
	}
	return fmt.Sprintf("%s(kwargs, varargs, '%s', %t, %d, %d, %d)", helperMacro, name, !refs.kwargs, maxArgs, line, text)
}

// afterMarker returns the right whitespace control for a statement tag
// inserted right after tag tg that leaves the trimming of the text after
// it unchanged: "-" after a tag that strips, else "+". (The engine applies
// trim_blocks once per block tag to the next text, even past adjacent
// tags, so the inserted tag must not trim itself.)
func afterMarker(src string, tg tag) string {
	if src[tg.end] == '-' {
		return "-"
	}
	return "+"
}

// rewriteFor wraps the iterable of "for TARGETS in ITER [if COND] [recursive]"
// in __lrt_iter(LINE, TEXT, ...), where TEXT is the bytes of text the loop
// body writes per iteration.
func rewriteFor(toks []token, line int, text int64) ([]edit, bool) {
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
	return wrap(toks[in+1].off, end, fmt.Sprintf("%s(%d, %d, ", helperIter, line, text), ")"), true
}

// budgetFilter returns the edit that turns the filter named by toks[i]
// into its budget helper (budgetFilters), with the template line as the
// helper's first argument: "x|join(', ')" becomes
// "x|__lrt_join(LINE, ', ')".
func budgetFilter(toks []token, i int, line string) edit {
	name := toks[i]
	helper := budgetFilters[name.text]
	if i+1 < len(toks) && toks[i+1].text == "(" && toks[i+1].kind == 'p' {
		sep := ", "
		if i+2 < len(toks) && toks[i+2].text == ")" {
			sep = ""
		}
		paren := toks[i+1]
		return edit{off: name.off, del: paren.off + 1 - name.off, ins: helper + "(" + line + sep, class: replace}
	}
	return edit{off: name.off, del: len(name.text), ins: helper + "(" + line + ")", class: replace}
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
