// Package toolcall reads and forces the tool calls of every model family in
// that family's own syntax: it parses a reply into content, reasoning and
// calls (whole, or while it streams), builds the grammar that forces a
// well-formed call whose arguments validate, and detects which syntax a chat
// template writes by rendering probe conversations through it.
//
// The template renders calls into the prompt; this package never renders
// them. Each family is one file with its own test; Detect picks among them
// by round-tripping probe calls through the model's own template.
package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Call is one function call requested by the model.
type Call struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object, key order as written
}

// Tool is what a grammar needs to know of a declared tool.
type Tool struct {
	Name       string
	Parameters json.RawMessage // JSON Schema of the arguments object; empty: any object
}

// Parsed is a complete reply split into its parts.
type Parsed struct {
	Content   string // the answer text, markers removed
	Reasoning string // the thinking text, markers removed
	Calls     []Call
}

// Partial is what a reply still being generated shows so far. Every field
// only grows as the reply grows: Content and Reasoning are prefixes of the
// final ones, Calls a prefix of the final calls, and Pending.Arguments a
// prefix of the final call's argument text.
type Partial struct {
	Content   string
	Reasoning string
	Calls     []Call // calls written completely
	// Pending is the call being written, if any: its Name once the name is
	// complete ("" before), and a prefix of its Arguments where the format
	// writes the argument JSON verbatim (empty otherwise).
	Pending *Call
}

// Mode says what a constrained reply may hold.
type Mode int

const (
	// TextOrCalls allows text, tool calls, or text followed by calls
	// (as the family allows).
	TextOrCalls Mode = iota
	// CallsOnly forces at least one tool call.
	CallsOnly
	// TextOnly forbids tool calls.
	TextOnly
)

// GrammarOptions selects what a tool-call grammar allows.
type GrammarOptions struct {
	Mode Mode
	// Tools are the callable tools (all of them, or the one a named tool
	// choice asks for); their schemas constrain the arguments.
	Tools []Tool
	// Parallel allows several calls in one reply; otherwise the grammar
	// ends after the first call.
	Parallel bool
	// JSON shapes JSON argument values (whitespace style).
	JSON constrain.JSONOptions
}

// ErrNoGrammar is returned by Format.Pattern when no grammar can force the
// format's syntax.
var ErrNoGrammar = errors.New("no grammar for this tool-call format")

// Format is one model family's tool-call syntax (and, where the family
// writes it, its reasoning syntax). Formats are immutable and safe for
// concurrent use.
type Format interface {
	// Name identifies the format ("hermes", "llama3", …).
	Name() string
	// Parse splits a complete reply (the text generated after the
	// generation prompt, end-of-turn markers included as the template
	// writes them). A call that does not parse gives a *ToolCallError;
	// the content before it is still returned.
	Parse(reply string) (Parsed, error)
	// ParsePartial reads a reply that is still being generated. It never
	// fails: text it cannot read yet is held back.
	ParsePartial(reply string) Partial
	// Pattern builds the grammar that forces replies of this syntax (see
	// Grammar, which compiles it), or returns an error wrapping
	// ErrNoGrammar. It returns a constrain.Pattern rather than a compiled
	// grammar so that wrappers (reasoning, see WithThinking) can compose it.
	Pattern(opts GrammarOptions) (constrain.Pattern, error)
}

// Grammar compiles the grammar that forces f's syntax for opts.
func Grammar(f Format, opts GrammarOptions) (*constrain.Grammar, error) {
	p, err := f.Pattern(opts)
	if err != nil {
		return nil, err
	}
	g, err := constrain.Compose(p)
	if err != nil {
		return nil, fmt.Errorf("toolcall: %s grammar: %w", f.Name(), err)
	}
	return g, nil
}

// Forcible reports whether a grammar can force f's calls, so that tool
// choices "required" and a named tool can be honoured.
func Forcible(f Format) bool {
	_, err := f.Pattern(GrammarOptions{Mode: CallsOnly, Tools: []Tool{{Name: "f"}}})
	return !errors.Is(err, ErrNoGrammar)
}

// ToolCallError reports a tool call the model wrote that does not parse. It
// is a value the caller (or the automatic tool loop) can show the model so
// that it can correct itself.
type ToolCallError struct {
	Format string // the format's name
	Offset int    // byte offset in the reply where the malformed call starts or fails
	Text   string // the offending text
	Err    error
}

func (e *ToolCallError) Error() string {
	return fmt.Sprintf("malformed %s tool call at offset %d (%q): %v", e.Format, e.Offset, truncate(e.Text, 200), e.Err)
}

func (e *ToolCallError) Unwrap() error { return e.Err }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// formats lists every format, in detection priority order (more specific
// syntaxes first). Each group lives in its own file.
func formats() []Format {
	var all []Format
	all = append(all, jsonFamilies()...)
	all = append(all, taggedFamilies()...)
	all = append(all, otherFamilies()...)
	return all
}

// Names lists the known format names, sorted.
func Names() []string {
	var names []string
	for _, f := range formats() {
		names = append(names, f.Name())
	}
	sort.Strings(names)
	return names
}

// Lookup returns the named format, or an error listing the known ones.
func Lookup(name string) (Format, error) {
	for _, f := range formats() {
		if f.Name() == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown tool-call format %q (known: %s)", name, strings.Join(Names(), ", "))
}
