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

// generators tracks, for one render, the lists that stand for jinja2
// generators (results of map, select, reject, selectattr, rejectattr).
type generators struct {
	lists map[*jinja.List]bool
}

// mark implements __lrt_gen: it records its list argument as a generator.
func (g *generators) mark(args []Value, _ map[string]Value) (Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), nil
	}
	if args[0].IsList() {
		if g.lists == nil {
			g.lists = make(map[*jinja.List]bool)
		}
		g.lists[args[0].AsList()] = true
	}
	return args[0], nil
}

// check implements __lrt_nogen: it fails if its argument is or contains a
// generator, as json.dumps and len do in Python.
func (g *generators) check(args []Value, _ map[string]Value) (Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), nil
	}
	if len(g.lists) > 0 && g.contains(args[0], 0) {
		return jinja.Undefined(), fmt.Errorf("TypeError: object of type 'generator' is not JSON serializable and has no len(); apply |list first")
	}
	return args[0], nil
}

func (g *generators) contains(v Value, depth int) bool {
	if depth > 100 {
		return false
	}
	switch {
	case v.IsList():
		l := v.AsList()
		if g.lists[l] {
			return true
		}
		for _, it := range l.Items {
			if g.contains(it, depth+1) {
				return true
			}
		}
	case v.IsDict():
		d := v.AsDict()
		for _, k := range d.Keys {
			if g.contains(d.Data[k], depth+1) {
				return true
			}
		}
	}
	return false
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

// guard implements __lrt_guard for one render; see rewrite.go.
type guard struct {
	calls int
}

// call counts a macro or recursive-loop call and fails once recursion runs
// away. It returns its argument, or an empty string.
func (g *guard) call(args []Value, _ map[string]Value) (Value, error) {
	g.calls++
	if g.calls >= guardFreeCalls && g.calls%guardCheckEvery == 0 {
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

// namespaces tracks, for one render, the dicts created by namespace(), the
// only objects whose attributes "{% set obj.attr = ... %}" may assign.
type namespaces struct {
	made map[*jinja.Dict]bool
}

// create implements the namespace() global: a dict of its keyword
// arguments, optionally initialised from a positional dict. The callable
// is named "dict" so that the engine adds the keyword arguments in source
// order, as it does for dict().
func (n *namespaces) create(args []Value, kwargs map[string]Value) (Value, error) {
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
	if n.made == nil {
		n.made = make(map[*jinja.Dict]bool, 2)
	}
	n.made[d] = true
	return v, nil
}

// set implements __lrt_nsset(obj, value): it returns value if obj is a
// namespace and fails otherwise.
func (n *namespaces) set(args []Value, _ map[string]Value) (Value, error) {
	if len(args) != 2 {
		return jinja.Undefined(), fmt.Errorf("%s: want 2 arguments, got %d", helperNSSet, len(args))
	}
	if !args[0].IsDict() || !n.made[args[0].AsDict()] {
		return jinja.Undefined(), fmt.Errorf("TemplateRuntimeError: cannot assign attribute on non-namespace object (%s)", pyTypeName(args[0]))
	}
	return args[1], nil
}
