package template

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

// The helpers in this file do the work of engine operations that can build
// large strings or lists, with the same results, after counting what they
// build against the render's budget (limits.go): output tags, "*" and the
// indent, replace and join filters. Each takes the template line first.

// lineArg returns the line argument of a budget helper called as
// "x|helper(LINE, ...)" (at index 1) or "helper(LINE, ...)" (index 0).
func lineArg(name string, args []Value, i int) (int, error) {
	if len(args) <= i || !args[i].IsInt() {
		return 0, fmt.Errorf("%s: malformed call with %d arguments", name, len(args))
	}
	return int(args[i].AsInt()), nil
}

// out implements __lrt_out(LINE, FINAL, X), which every output tag
// {{ X }} calls: it counts the bytes X prints, as output of the prompt if
// FINAL is 1 (the tag is outside macros and blocks), and returns X.
func (h *helpers) out(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperOut, args, 0)
	if err != nil || len(args) != 3 || !args[1].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_out: malformed call with %d arguments", len(args))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	v := args[2]
	if err := h.b.write(line, printedSize(v, h.b.room()), args[1].AsInt() == 1); err != nil {
		return jinja.Undefined(), err
	}
	return v, nil
}

// mul implements __lrt_mul(LINE, a, b), Python's a * b for the operands
// rewrite does not know to be numbers: repetition of a string or list by
// an integer, counted before it is built, or a product of numbers as the
// engine computes it.
func (h *helpers) mul(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperMul, args, 0)
	if err != nil || len(args) != 3 {
		return jinja.Undefined(), fmt.Errorf("__lrt_mul: malformed call with %d arguments", len(args))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	a, b := args[1], args[2]
	if (a.IsInt() || a.IsBool()) && (b.IsString() || b.IsList()) {
		a, b = b, a
	}
	switch {
	case (a.IsString() || a.IsList()) && (b.IsInt() || b.IsBool()):
		count := max(toInt(b), 0)
		if a.IsString() {
			s := a.AsString()
			if err := h.b.allocN(line, count, int64(len(s))); err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewString(strings.Repeat(s, int(count))), nil
		}
		src := a.AsList().Items
		if count == 0 || len(src) == 0 {
			return jinja.NewList(nil), nil
		}
		if int64(len(src)) > h.b.lim.MaxValue/valueSize/count {
			return jinja.Undefined(), &LimitError{Limit: LimitValue, Max: h.b.lim.MaxValue, Line: line}
		}
		if err := h.b.allocN(line, count*int64(len(src)), valueSize); err != nil {
			return jinja.Undefined(), err
		}
		items := make([]Value, 0, int(count)*len(src))
		for range count {
			items = append(items, src...)
		}
		return jinja.NewList(items), nil
	case isNumber(a) && isNumber(b):
		if a.IsFloat() || b.IsFloat() {
			return jinja.NewFloat(toFloat(a) * toFloat(b)), nil
		}
		return jinja.NewInt(toInt(a) * toInt(b)), nil
	}
	if a.IsString() || a.IsList() {
		return jinja.Undefined(), fmt.Errorf("TypeError: can't multiply sequence by non-int of type '%s'", pyTypeName(b))
	}
	return jinja.Undefined(), fmt.Errorf("TypeError: unsupported operand type(s) for *: '%s' and '%s'", pyTypeName(a), pyTypeName(b))
}

// filterArg returns the filter argument at position i of args (after the
// input and the line) or keyword name, or fallback, as jinja2 binds
// filter parameters.
func filterArg(args []Value, kwargs map[string]Value, i int, name string, fallback Value) Value {
	if v, ok := kwargs[name]; ok {
		return v
	}
	if len(args) > i+1 {
		return args[i+1]
	}
	return fallback
}

// lineBreaks are the line boundaries of Python's str.splitlines.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\x1c", "\n", "\x1d", "\n",
	"\x1e", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// indent implements the indent filter, x|__lrt_indent(LINE, width=4,
// first=False, blank=False): every line of x but the first (and the
// first if first) and the blank ones (unless blank) prefixed with width
// spaces, or with width itself if it is a string.
func (h *helpers) indent(args []Value, kwargs map[string]Value) (Value, error) {
	line, err := lineArg(helperIndent, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	s := printed(args[0])
	width := filterArg(args, kwargs, 1, "width", jinja.NewInt(4))
	first := filterArg(args, kwargs, 2, "first", jinja.NewBool(false)).IsTruthy()
	blank := filterArg(args, kwargs, 3, "blank", jinja.NewBool(false)).IsTruthy()
	lines := strings.Split(lineBreaks.Replace(s), "\n")
	var padLen int64
	switch {
	case width.IsString():
		padLen = int64(len(width.AsString()))
	case width.IsFloat():
		padLen = max(0, int64(width.AsFloat()))
	default:
		padLen = max(0, toInt(width))
	}
	if err := h.b.allocN(line, int64(len(lines)), padLen+1); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.alloc(line, int64(len(s))); err != nil {
		return jinja.Undefined(), err
	}
	pad := ""
	if width.IsString() {
		pad = width.AsString()
	} else {
		pad = strings.Repeat(" ", int(padLen))
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if (i > 0 || first) && (l != "" || blank || i == 0 && first) {
			b.WriteString(pad)
		}
		b.WriteString(l)
	}
	return jinja.NewString(b.String()), nil
}

// replace implements the replace filter, x|__lrt_replace(LINE, old, new,
// count=None): x with the first count (or every) occurrence of old
// replaced by new.
func (h *helpers) replace(args []Value, kwargs map[string]Value) (Value, error) {
	line, err := lineArg(helperRepl, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if len(args) < 4 {
		return jinja.NewString(""), fmt.Errorf("replace: expected at least 3 arguments")
	}
	s, old, repl := printed(args[0]), printed(args[2]), printed(args[3])
	count := -1
	if c := filterArg(args, kwargs, 3, "count", jinja.None()); !c.IsNone() {
		count = int(toInt(c))
	}
	n := int64(strings.Count(s, old))
	if count >= 0 && int64(count) < n {
		n = int64(count)
	}
	if err := h.b.allocN(line, n, int64(len(repl))); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.alloc(line, int64(len(s))); err != nil {
		return jinja.Undefined(), err
	}
	return jinja.NewString(strings.Replace(s, old, repl, count)), nil
}

// join implements the join filter, x|__lrt_join(LINE, d="",
// attribute=None): the items of x (or their attribute) as text, joined by
// d.
func (h *helpers) join(args []Value, kwargs map[string]Value) (Value, error) {
	line, err := lineArg(helperJoin, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	sep := printed(filterArg(args, kwargs, 1, "d", jinja.NewString("")))
	attr := ""
	if a := filterArg(args, kwargs, 2, "attribute", jinja.None()); !a.IsNone() {
		attr = printed(a)
	}
	n := sequenceLen(args[0])
	if err := h.b.step(line, 1+n); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.allocN(line, n, valueSize); err != nil {
		return jinja.Undefined(), err
	}
	items := sequenceItems(args[0])
	size, room := n*int64(len(sep)), h.b.room()
	for i, it := range items {
		if attr != "" {
			it = attribute(it, attr)
			items[i] = it
		}
		if size += printedSize(it, room-size); size > room {
			break
		}
	}
	if err := h.b.alloc(line, size); err != nil {
		return jinja.Undefined(), err
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(printed(it))
	}
	return jinja.NewString(b.String()), nil
}

// sequenceLen returns the number of items iterating over v yields.
func sequenceLen(v Value) int64 {
	switch {
	case v.IsList():
		return int64(len(v.AsList().Items))
	case v.IsDict():
		return int64(len(v.AsDict().Keys))
	case v.IsString():
		return int64(utf8.RuneCountInString(v.AsString()))
	}
	return 0
}

// sequenceItems returns a fresh slice of the items iterating over v
// yields: a list's items, a dict's keys, a string's characters; nothing
// for other values.
func sequenceItems(v Value) []Value {
	switch {
	case v.IsList():
		return append([]Value(nil), v.AsList().Items...)
	case v.IsDict():
		keys := v.AsDict().Keys
		items := make([]Value, len(keys))
		for i, k := range keys {
			items[i] = jinja.NewString(k)
		}
		return items
	case v.IsString():
		var items []Value
		for _, r := range v.AsString() {
			items = append(items, jinja.NewString(string(r)))
		}
		return items
	}
	return nil
}

// attribute looks up a dotted attribute path ("a.b", "0") in v as the
// engine's filters do: dict keys, or indexes into sequences; undefined
// when absent.
func attribute(v Value, path string) Value {
	for part := range strings.SplitSeq(path, ".") {
		switch {
		case v.IsDict():
			var ok bool
			if v, ok = v.AsDict().Get(part); !ok {
				v = jinja.Undefined()
			}
		case v.IsList():
			items := v.AsList().Items
			i, err := strconv.Atoi(part)
			v = jinja.Undefined()
			if err == nil && i >= 0 && i < len(items) {
				v = items[i]
			}
		default:
			// The engine's filters index strings and dict keys too;
			// chat templates never do.
			v = jinja.Undefined()
		}
	}
	return v
}

// format implements __lrt_fmt(LINE, x), the left operand of "%": for a
// format string it counts the widths and precisions its conversions ask
// for, and refuses a "*" width taken from the arguments. It returns x.
func (h *helpers) format(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperFmt, args, 0)
	if err != nil || len(args) != 2 {
		return jinja.Undefined(), fmt.Errorf("__lrt_fmt: malformed call with %d arguments", len(args))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	v := args[1]
	if !v.IsString() {
		return v, nil
	}
	s := v.AsString()
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		for i++; i < len(s) && strings.IndexByte("#0- +0123456789.*hlL", s[i]) >= 0; i++ {
			switch c := s[i]; {
			case c == '*':
				return jinja.Undefined(), &LimitError{Limit: LimitValue, Max: h.b.lim.MaxValue, Line: line,
					Err: fmt.Errorf("a %%-format width or precision from the arguments (*) is not supported")}
			case c >= '1' && c <= '9':
				j := i
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				w, err := strconv.ParseInt(s[i:j], 10, 64)
				if err != nil || w > h.b.lim.MaxValue {
					return jinja.Undefined(), &LimitError{Limit: LimitValue, Max: h.b.lim.MaxValue, Line: line}
				}
				n += w
				i = j - 1
			}
		}
	}
	if err := h.b.alloc(line, n); err != nil {
		return jinja.Undefined(), err
	}
	return v, nil
}

// method implements __lrt_method(LINE, NAME, x, args...), the string
// methods x.replace(old, new[, count]), x.split([sep[, maxsplit]]) and
// x.format(args...) as the engine computes them, counting what they build
// first.
func (h *helpers) method(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperMethod, args, 0)
	if err != nil || len(args) < 3 || !args[1].IsString() {
		return jinja.Undefined(), fmt.Errorf("__lrt_method: malformed call with %d arguments", len(args))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	name, x, margs := args[1].AsString(), args[2], args[3:]
	if !x.IsString() {
		return jinja.Undefined(), fmt.Errorf("UndefinedError: '%s object' has no attribute '%s'", pyTypeName(x), name)
	}
	s := x.AsString()
	switch name {
	case "replace":
		if len(margs) < 2 {
			return x, nil
		}
		old, repl := printed(margs[0]), printed(margs[1])
		count := -1
		if len(margs) > 2 {
			count = int(toInt(margs[2]))
		}
		n := int64(strings.Count(s, old))
		if old == "" {
			n = int64(utf8.RuneCountInString(s)) + 1
		}
		if count >= 0 && int64(count) < n {
			n = int64(count)
		}
		if err := h.b.allocN(line, n, int64(len(repl))); err != nil {
			return jinja.Undefined(), err
		}
		if err := h.b.alloc(line, int64(len(s))); err != nil {
			return jinja.Undefined(), err
		}
		return jinja.NewString(strings.Replace(s, old, repl, count)), nil
	case "split":
		return h.split(line, s, margs)
	case "format":
		result := s
		for i, a := range margs {
			arg := printed(a)
			placeholder := "{" + strconv.Itoa(i) + "}"
			n := int64(strings.Count(result, placeholder)) + 1
			if err := h.b.allocN(line, n, int64(len(arg))); err != nil {
				return jinja.Undefined(), err
			}
			if err := h.b.alloc(line, 2*int64(len(result))); err != nil {
				return jinja.Undefined(), err
			}
			result = strings.ReplaceAll(result, placeholder, arg)
			result = strings.Replace(result, "{}", arg, 1)
		}
		return jinja.NewString(result), nil
	}
	return jinja.Undefined(), fmt.Errorf("__lrt_method: unknown method %q", name)
}

// split implements str.split([sep[, maxsplit]]) for method: on runs of
// whitespace without sep, else on sep, at most maxsplit times.
func (h *helpers) split(line int, s string, args []Value) (Value, error) {
	maxsplit := -1
	if len(args) > 1 {
		maxsplit = int(toInt(args[1]))
	}
	var parts []string
	if len(args) == 0 || args[0].IsNone() {
		if err := h.b.allocN(line, int64(len(s))/2+1, valueSize); err != nil {
			return jinja.Undefined(), err
		}
		rest := strings.TrimLeftFunc(s, pyWhitespace)
		for rest != "" {
			if maxsplit >= 0 && len(parts) == maxsplit {
				parts = append(parts, rest)
				break
			}
			i := strings.IndexFunc(rest, pyWhitespace)
			if i < 0 {
				parts = append(parts, rest)
				break
			}
			parts = append(parts, rest[:i])
			rest = strings.TrimLeftFunc(rest[i:], pyWhitespace)
		}
	} else {
		sep := printed(args[0])
		if sep == "" {
			return jinja.Undefined(), fmt.Errorf("split: empty separator")
		}
		n := int64(strings.Count(s, sep)) + 1
		if maxsplit >= 0 {
			n = min(n, int64(maxsplit)+1)
		}
		if err := h.b.allocN(line, n, valueSize); err != nil {
			return jinja.Undefined(), err
		}
		parts = strings.SplitN(s, sep, int(n))
	}
	items := make([]Value, len(parts))
	for i, p := range parts {
		items[i] = jinja.NewString(p)
	}
	return jinja.NewList(items), nil
}

// pyWhitespace reports whether r is whitespace to Python's str.split.
func pyWhitespace(r rune) bool { return unicode.IsSpace(r) || r >= '\x1c' && r <= '\x1f' }
