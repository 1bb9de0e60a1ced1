package template

import (
	"errors"
	"fmt"
	"runtime"
	"unicode/utf8"

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

// iter implements __lrt_iter(LINE, TEXT, EXPR...): the iterable of a for
// loop must be a list, dict, string or undefined (which iterates as empty).
// Each iteration writes TEXT bytes of the body's text, counted here, and
// starts with a tick (__lrt_tick).
func (h *helpers) iter(args []Value, _ map[string]Value) (Value, error) {
	if len(args) < 3 || !args[0].IsInt() || !args[1].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_iter: malformed call with %d arguments", len(args))
	}
	line, text := int(args[0].AsInt()), args[1].AsInt()
	var v Value
	n := 0
	switch items := args[2:]; {
	case len(items) != 1:
		// "for x in a, b" iterates over the tuple (a, b).
		v, n = jinja.NewList(items), len(items)
	case items[0].IsList():
		v, n = items[0], len(items[0].AsList().Items)
	case items[0].IsDict():
		v, n = items[0], len(items[0].AsDict().Keys)
	case items[0].IsString():
		v, n = items[0], utf8.RuneCountInString(items[0].AsString())
	case items[0].IsUndefined():
		v = items[0]
	default:
		return jinja.Undefined(), fmt.Errorf("TypeError: '%s' object is not iterable", pyTypeName(items[0]))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	// The engine makes a list of a string's characters or a dict's keys
	// before the loop starts, so a loop longer than the steps left fails
	// first.
	if !v.IsList() {
		if int64(n) > h.b.lim.MaxSteps-h.b.steps {
			return jinja.Undefined(), &LimitError{Limit: LimitSteps, Max: h.b.lim.MaxSteps, Line: line}
		}
		text += 2 * valueSize
	}
	if err := h.b.text(line, int64(n), text); err != nil {
		return jinja.Undefined(), err
	}
	return v, nil
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
	// b is the render's budget (limits.go).
	b budget
}

// callable returns helper global name bound to this render's state.
func (h *helpers) callable(name string) Value {
	switch name {
	case "range":
		return jinja.NewCallable(name, h.safeRange)
	case helperTick:
		return jinja.NewCallable(name, h.tick)
	case helperSeq:
		return jinja.NewCallable(name, h.seq)
	case helperPrint:
		return jinja.NewCallable(name, h.print)
	case helperFmt:
		return jinja.NewCallable(name, h.format)
	case helperMethod:
		return jinja.NewCallable(name, h.method)
	case helperIter:
		return jinja.NewCallable(name, h.iter)
	case helperOut:
		return jinja.NewCallable(name, h.out)
	case helperLeave:
		return jinja.NewCallable(name, h.leave)
	case helperMul:
		return jinja.NewCallable(name, h.mul)
	case helperIndent:
		return jinja.NewCallable(name, h.indent)
	case helperRepl:
		return jinja.NewCallable(name, h.replace)
	case helperJoin:
		return jinja.NewCallable(name, h.join)
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
		return jinja.NewCallable(name, h.cat)
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

// tick implements __lrt_tick(LINE, TEXT), the first tag of every loop
// body: each iteration is a step, looks at the clock and writes TEXT bytes
// of text to the prompt (already counted as memory by __lrt_iter). It
// returns undefined.
func (h *helpers) tick(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperTick, args, 0)
	if err != nil || len(args) != 2 || !args[1].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_tick: malformed call with %d arguments", len(args))
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if n := args[1].AsInt(); n > 0 {
		if h.b.output += n; h.b.output > h.b.lim.MaxOutput {
			return jinja.Undefined(), &LimitError{Limit: LimitOutput, Max: h.b.lim.MaxOutput, Line: line}
		}
	}
	return jinja.Undefined(), h.b.checkTime(line)
}

// seq implements x|__lrt_seq(LINE), placed before the filters that turn a
// string into a list of its characters (seqFilters): it counts that list.
// It returns x.
func (h *helpers) seq(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperSeq, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if v := args[0]; v.IsString() {
		if err := h.b.allocN(line, int64(utf8.RuneCountInString(v.AsString())), valueSize); err != nil {
			return jinja.Undefined(), err
		}
	}
	return args[0], nil
}

// print implements x|__lrt_print(LINE), placed before the filters that
// print their input (printFilters): it counts a list or dict as printed.
// It returns x.
func (h *helpers) print(args []Value, _ map[string]Value) (Value, error) {
	line, err := lineArg(helperPrint, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if v := args[0]; v.IsList() || v.IsDict() {
		if err := h.b.alloc(line, printedSize(v, h.b.room())); err != nil {
			return jinja.Undefined(), err
		}
	}
	return args[0], nil
}

// guard implements __lrt_guard(LINE, ITEMS), the argument of a recursive
// loop's loop(ITEMS) call: it counts a level of depth (which __lrt_leave,
// around the call, ends), a step per item, and fails once recursion runs
// away. It returns ITEMS.
func (h *helpers) guard(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 2 || !args[0].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_guard: malformed call with %d arguments", len(args))
	}
	line := int(args[0].AsInt())
	if err := h.recursion(line); err != nil {
		return jinja.Undefined(), err
	}
	n := 0
	if v := args[1]; v.IsList() {
		n = len(v.AsList().Items)
	} else if v.IsDict() {
		n = len(v.AsDict().Keys)
	}
	if err := h.b.step(line, 1+int64(n)); err != nil {
		return jinja.Undefined(), err
	}
	return args[1], nil
}

// recursion counts a macro or recursive-loop call at line: one level of
// the depth budget and, as a backstop for calls the budget does not see
// (caller()), after guardFreeCalls calls every guardCheckEvery-th call
// checks that the Go stack is shallower than guardMaxFrames frames.
func (h *helpers) recursion(line int) error {
	if err := h.b.enter(line); err != nil {
		return err
	}
	h.calls++
	if h.calls >= guardFreeCalls && h.calls%guardCheckEvery == 0 {
		var pc [1]uintptr
		if runtime.Callers(guardMaxFrames, pc[:]) > 0 {
			return &LimitError{Limit: LimitDepth, Max: int64(h.b.lim.MaxDepth), Line: line,
				Err: errors.New("RecursionError: maximum recursion depth exceeded in macro or recursive loop")}
		}
	}
	return nil
}

// leave implements __lrt_leave([X]), which ends a macro call or a
// recursive loop(...) call: it gives back the level of depth entered and
// returns X, or undefined (assigned to __lrt_d, never printed).
func (h *helpers) leave(args []Value, _ map[string]Value) (Value, error) {
	h.b.leave()
	if len(args) > 0 {
		return args[0], nil
	}
	return jinja.Undefined(), nil
}

// macro implements __lrt_macro(kwargs, varargs, NAME, NOKWARGS, MAXARGS,
// LINE, TEXT) at the start of every macro body (see macroEntry): it counts
// the call (a level of depth, a step and the TEXT bytes of the body's
// text) and, as jinja2 does for a macro whose body does not use kwargs or
// varargs, rejects extra keyword arguments (NOKWARGS) and more than
// MAXARGS positional arguments (MAXARGS >= 0). It returns an empty string.
func (h *helpers) macro(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 7 || !args[2].IsString() || !args[3].IsBool() || !args[4].IsInt() || !args[5].IsInt() || !args[6].IsInt() {
		return jinja.Undefined(), fmt.Errorf("__lrt_macro: malformed call with %d arguments", len(args))
	}
	line := int(args[5].AsInt())
	if err := h.recursion(line); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.text(line, 1, args[6].AsInt()); err != nil {
		return jinja.Undefined(), err
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
// (safe_range): like Python's range, refusing more than maxRange items. It
// counts the list it makes (at the line of the last step).
func (h *helpers) safeRange(args []Value, _ map[string]Value) (Value, error) {
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
	if err := h.b.step(h.b.line, 1); err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.allocN(h.b.line, n, valueSize); err != nil {
		return jinja.Undefined(), err
	}
	items := make([]Value, n)
	for i := range items {
		items[i] = jinja.NewInt(start + int64(i)*step)
	}
	return jinja.NewList(items), nil
}
