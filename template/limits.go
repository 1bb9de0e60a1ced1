package template

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/ardanlabs/jinja"
)

// A chat template comes from a model file or a client, so rendering one is
// running untrusted code. The engine has no limits of its own beyond a
// 64 MiB cap on one "*" and the sandbox's 100,000-item range, so this package
// enforces a budget through the helpers that rewrite (rewrite.go) routes the
// template's work through:
//
//   - output tags ({{ ... }}) pass their value through __lrt_out, which
//     counts the bytes printed;
//   - every for loop iterates over __lrt_iter(...), which counts the text
//     its body writes per iteration, and every iteration starts with
//     __lrt_tick, a step that looks at the clock; recursive loop(...)
//     calls pass through __lrt_guard and __lrt_leave;
//   - every macro call runs __lrt_macro on entry and __lrt_leave on exit,
//     which count the call, its text and the call depth;
//   - "~", "+" and "*" on strings and lists, the indent, replace, join and
//     tojson filters, and the str methods replace, split and format are
//     helpers that check the size of their result before building it;
//     the left operand of "%" passes through __lrt_fmt, which checks the
//     widths of a format string; range() and the filters that turn a
//     string into a list of characters (__lrt_seq) count those lists;
//   - Parse measures the nesting of brackets, blocks and operators before
//     the engine's recursive-descent parser sees the source.
//
// Every helper call is a step, and the clock is read every few steps and
// every loop iteration, so a render ends soon after any limit is passed,
// with a *LimitError. Work between two helper calls is bounded by the size
// of the template and of the values it holds (themselves under the
// budget).

// Limits bounds the work of parsing and rendering one template. A zero
// field means its default.
type Limits struct {
	// MaxOutput bounds the rendered prompt, in bytes (default 4 MiB,
	// DefaultMaxOutput: more than a model's context holds anyway).
	MaxOutput int64
	// MaxMemory bounds the bytes of strings and lists one render builds
	// in all: concatenations, repetitions, filter results and the text
	// written by loops and macros, counted when made, whether kept or not
	// (default 256 MiB, DefaultMaxMemory). It bounds the memory a render
	// can hold. A template that builds its prompt by concatenation in a
	// loop builds about prompt size × concatenations / 2: Reka-Edge's
	// builds 258 MB for a 512 KB prompt (500 messages), 1 GB for 1 MB.
	MaxMemory int64
	// MaxValue bounds one string or list built, in bytes (default 16 MiB,
	// DefaultMaxValue: four times the default output).
	MaxValue int64
	// MaxSteps bounds the loop iterations, macro calls and helper calls
	// (output tags, concatenations, filters) of one render (default
	// 1,000,000, DefaultMaxSteps: gemma-4's template takes some 210 per
	// message, so the output limit comes first).
	MaxSteps int64
	// MaxDepth bounds the nesting of brackets, blocks, unary operators and
	// conditional expressions in the source, and the depth of macro calls
	// and recursive loops in a render (default 100, DefaultMaxDepth;
	// Python's own recursion limit stops jinja2 near there).
	MaxDepth int
	// MaxTime bounds the time of one render, in addition to the caller's
	// context deadline (default 10 s, DefaultMaxTime).
	MaxTime time.Duration
}

// The default limits.
const (
	DefaultMaxOutput = 4 << 20
	DefaultMaxMemory = 256 << 20
	DefaultMaxValue  = 16 << 20
	DefaultMaxSteps  = 1_000_000
	DefaultMaxDepth  = 100
	DefaultMaxTime   = 10 * time.Second
)

// withDefaults returns l with zero fields set to their defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxValue <= 0 {
		l.MaxValue = DefaultMaxValue
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxTime <= 0 {
		l.MaxTime = DefaultMaxTime
	}
	return l
}

// WithLimits sets the limits on parsing and rendering the template; zero
// fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(t *Template) { t.limits = l.withDefaults() }
}

// The limit names a LimitError carries.
const (
	LimitOutput = "output size"
	LimitMemory = "memory"
	LimitValue  = "value size"
	LimitSteps  = "steps"
	LimitDepth  = "nesting depth"
	LimitTime   = "time"
)

// LimitError is returned by Parse and Render when a template exceeds one of
// its Limits. Limit names it (LimitOutput, LimitMemory, LimitValue,
// LimitSteps, LimitDepth or LimitTime), Max is the limit (bytes, steps,
// levels or milliseconds) and Line the 1-based template line where it was passed, or
// 0 when unknown. For LimitTime, Err is the context's error when the
// caller's context ended the render.
type LimitError struct {
	Limit string
	Max   int64
	Line  int
	Err   error
}

// Error describes the limit and where it was passed.
func (e *LimitError) Error() string {
	unit := ""
	switch e.Limit {
	case LimitOutput, LimitMemory, LimitValue:
		unit = " bytes"
	case LimitSteps:
		unit = " steps"
	case LimitDepth:
		unit = " levels"
	case LimitTime:
		unit = " ms"
	}
	msg := fmt.Sprintf("%s limit exceeded (%d%s)", e.Limit, e.Max, unit)
	if e.Line > 0 {
		msg = fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the context error that ended the render, if any.
func (e *LimitError) Unwrap() error { return e.Err }

// budget is the running account of one render against its Limits.
type budget struct {
	lim      Limits
	ctx      context.Context
	deadline time.Time
	// ctxDeadline is set when the deadline is the context's.
	ctxDeadline bool
	// line is the template line of the last step.
	line   int
	steps  int64
	memory int64
	output int64
	depth  int
}

// checkEvery is how many steps pass between checks of the clock and the
// context.
const checkEvery = 16

// reset prepares b for a render under lim that ctx may cancel.
func (b *budget) reset(ctx context.Context, lim Limits, now time.Time) {
	*b = budget{lim: lim, ctx: ctx, deadline: now.Add(lim.MaxTime)}
	if d, ok := ctx.Deadline(); ok && d.Before(b.deadline) {
		b.deadline, b.ctxDeadline = d, true
	}
}

// step counts n steps at line and, every checkEvery steps, the clock and
// the context.
func (b *budget) step(line int, n int64) error {
	b.line = line
	before := b.steps
	b.steps += n
	if b.steps > b.lim.MaxSteps {
		return &LimitError{Limit: LimitSteps, Max: b.lim.MaxSteps, Line: line}
	}
	if before/checkEvery == b.steps/checkEvery {
		return nil
	}
	return b.checkTime(line)
}

// checkTime fails once the render is past its deadline or its context is
// done.
func (b *budget) checkTime(line int) error {
	if b.ctx != nil {
		if err := b.ctx.Err(); err != nil {
			return &LimitError{Limit: LimitTime, Max: b.lim.MaxTime.Milliseconds(), Line: line, Err: err}
		}
	}
	if time.Now().After(b.deadline) {
		var err error
		if b.ctxDeadline {
			err = context.DeadlineExceeded
		}
		return &LimitError{Limit: LimitTime, Max: b.lim.MaxTime.Milliseconds(), Line: line, Err: err}
	}
	return nil
}

// alloc counts a string or list of n bytes about to be built at line; it
// fails, before it is, if it would pass the value or memory limit.
func (b *budget) alloc(line int, n int64) error {
	if n < 0 || n > b.lim.MaxValue {
		return &LimitError{Limit: LimitValue, Max: b.lim.MaxValue, Line: line}
	}
	return b.text(line, n, 1)
}

// allocN counts a list or string of n items of size bytes each, as alloc
// does.
func (b *budget) allocN(line int, n, size int64) error {
	if size > 0 && n > b.lim.MaxValue/size {
		return &LimitError{Limit: LimitValue, Max: b.lim.MaxValue, Line: line}
	}
	return b.alloc(line, n*size)
}

// text counts n writes of size bytes at line (the text of a loop body or
// macro) against the memory limit only.
func (b *budget) text(line int, n, size int64) error {
	if n < 0 || size > 0 && n > (b.lim.MaxMemory-b.memory)/size {
		return &LimitError{Limit: LimitMemory, Max: b.lim.MaxMemory, Line: line}
	}
	b.memory += n * size
	return nil
}

// room is the size of the largest string or list the render may still
// build.
func (b *budget) room() int64 { return min(b.lim.MaxMemory-b.memory, b.lim.MaxValue) }

// overRoom returns the error for a value larger than room.
func (b *budget) overRoom(line int) error {
	if b.lim.MaxMemory-b.memory < b.lim.MaxValue {
		return &LimitError{Limit: LimitMemory, Max: b.lim.MaxMemory, Line: line}
	}
	return &LimitError{Limit: LimitValue, Max: b.lim.MaxValue, Line: line}
}

// write counts n bytes printed at line into the render's output (final
// says the output tag is outside macros and blocks, so that its bytes are
// the prompt's).
func (b *budget) write(line int, n int64, final bool) error {
	if err := b.alloc(line, n); err != nil {
		return err
	}
	if final {
		b.output += n
		if b.output > b.lim.MaxOutput {
			return &LimitError{Limit: LimitOutput, Max: b.lim.MaxOutput, Line: line}
		}
	}
	return nil
}

// enter counts one more level of macro call or recursive loop at line.
func (b *budget) enter(line int) error {
	b.depth++
	if b.depth > b.lim.MaxDepth {
		return &LimitError{Limit: LimitDepth, Max: int64(b.lim.MaxDepth), Line: line}
	}
	return nil
}

// leave ends a level that enter counted.
func (b *budget) leave() {
	if b.depth > 0 {
		b.depth--
	}
}

// valueSize is the size of one list item.
const valueSize = int64(unsafe.Sizeof(jinja.Value{}))

// printedSize returns an upper bound on the length of v as the engine
// prints it (str(v)), or a number above limit once the bound passes limit,
// so that values with shared parts (a list holding one list twice, nested
// forty deep) are measured in time proportional to limit, not to their
// printed size. Strings inside containers are counted as repr writes them
// at worst (\xNN for each byte).
// A value nested deeper than maxPrintDepth counts as above limit.
func printedSize(v Value, limit int64) int64 {
	n, deep := sizeBound(v, limit, false)
	if deep {
		return limit + 1
	}
	return n
}

// jsonSize is printedSize for json.dumps(v): every string counted as
// escaped at worst (\uNNNN for each byte). For a value nested deeper than
// maxPrintDepth (a cycle, say) it reports deep, and the encoder reports
// the error Python does.
func jsonSize(v Value, limit int64) (n int64, deep bool) { return sizeBound(v, limit, true) }

// sizeBound measures v for printedSize and jsonSize.
func sizeBound(v Value, limit int64, json bool) (int64, bool) {
	esc := int64(4)
	if json {
		esc = 6
	}
	n, deep := int64(0), false
	var walk func(v Value, top bool, depth int)
	walk = func(v Value, top bool, depth int) {
		if n > limit {
			return
		}
		switch {
		case v.IsString():
			if top && !json {
				n += int64(len(v.AsString()))
			} else {
				n += esc*int64(len(v.AsString())) + 2
			}
		case v.IsList():
			if depth > maxPrintDepth {
				deep = true
				n = limit + 1
				return
			}
			n += 2
			for _, it := range v.AsList().Items {
				n += 2
				walk(it, false, depth+1)
				if n > limit {
					return
				}
			}
		case v.IsDict():
			if depth > maxPrintDepth {
				deep = true
				n = limit + 1
				return
			}
			d := v.AsDict()
			n += 2
			for _, k := range d.Keys {
				n += esc*int64(len(k)) + 6
				walk(d.Data[k], false, depth+1)
				if n > limit {
					return
				}
			}
		case v.IsUndefined() || v.IsCallable():
			// printed as nothing
		case v.IsInt():
			n += 20
		default:
			n += 32 // floats, None, booleans
		}
	}
	walk(v, true, 0)
	return n, deep
}

// maxPrintDepth bounds the nesting of a printed value (the engine prints a
// cycle as [...], but a chain of distinct containers in full).
const maxPrintDepth = 1000

// checkNesting returns a *LimitError if the prepared template source nests
// deeper than maxDepth: blocks inside blocks, brackets inside a tag,
// unary operators and conditional expressions in a row. The engine's parser
// (and addparse.go) recurse once per level, so this runs before either.
func checkNesting(src string, maxDepth int) error {
	blocks := 0
	for _, tg := range scanTags(src) {
		if tg.kind == tagComment {
			continue
		}
		toks := lexExpr(src, tg.start, tg.end)
		if tg.kind == tagStmt && len(toks) > 0 && toks[0].kind == 'n' {
			kw := toks[0].text
			switch {
			case kw == "set" && hasTopLevel(toks, "="):
			case blockEnds[kw] != "" && kw != "raw":
				blocks++
			case strings.HasPrefix(kw, "end") && kw != "endraw" && blocks > 0:
				blocks--
			}
		}
		brackets, unary, conds, deepest := 0, 0, 0, 0
		for i, t := range toks {
			switch {
			case t.kind == 's' || t.kind == '1':
				unary = 0
			case t.text == "(" || t.text == "[" || t.text == "{":
				brackets++
				unary = 0
			case t.text == ")" || t.text == "]" || t.text == "}":
				brackets--
			case t.kind == 'n' && t.text == "not", t.kind == 'p' && (t.text == "-" || t.text == "+") && (i == 0 || toks[i-1].kind == 'p' && !closing(toks[i-1].text)):
				unary++
			case t.kind == 'n' && t.text == "else":
				conds++
			default:
				unary = 0
			}
			deepest = max(deepest, blocks+brackets+unary+conds)
		}
		if deepest > maxDepth || blocks > maxDepth {
			return &LimitError{Limit: LimitDepth, Max: int64(maxDepth), Line: tg.line}
		}
	}
	return nil
}

// closing reports whether punctuation p closes a bracket.
func closing(p string) bool { return p == ")" || p == "]" || p == "}" }
