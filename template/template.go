package template

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a parsed chat template. It is immutable after Parse and safe
// for concurrent Render calls.
type Template struct {
	src   string
	tmpl  *jinja.Template
	clock func() time.Time
	uses  rewriteInfo
}

// Option configures a Template.
type Option func(*Template)

// WithClock sets the clock that strftime_now reads (default time.Now).
// Tests use it to render date-stamped templates reproducibly.
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
// returned as a *ParseError naming the line.
func Parse(src string, opts ...Option) (t *Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &ParseError{Err: fmt.Errorf("template engine panic: %v", p)}
		}
	}()
	prepared, uses := rewrite(prepareSource(src))
	jt, err := jinja.Compile(prepared)
	if err != nil {
		line := errorLine(err)
		if line == 0 {
			line = unclosedBlockLine(prepared)
		}
		return nil, &ParseError{Line: line, Err: err}
	}
	t = &Template{src: src, tmpl: jt, clock: time.Now, uses: uses}
	for _, o := range opts {
		o(t)
	}
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
// message; other runtime failures are wrapped errors. The template cannot
// modify req (as in jinja2's immutable sandbox), so one Request may be
// rendered from several goroutines at once.
func (t *Template) Render(ctx context.Context, req Request) (out string, err error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("render chat template: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("render chat template: template engine panic: %v", p)
		}
	}()
	vars := t.variables(req)
	out, err = t.tmpl.RenderValues(vars)
	if err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return "", re
		}
		return "", fmt.Errorf("render chat template: %w", translateError(err))
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

// variables builds the template's global variables for one render:
// the environment globals, messages, tools, documents and
// add_generation_prompt, the special tokens, then the keyword arguments
// (which win over the special tokens, as in transformers). Only the names
// the template refers to are set: an unreferenced variable cannot affect
// the output, and a small variable map keeps the engine's scope cheap.
func (t *Template) variables(req Request) map[string]Value {
	names := t.uses.names
	vars := make(map[string]Value, 8)
	set := func(name string, v Value) {
		if names[name] {
			vars[name] = v
		}
	}
	if names["raise_exception"] {
		vars["raise_exception"] = jinja.NewCallable("raise_exception", raiseException)
	}
	if names["range"] {
		vars["range"] = jinja.NewCallable("range", safeRange)
	}
	if names["strftime_now"] {
		clock := t.clock
		vars["strftime_now"] = jinja.NewCallable("strftime_now", func(args []Value, _ map[string]Value) (Value, error) {
			if len(args) != 1 || !args[0].IsString() {
				return jinja.Undefined(), errors.New("strftime_now expects one format string")
			}
			return jinja.NewString(strftime(clock(), args[0].AsString())), nil
		})
	}
	if t.uses.helpers() || t.uses.gen || t.uses.safe || t.uses.json || len(t.uses.adds) > 0 {
		h := &helpers{sites: t.uses.adds}
		if t.uses.helpers() {
			vars[helperObj] = h.object(t.uses)
		}
		if t.uses.gen {
			vars[helperFilter] = jinja.NewCallable(helperFilter, h.generator)
		}
		if len(t.uses.adds) > 0 {
			vars[helperAdd] = jinja.NewCallable(helperAdd, h.add)
		}
		if t.uses.safe {
			vars[helperSafe] = jinja.NewCallable(helperSafe, h.safeFilter)
		}
		if t.uses.json {
			vars[helperJSON] = jinja.NewCallable(helperJSON, h.jsonFilter)
		}
	}
	if names["messages"] {
		vars["messages"] = listOrNone(req.Messages)
	}
	if names["tools"] {
		vars["tools"] = listOrNone(req.Tools)
	}
	if names["documents"] {
		vars["documents"] = listOrNone(req.Documents)
	}
	set("add_generation_prompt", jinja.NewBool(req.AddGenerationPrompt))
	if req.BOSToken != nil {
		set("bos_token", jinja.NewString(*req.BOSToken))
	}
	if req.EOSToken != nil {
		set("eos_token", jinja.NewString(*req.EOSToken))
	}
	for k, v := range req.Kwargs {
		set(k, v)
	}
	return vars
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
	return fmt.Errorf("SecurityError: access to attribute %q is unsafe: the chat template sandbox forbids methods that modify lists and dicts: %w", name, err)
}
