package template

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/ardanlabs/jinja"
)

// jinja2's "+" is Python's: adding an undefined value raises UndefinedError,
// adding values of different types raises TypeError, and a
// markupsafe.Markup string (what |safe and |escape return) HTML-escapes the
// plain string added to it. The engine's "+" converts everything to text
// instead (and its "~" binds looser than "+" and "-", unlike jinja2's), so
// rewrite (rewrite.go) turns every run "a + b + c" into
// __lrt_add(SITE, a, b, c) and every "a - b" into __lrt_sub(SITE, a, b),
// evaluated here with Python's rules, left to right. SITE indexes the
// template's addSite table, which holds the UndefinedError message for each
// operand. Arithmetic whose operands are always numbers (loop.index0 + 1)
// stays native.
//
// The engine has no Markup type. Markup strings are marked per render by
// the address of their bytes: |safe and |escape copy the string into a
// fresh allocation and record it (helpers.safe), and Markup results of "+"
// are recorded too. A string keeps its mark wherever the engine passes it
// unchanged (variables, namespaces, macro arguments, filters that return
// their input), and loses it when the engine builds a new string. Where
// jinja2 makes a plain str ("~"), templates that use Markup call
// __lrt_cat, which always builds a new string; where jinja2 keeps Markup
// (upper, trim and other str methods and filters on a Markup string), the
// mark is lost, a known difference, as is an empty Markup string (see
// markSafe).

// addSite describes one rewritten "+" run: for each operand, the message
// of the UndefinedError raised when it is undefined.
type addSite struct {
	undefined []string
	line      int // the template line
}

// undefinedMessage returns the UndefinedError message for an operand of
// the given kind, as jinja2 words it.
func undefinedMessage(e exprInfo, src string) string {
	switch e.kind {
	case opName:
		return fmt.Sprintf("UndefinedError: '%s' is undefined", e.key)
	case opKeyed:
		return fmt.Sprintf("UndefinedError: 'dict object' has no attribute '%s'", e.key)
	case opIndexed:
		return fmt.Sprintf("UndefinedError: list object has no element %s", e.key)
	}
	return fmt.Sprintf("UndefinedError: '%s' is undefined", src)
}

// add implements __lrt_add(SITE, operands...).
func (h *helpers) add(args []Value, _ map[string]Value) (Value, error) {
	if len(args) < 3 || !args[0].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_add: malformed call with %d arguments", len(args))
	}
	site, ops := int(args[0].AsInt()), args[1:]
	if err := h.b.step(h.siteLine(site), 1); err != nil {
		return jinja.Undefined(), err
	}
	// Fast path: plain strings concatenate in one allocation.
	n := 0
	for _, v := range ops {
		if !v.IsString() || h.isSafe(v.AsString()) {
			n = -1
			break
		}
		n += len(v.AsString())
	}
	if n >= 0 {
		if err := h.b.alloc(h.siteLine(site), int64(n)); err != nil {
			return jinja.Undefined(), err
		}
		if len(ops) == 2 {
			return jinja.NewString(ops[0].AsString() + ops[1].AsString()), nil
		}
		var b strings.Builder
		b.Grow(n)
		for _, v := range ops {
			b.WriteString(v.AsString())
		}
		return jinja.NewString(b.String()), nil
	}
	acc := ops[0]
	if acc.IsUndefined() {
		return acc, h.undefinedError(site, 0)
	}
	for i := 1; i < len(ops); i++ {
		v := ops[i]
		if v.IsUndefined() {
			return v, h.undefinedError(site, i)
		}
		var err error
		if acc, err = h.add2(h.siteLine(site), acc, v); err != nil {
			return acc, err
		}
	}
	return acc, nil
}

// siteLine returns the template line of "+" site, or 0.
func (h *helpers) siteLine(site int) int {
	if site >= 0 && site < len(h.sites) {
		return h.sites[site].line
	}
	return 0
}

// undefinedError returns the UndefinedError for operand i of site.
func (h *helpers) undefinedError(site, i int) error {
	if site >= 0 && site < len(h.sites) && i < len(h.sites[site].undefined) {
		return fmt.Errorf("%s", h.sites[site].undefined[i])
	}
	return fmt.Errorf("UndefinedError: operand %d of '+' is undefined", i+1)
}

// add2 computes a + b for defined a and b as Python does, counting the
// string or list it builds at line.
func (h *helpers) add2(line int, a, b Value) (Value, error) {
	switch {
	case a.IsString():
		as := a.AsString()
		am := h.isSafe(as)
		if !b.IsString() {
			if am {
				return jinja.Undefined(), typeError(a, b, true)
			}
			return jinja.Undefined(), fmt.Errorf(`TypeError: can only concatenate str (not "%s") to str`, pyTypeName(b))
		}
		bs := b.AsString()
		bm := h.isSafe(bs)
		// Escaping at most multiplies a string's length by five.
		n := int64(len(as) + len(bs))
		if am != bm {
			n *= 5
		}
		if err := h.b.alloc(line, n); err != nil {
			return jinja.Undefined(), err
		}
		if !am && !bm {
			return jinja.NewString(as + bs), nil
		}
		// Markup + str escapes the str (and str + Markup calls
		// Markup.__radd__, which escapes the left operand).
		if !am {
			as = htmlEscape(as)
		}
		if !bm {
			bs = htmlEscape(bs)
		}
		return h.markSafe(as + bs), nil
	case b.IsString() && h.isSafe(b.AsString()):
		return jinja.Undefined(), typeError(a, b, true)
	case a.IsList():
		if !b.IsList() {
			return jinja.Undefined(), fmt.Errorf(`TypeError: can only concatenate list (not "%s") to list`, pyTypeName(b))
		}
		x, y := a.AsList().Items, b.AsList().Items
		if err := h.b.allocN(line, int64(len(x)+len(y)), valueSize); err != nil {
			return jinja.Undefined(), err
		}
		items := make([]Value, 0, len(x)+len(y))
		items = append(append(items, x...), y...)
		return jinja.NewList(items), nil
	case isNumber(a) && isNumber(b):
		if a.IsFloat() || b.IsFloat() {
			return jinja.NewFloat(toFloat(a) + toFloat(b)), nil
		}
		return jinja.NewInt(toInt(a) + toInt(b)), nil
	}
	return jinja.Undefined(), typeError(a, b, false)
}

// sub implements __lrt_sub(SITE, a, b): Python's a - b, defined for
// numbers only.
func (h *helpers) sub(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 3 || !args[0].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_sub: malformed call with %d arguments", len(args))
	}
	site, a, b := int(args[0].AsInt()), args[1], args[2]
	switch {
	case a.IsUndefined():
		return a, h.undefinedError(site, 0)
	case b.IsUndefined():
		return b, h.undefinedError(site, 1)
	case isNumber(a) && isNumber(b):
		if a.IsFloat() || b.IsFloat() {
			return jinja.NewFloat(toFloat(a) - toFloat(b)), nil
		}
		return jinja.NewInt(toInt(a) - toInt(b)), nil
	}
	an, bn := pyTypeName(a), pyTypeName(b)
	if a.IsString() && h.isSafe(a.AsString()) {
		an = "Markup"
	}
	if b.IsString() && h.isSafe(b.AsString()) {
		bn = "Markup"
	}
	return jinja.Undefined(), fmt.Errorf("TypeError: unsupported operand type(s) for -: '%s' and '%s'", an, bn)
}

// typeError is Python's TypeError for unsupported "+" operands.
func typeError(a, b Value, markup bool) error {
	an, bn := pyTypeName(a), pyTypeName(b)
	if markup {
		if a.IsString() {
			an = "Markup"
		} else {
			bn = "Markup"
		}
	}
	return fmt.Errorf("TypeError: unsupported operand type(s) for +: '%s' and '%s'", an, bn)
}

func isNumber(v Value) bool { return v.IsInt() || v.IsFloat() || v.IsBool() }

func toInt(v Value) int64 {
	switch {
	case v.IsInt():
		return v.AsInt()
	case v.IsBool() && v.AsBool():
		return 1
	}
	return 0
}

func toFloat(v Value) float64 {
	if v.IsFloat() {
		return v.AsFloat()
	}
	return float64(toInt(v))
}

// isSafe reports whether s is a Markup string of this render.
func (h *helpers) isSafe(s string) bool {
	if len(h.safe) == 0 {
		return false
	}
	n, ok := h.safe[unsafe.StringData(s)]
	return ok && n == len(s)
}

// markSafe copies s into a fresh allocation, records it as Markup and
// returns it. An empty string cannot be marked: the engine boxes every
// empty string as the same value, so an empty Markup string is a plain one
// (a known difference: Markup(”) + '<' escapes in jinja2).
func (h *helpers) markSafe(s string) Value {
	if s == "" {
		return jinja.NewString("")
	}
	buf := make([]byte, len(s))
	copy(buf, s)
	if h.safe == nil {
		h.safe = make(map[*byte]int, 4)
	}
	h.safe[&buf[0]] = len(s)
	return jinja.NewString(unsafe.String(&buf[0], len(s)))
}

// safeFilter implements the __lrt_safe filter: "x|__lrt_safe" is jinja2's
// "x|safe" (Markup(x)) and "x|__lrt_safe(1)" is "x|escape"
// (markupsafe.escape(x)). Markup input is returned unchanged.
func (h *helpers) safeFilter(args []Value, _ map[string]Value) (Value, error) {
	if len(args) == 0 {
		return jinja.NewString(""), nil
	}
	v := args[0]
	escape := len(args) > 1
	if v.IsString() && h.isSafe(v.AsString()) {
		return v, nil
	}
	if v.IsList() || v.IsDict() {
		if err := h.b.alloc(h.b.line, printedSize(v, h.b.room())); err != nil {
			return jinja.Undefined(), err
		}
	}
	s := printed(v) // Markup(x) is a string: str(x)
	if escape {
		s = htmlEscape(s)
	}
	return h.markSafe(s), nil
}

// printed is str(v) as the engine prints it.
func printed(v Value) string {
	switch {
	case v.IsString():
		return v.AsString()
	case v.IsUndefined() || v.IsCallable():
		return ""
	}
	return v.String()
}

// cat implements __lrt_cat(LINE, operands...), jinja2's "~": the operands
// as text, joined into a new plain string (never one of the operands
// themselves, which may be Markup), counted before it is built.
func (h *helpers) cat(args []Value, _ map[string]Value) (Value, error) {
	if len(args) < 1 || !args[0].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_cat: malformed call with %d arguments", len(args))
	}
	line, ops := int(args[0].AsInt()), args[1:]
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	n, room, exact := int64(0), h.b.room(), true
	for _, v := range ops {
		n += printedSize(v, room-n)
		exact = exact && v.IsString()
		if n > room {
			break
		}
	}
	if err := h.b.alloc(line, n); err != nil {
		return jinja.Undefined(), err
	}
	var b strings.Builder
	if exact {
		b.Grow(int(n))
	}
	for _, v := range ops {
		b.WriteString(printed(v))
	}
	return jinja.NewString(b.String()), nil
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// htmlEscape is markupsafe.escape for a plain string.
func htmlEscape(s string) string { return htmlEscaper.Replace(s) }
