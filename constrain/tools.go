package constrain

import (
	"fmt"
	"unicode/utf8"
)

// Tool describes a callable function: its name and its parameters as a JSON
// Schema (nil or empty means any JSON object).
type Tool struct {
	// Name is the function name the model must emit.
	Name string
	// Parameters is the JSON Schema of the arguments object.
	Parameters []byte
}

// ToolFormat selects how tool calls are written.
type ToolFormat int

const (
	// ToolFormatHermes is the Hermes/Qwen format: one or more
	// "<tool_call>\n{"name": "...", "arguments": {...}}\n</tool_call>"
	// blocks separated by newlines.
	ToolFormatHermes ToolFormat = iota
	// ToolFormatLlama3JSON is Llama 3's JSON format: a single
	// {"name": "...", "parameters": {...}} object.
	ToolFormatLlama3JSON
)

// ToolFormatQwen is an alias of ToolFormatHermes.
const ToolFormatQwen = ToolFormatHermes

// ToolMode selects what the model may produce.
type ToolMode int

const (
	// TextOnly allows free text that never starts a tool call.
	TextOnly ToolMode = iota
	// ToolCallsOnly allows only tool calls.
	ToolCallsOnly
	// TextOrToolCalls allows free text optionally followed by tool calls
	// (Hermes), or either text or a tool call (Llama 3).
	TextOrToolCalls
)

// String returns the format name.
func (f ToolFormat) String() string {
	switch f {
	case ToolFormatHermes:
		return "hermes"
	case ToolFormatLlama3JSON:
		return "llama3-json"
	}
	return fmt.Sprintf("ToolFormat(%d)", int(f))
}

// ToolCalls compiles a constraint for a tool-calling turn: every tool call
// is well-formed, names one of tools and has arguments valid against that
// tool's schema. Free text (where the mode allows it) can never contain the
// start of a tool call ("<tool_call>" for Hermes, `{"name"` for Llama 3), so
// once the model starts a call, the call is constrained.
func ToolCalls(format ToolFormat, tools []Tool, mode ToolMode) (*Grammar, error) {
	return ToolCallsWith(format, tools, mode, JSONOptions{})
}

// ToolCallsWith is ToolCalls with options for the argument schemas.
func ToolCallsWith(format ToolFormat, tools []Tool, mode ToolMode, opts JSONOptions) (*Grammar, error) {
	b := newBuilder("tools")
	root := b.rule("root")
	var opener, argKey string
	switch format {
	case ToolFormatHermes:
		opener, argKey = "<tool_call>", "arguments"
	case ToolFormatLlama3JSON:
		opener, argKey = `{"name"`, "parameters"
	default:
		return nil, &CompileError{Lang: "tools", Msg: fmt.Sprintf("unknown tool format %d", int(format)), Err: ErrInvalid}
	}
	text := textWithout(opener)
	if mode == TextOnly {
		b.define(root, text)
		return compileGrammar(b, root)
	}
	if mode != ToolCallsOnly && mode != TextOrToolCalls {
		return nil, &CompileError{Lang: "tools", Msg: fmt.Sprintf("unknown tool mode %d", int(mode)), Err: ErrInvalid}
	}
	if len(tools) == 0 {
		return nil, &CompileError{Lang: "tools", Msg: "no tools given", Err: ErrInvalid}
	}
	seen := map[string]bool{}
	var calls []*expr
	for i, t := range tools {
		if t.Name == "" || !utf8.ValidString(t.Name) {
			return nil, &CompileError{Lang: "tools", Pointer: fmt.Sprintf("/%d/name", i), Msg: "tool name must be non-empty UTF-8", Err: ErrInvalid}
		}
		if seen[t.Name] {
			return nil, &CompileError{Lang: "tools", Pointer: fmt.Sprintf("/%d/name", i), Msg: fmt.Sprintf("duplicate tool name %q", t.Name), Err: ErrInvalid}
		}
		seen[t.Name] = true
		params := t.Parameters
		if len(params) == 0 {
			params = []byte(`{"type":"object"}`)
		}
		c, err := newSchemaCompiler(b, params, opts, fmt.Sprintf("%s:", t.Name))
		if err == nil {
			var args *expr
			if args, err = c.compileRoot(); err == nil {
				calls = append(calls, seq(lit("{"), c.ws, lit(`"name"`), c.colon, lit(quoteJSON(t.Name)), c.comma,
					lit(quoteJSON(argKey)), c.colon, args, c.ws, lit("}")))
				continue
			}
		}
		if ce, ok := err.(*CompileError); ok {
			return nil, &CompileError{Lang: "tools", Pointer: fmt.Sprintf("/%d/parameters%s", i, ce.Pointer), Msg: fmt.Sprintf("tool %q: %s", t.Name, ce.Msg), Err: ce.Err}
		}
		return nil, fmt.Errorf("constrain: tool %q: %w", t.Name, err)
	}
	call := alt(calls...)
	var body *expr
	switch format {
	case ToolFormatHermes:
		block := seq(lit("<tool_call>\n"), call, lit("\n</tool_call>"))
		blocks := seq(block, star(seq(lit("\n"), block)))
		body = blocks
		if mode == TextOrToolCalls {
			body = seq(text, opt(blocks))
		}
	case ToolFormatLlama3JSON:
		body = call
		if mode == TextOrToolCalls {
			// Text must not start with '{' so a JSON call cannot be faked.
			notBrace := alt(runeClass([]runeRange{{0, '{' - 1}, {'{' + 1, 0x10FFFF}}))
			body = alt(call, emptyExpr, seq(notBrace, text))
		}
	}
	b.define(root, body)
	return compileGrammar(b, root)
}

// textWithout matches any UTF-8 text that does not contain the ASCII string
// w, using the Knuth-Morris-Pratt automaton of w.
func textWithout(w string) *expr {
	n := len(w)
	fail := make([]int, n+1)
	fail[0] = -1
	for i := 1; i <= n; i++ {
		k := fail[i-1]
		for k >= 0 && w[k] != w[i-1] {
			k = fail[k]
		}
		fail[i] = k + 1
	}
	next := func(state int, c byte) int {
		for state >= 0 && (state == n || w[state] != c) {
			state = fail[state]
		}
		return state + 1
	}
	g := &graphExpr{n: n + 1, start: 0, end: n}
	multi := runeClass([]runeRange{{0x80, 0x10FFFF}})
	for s := 0; s < n; s++ {
		g.edges = append(g.edges, graphEdge{from: s, to: n}) // every state may end
		lo := 0
		for c := 1; c <= 0x80; c++ {
			if c < 0x80 && next(s, byte(c)) == next(s, byte(lo)) {
				continue
			}
			if t := next(s, byte(lo)); t < n {
				g.edges = append(g.edges, graphEdge{from: s, to: t, e: byteRange(byte(lo), byte(c-1))})
			}
			lo = c
		}
		g.edges = append(g.edges, graphEdge{from: s, to: 0, e: multi})
	}
	return &expr{op: opGraph, graph: g}
}
