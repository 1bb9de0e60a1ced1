package toolcall

import "github.com/litert-go/litert-go/constrain"

// WithTools returns f reading argument values with the tools' schemas where
// the syntax needs them to know a value's type (XML-style parameters write
// strings raw: with the schema, a string parameter written 3 stays "3").
// Formats that do not implement TypedParser are returned unchanged.
func WithTools(f Format, tools []Tool) Format {
	if len(tools) == 0 {
		return f
	}
	if t, ok := f.(thinkingFormat); ok {
		t.inner = WithTools(t.inner, tools)
		return t
	}
	tp, ok := f.(TypedParser)
	if !ok {
		return f
	}
	return typedFormat{Format: f, typed: tp, tools: tools}
}

// typedFormat is a format bound to the declared tools.
type typedFormat struct {
	Format
	typed TypedParser
	tools []Tool
}

func (f typedFormat) Parse(reply string) (Parsed, error) {
	return f.typed.ParseWithTools(reply, f.tools)
}

func (f typedFormat) ParsePartial(reply string) Partial {
	return f.typed.ParsePartialWithTools(reply, f.tools)
}

func (f typedFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	return f.Format.Pattern(opts)
}
