package template

import (
	"fmt"
	"runtime"

	"github.com/ardanlabs/jinja"
)

// pyTypeName names a value's Python type for error messages.
func pyTypeName(v Value) string {
	switch {
	case v.IsUndefined():
		return "Undefined"
	case v.IsNone():
		return "NoneType"
	case v.IsBool():
		return "bool"
	case v.IsInt():
		return "int"
	case v.IsFloat():
		return "float"
	case v.IsString():
		return "str"
	case v.IsList():
		return "list"
	case v.IsDict():
		return "dict"
	}
	return "function"
}

// iterHelper implements __lrt_iter: the iterable of a for loop must be a
// list, dict, string or undefined (which iterates as empty).
func iterHelper(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 1 {
		// "for x in a, b" iterates over the tuple (a, b).
		return jinja.NewList(args), nil
	}
	v := args[0]
	if v.IsList() || v.IsDict() || v.IsString() || v.IsUndefined() {
		return v, nil
	}
	return jinja.Undefined(), fmt.Errorf("TypeError: '%s' object is not iterable", pyTypeName(v))
}

// helpers holds the per-render state of the rewrite helpers (rewrite.go).
type helpers struct {
	// gens holds the lists that stand for jinja2 generators (results of
	// map, select, reject, selectattr, rejectattr).
	gens map[*jinja.List]bool
	// spaces holds the dicts made by namespace().
	spaces map[*jinja.Dict]bool
	// calls counts macro and recursive-loop calls.
	calls int
	// safe holds the Markup strings of this render, by the address of
	// their bytes, with their length (see add.go).
	safe map[*byte]int
	// sites are the template's "+" runs (add.go).
	sites []addSite
	// jsonBuf and jsonNL are tojson's scratch buffers (output, and newline
	// plus indentation), reused within the render.
	jsonBuf, jsonNL []byte
}

// stateful reports whether a helper global needs per-render state.
func stateful(name string) bool { return name != helperIter }

// callable returns helper global name bound to this render's state.
func (h *helpers) callable(name string) Value {
	switch name {
	case helperGuard:
		return jinja.NewCallable(name, h.guard)
	case helperMacro:
		return jinja.NewCallable(name, h.macro)
	case helperNS:
		// Named "dict" so that the engine adds the keyword arguments in
		// source order, as it does for dict().
		return jinja.NewCallable("dict", h.namespace)
	case helperNSSet:
		return jinja.NewCallable(name, h.nsset)
	case helperFilter:
		return jinja.NewCallable(name, h.generator)
	case helperAdd:
		return jinja.NewCallable(name, h.add)
	case helperSub:
		return jinja.NewCallable(name, h.sub)
	case helperCat:
		return jinja.NewCallable(name, catHelper)
	case helperSafe:
		return jinja.NewCallable(name, h.safeFilter)
	case helperJSON:
		return jinja.NewCallable(name, h.jsonFilter)
	}
	return jinja.Undefined()
}

// generator implements the __lrt_g filter: "x|__lrt_g(1)" records list x as
// a generator; "x|__lrt_g" fails if x is a generator, as len does in
// Python.
func (h *helpers) generator(args []Value, _ map[string]Value) (Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), nil
	}
	v := args[0]
	if len(args) > 1 {
		if v.IsList() {
			if h.gens == nil {
				h.gens = make(map[*jinja.List]bool)
			}
			h.gens[v.AsList()] = true
		}
		return v, nil
	}
	if v.IsList() && h.gens[v.AsList()] {
		return jinja.Undefined(), fmt.Errorf("TypeError: object of type 'generator' has no len()")
	}
	return v, nil
}

// Recursion limits for guard: after guardFreeCalls macro or loop calls in
// one render, every guardCheckEvery-th call checks that the Go stack is
// shallower than guardMaxFrames frames. Python stops at about 1000 frames,
// a few hundred macro levels; guardMaxFrames (some thousands of macro levels)
// allows far more, yet stays far
// below the Go stack limit.
const (
	guardFreeCalls  = 4096
	guardCheckEvery = 256
	guardMaxFrames  = 30_000
)

// guard implements __lrt_guard: it counts a macro or recursive-loop call and fails once recursion runs
// away. It returns its argument, or an empty string.
func (h *helpers) guard(args []Value, _ map[string]Value) (Value, error) {
	h.calls++
	if h.calls >= guardFreeCalls && h.calls%guardCheckEvery == 0 {
		var pc [1]uintptr
		if runtime.Callers(guardMaxFrames, pc[:]) > 0 {
			return jinja.Undefined(), fmt.Errorf("RecursionError: maximum recursion depth exceeded in macro or recursive loop")
		}
	}
	if len(args) > 0 {
		return args[0], nil
	}
	return jinja.NewString(""), nil
}

// macro implements __lrt_macro(kwargs, varargs, NAME, NOKWARGS, MAXARGS)
// at the start of every macro body (see macroEntry): it counts the call
// like guard and, as jinja2 does for a macro whose body does not use
// kwargs or varargs, rejects extra keyword arguments (NOKWARGS) and more
// than MAXARGS positional arguments (MAXARGS >= 0). It returns an empty
// string.
func (h *helpers) macro(args []Value, _ map[string]Value) (Value, error) {
	if _, err := h.guard(nil, nil); err != nil {
		return jinja.Undefined(), err
	}
	if len(args) != 5 || !args[2].IsString() || !args[3].IsBool() || !args[4].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_macro: malformed call with %d arguments", len(args))
	}
	name := args[2].AsString()
	if kw := args[0]; args[3].AsBool() && kw.IsDict() {
		for _, k := range kw.AsDict().Keys {
			if k != "caller" {
				return jinja.Undefined(), fmt.Errorf("TypeError: macro '%s' takes no keyword argument '%s'", name, k)
			}
		}
	}
	if n := args[4].AsInt(); n >= 0 && args[1].IsList() && len(args[1].AsList().Items) > 0 {
		return jinja.Undefined(), fmt.Errorf("TypeError: macro '%s' takes not more than %d argument(s)", name, n)
	}
	return jinja.NewString(""), nil
}

// namespace implements namespace(): a dict of its keyword arguments,
// optionally initialised from a positional dict, recorded as a namespace.
func (h *helpers) namespace(args []Value, kwargs map[string]Value) (Value, error) {
	if len(args) > 1 {
		return jinja.Undefined(), fmt.Errorf("namespace() takes at most one positional argument, got %d", len(args))
	}
	v := jinja.NewDict()
	d := v.AsDict()
	if len(args) == 1 {
		if !args[0].IsDict() {
			return jinja.Undefined(), fmt.Errorf("namespace(): positional argument must be a dict, got %s", pyTypeName(args[0]))
		}
		src := args[0].AsDict()
		for _, k := range src.Keys {
			d.Set(k, src.Data[k])
		}
	}
	for k, val := range kwargs {
		d.Set(k, val)
	}
	if h.spaces == nil {
		h.spaces = make(map[*jinja.Dict]bool, 2)
	}
	h.spaces[d] = true
	return v, nil
}

// nsset implements __lrt_nsset(obj, value): it returns value if obj is a
// namespace and fails otherwise.
func (h *helpers) nsset(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 2 {
		return jinja.Undefined(), fmt.Errorf("nsset: want 2 arguments, got %d", len(args))
	}
	if !args[0].IsDict() || !h.spaces[args[0].AsDict()] {
		return jinja.Undefined(), fmt.Errorf("TemplateRuntimeError: cannot assign attribute on non-namespace object (%s)", pyTypeName(args[0]))
	}
	return args[1], nil
}

// maxRange is jinja2.sandbox.MAX_RANGE: the sandbox refuses larger ranges.
const maxRange = 100000

// safeRange implements the range() global as jinja2's sandbox does
// (safe_range): like Python's range, refusing more than maxRange items.
func safeRange(args []Value, _ map[string]Value) (Value, error) {
	var start, stop, step int64 = 0, 0, 1
	ints := make([]int64, len(args))
	for i, a := range args {
		switch {
		case a.IsInt():
			ints[i] = a.AsInt()
		case a.IsBool():
			if a.AsBool() {
				ints[i] = 1
			}
		default:
			return jinja.Undefined(), fmt.Errorf("TypeError: '%s' object cannot be interpreted as an integer", pyTypeName(a))
		}
	}
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return jinja.Undefined(), fmt.Errorf("TypeError: range expected 1 to 3 arguments, got %d", len(args))
	}
	if step == 0 {
		return jinja.Undefined(), fmt.Errorf("ValueError: range() arg 3 must not be zero")
	}
	var n int64
	switch {
	case step > 0 && stop > start:
		n = (stop - start + step - 1) / step
	case step < 0 && stop < start:
		n = (start - stop - step - 1) / -step
	}
	if n < 0 || n > maxRange {
		return jinja.Undefined(), fmt.Errorf("OverflowError: range too big, the sandbox allows at most %d items", maxRange)
	}
	items := make([]Value, n)
	for i := range items {
		items[i] = jinja.NewInt(start + int64(i)*step)
	}
	return jinja.NewList(items), nil
}
