package template

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a parsed chat template. It is immutable after Parse and safe
// for concurrent Render calls.
type Template struct {
	src   string
	tmpl  *jinja.Template
	clock func() time.Time
	// limits bounds parsing and every render (limits.go).
	limits Limits
	uses   rewriteInfo
	// static holds the globals that are the same for every render and
	// that the template refers to (raise_exception, strftime_now);
	// perRender names the globals bound to per-render state (range and
	// the helpers).
	static    []global
	perRender []string
	// states pools render states (see renderState).
	states sync.Pool
}

// global is one template global variable.
type global struct {
	name string
	v    Value
}

// Option configures a Template.
type Option func(*Template)

// WithClock sets the clock that strftime_now reads (default time.Now).
// Tests use it to render date-stamped templates reproducibly; a request's
// [Request.Now] overrides it for one render.
func WithClock(now func() time.Time) Option {
	return func(t *Template) {
		if now != nil {
			t.clock = now
		}
	}
}

// Parse compiles chat template source. The source is prepared as jinja2
// prepares it: newlines (\r\n, \r) are normalised to \n and one trailing
// newline is dropped (keep_trailing_newline=False). A syntax error is
// returned as a *ParseError naming the line, and source nested deeper than
// the limit (see [Limits], [WithLimits]) as a *LimitError.
func Parse(src string, opts ...Option) (t *Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &ParseError{Err: fmt.Errorf("template engine panic: %v", p)}
		}
	}()
	t = &Template{src: src, clock: time.Now, limits: Limits{}.withDefaults()}
	for _, o := range opts {
		o(t)
	}
	prepared := prepareSource(src)
	if err := checkNesting(prepared, t.limits.MaxDepth); err != nil {
		return nil, fmt.Errorf("parse chat template: %w", err)
	}
	prepared, t.uses = rewrite(prepared)
	if t.tmpl, err = jinja.Compile(prepared); err != nil {
		line := errorLine(err)
		if line == 0 {
			line = unclosedBlockLine(prepared)
		}
		return nil, &ParseError{Line: line, Err: err}
	}
	t.setGlobals()
	return t, nil
}

// Source returns the template text as given to Parse.
func (t *Template) Source() string { return t.src }

// prepareSource applies jinja2's lexer preprocessing to template text.
func prepareSource(src string) string {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	return strings.TrimSuffix(src, "\n")
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// errorLine extracts the line number the jinja parser reports, or 0.
func errorLine(err error) int {
	m := lineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Render renders the template for req and returns the prompt text. A
// template that calls raise_exception yields a *RaiseError carrying its
// message; one that passes a limit (see [Limits]: output size, memory,
// steps, call depth, or time, which ends at ctx's deadline or
// cancellation if that comes first) yields a wrapped *LimitError; other
// runtime failures are wrapped errors. The template cannot modify req (as
// in jinja2's immutable sandbox), so one Request may be rendered from
// several goroutines at once.
func (t *Template) Render(ctx context.Context, req Request) (out string, err error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("render chat template: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("render chat template: template engine panic: %v", p)
		}
	}()
	s := t.acquire(ctx, req)
	out, err = t.tmpl.RenderValues(s.vars)
	t.release(s) // not reached if the engine panics: the state is dropped
	if err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return "", re
		}
		var le *LimitError
		if errors.As(err, &le) {
			return "", fmt.Errorf("render chat template: %w", le)
		}
		return "", fmt.Errorf("render chat template: %w", translateError(err))
	}
	if int64(len(out)) > t.limits.MaxOutput {
		return "", fmt.Errorf("render chat template: %w", &LimitError{Limit: LimitOutput, Max: t.limits.MaxOutput})
	}
	return out, nil
}

// RenderJSON decodes a JSON request (see [DecodeRequest]) and renders it.
func (t *Template) RenderJSON(ctx context.Context, request []byte) (string, error) {
	req, err := DecodeRequest(request)
	if err != nil {
		return "", err
	}
	return t.Render(ctx, req)
}

// setGlobals prepares the globals the template refers to: the
// environment's raise_exception and strftime_now, which are built once,
// and range and the rewrite helpers (rewrite.go), which are bound to
// per-render state (the budget, limits.go).
func (t *Template) setGlobals() {
	names := t.uses.names
	if names["raise_exception"] {
		t.static = append(t.static, global{"raise_exception", jinja.NewCallable("raise_exception", raiseException)})
	}
	if names["range"] {
		t.perRender = append(t.perRender, "range") // counts its lists
	}
	if names["strftime_now"] {
		t.static = append(t.static, global{"strftime_now", strftimeNow(t.clock)})
	}
	for name := range t.uses.helpers {
		t.perRender = append(t.perRender, name)
	}
	sort.Strings(t.perRender)
}

// strftimeNow is the strftime_now global reading clock.
func strftimeNow(clock func() time.Time) Value {
	return jinja.NewCallable("strftime_now", func(args []Value, _ map[string]Value) (Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), errors.New("strftime_now expects one format string")
		}
		return jinja.NewString(strftime(clock(), args[0].AsString())), nil
	})
}

// renderState is the per-render state: the rewrite helpers and the
// variable map handed to the engine, which copies it into its own scope.
// Template keeps finished states in a pool, so that a render does not
// rebuild the helper callables and the map.
type renderState struct {
	h    *helpers
	vars map[string]Value
	// set lists the request variables set for the current render.
	set []string
}

// maxPooledBuffer bounds the tojson buffers a pooled state keeps.
const maxPooledBuffer = 64 << 10

// newState builds a render state with the template's fixed globals.
func (t *Template) newState() *renderState {
	s := &renderState{h: &helpers{sites: t.uses.adds}}
	s.vars = make(map[string]Value, len(t.static)+len(t.perRender)+8)
	for _, g := range t.static {
		s.vars[g.name] = g.v
	}
	for _, name := range t.perRender {
		s.vars[name] = s.h.callable(name)
	}
	return s
}

// acquire returns a render state with the variables of req set: messages,
// tools, documents and add_generation_prompt, the special tokens, then the
// keyword arguments (which win over the special tokens, as in
// transformers). Only the names the template refers to are set: an
// unreferenced variable cannot affect the output, and a small variable map
// keeps the engine's scope cheap.
func (t *Template) acquire(ctx context.Context, req Request) *renderState {
	s, _ := t.states.Get().(*renderState)
	if s == nil {
		s = t.newState()
	}
	s.h.b.reset(ctx, t.limits, time.Now())
	names := t.uses.names
	set := func(name string, v Value) {
		if names[name] {
			s.vars[name] = v
			s.set = append(s.set, name)
		}
	}
	set("messages", listOrNone(req.Messages))
	set("tools", listOrNone(req.Tools))
	set("documents", listOrNone(req.Documents))
	set("add_generation_prompt", jinja.NewBool(req.AddGenerationPrompt))
	if req.BOSToken != nil {
		set("bos_token", jinja.NewString(*req.BOSToken))
	}
	if req.EOSToken != nil {
		set("eos_token", jinja.NewString(*req.EOSToken))
	}
	if req.Now != nil && names["strftime_now"] {
		now := *req.Now
		set("strftime_now", strftimeNow(func() time.Time { return now })) // release restores the template's
	}
	for k, v := range req.Kwargs {
		if !strings.HasPrefix(k, "__lrt_") {
			set(k, v)
		}
	}
	return s
}

// release resets s for the next render and returns it to the pool.
func (t *Template) release(s *renderState) {
	for _, name := range s.set {
		delete(s.vars, name)
	}
	s.set = s.set[:0]
	// A keyword argument may have replaced a fixed global or range.
	for _, g := range t.static {
		s.vars[g.name] = g.v
	}
	h := s.h
	if _, ok := s.vars["range"]; !ok && t.uses.names["range"] {
		s.vars["range"] = h.callable("range")
	}
	clear(h.gens)
	clear(h.spaces)
	clear(h.safe)
	h.calls = 0
	h.b = budget{}
	if cap(h.jsonBuf) > maxPooledBuffer {
		h.jsonBuf = nil
	}
	t.states.Put(s)
}

// listOrNone wraps items in a list value; nil becomes None, as
// transformers passes absent tools and documents. The items are shared,
// not copied: the rewrites in rewrite.go make template inputs read-only.
func listOrNone(items []Value) Value {
	if items == nil {
		return jinja.None()
	}
	return jinja.NewList(items)
}

// raiseException implements transformers' raise_exception global.
func raiseException(args []Value, _ map[string]Value) (Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), errors.New("raise_exception() missing required argument 'message'")
	}
	msg := args[0]
	if msg.IsString() {
		return jinja.Undefined(), &RaiseError{Message: msg.AsString()}
	}
	return jinja.Undefined(), &RaiseError{Message: msg.String()}
}

// translateError rewords engine errors that mention rewrite helpers.
func translateError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, unsafePrefix)
	if i < 0 {
		return err
	}
	name := msg[i+len(unsafePrefix):]
	if j := strings.IndexFunc(name, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z') }); j >= 0 {
		name = name[:j]
	}
	// jinja2 names the object's type; the engine's error does not say it,
	// so it is inferred from the method (pop exists on both).
	owner := "'list'"
	switch name {
	case "update":
		owner = "'dict'"
	case "pop":
		owner = "'list' or 'dict'"
	}
	return &sandboxError{msg: fmt.Sprintf("SecurityError: access to attribute '%s' of %s object is unsafe.", name, owner), err: err}
}

// sandboxError is the jinja2 sandbox's SecurityError for a call of a
// method that modifies a list or dict; it wraps the engine's error.
type sandboxError struct {
	msg string
	err error
}

func (e *sandboxError) Error() string { return e.msg }
func (e *sandboxError) Unwrap() error { return e.err }
