package toolcall

import (
	"errors"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Thinking is a family's reasoning markup: reasoning sits between Open and
// Close at the start of a reply ("<think>" / "</think>", "[THINK]" /
// "[/THINK]", "<seed:think>" / "</seed:think>", …).
type Thinking struct {
	Open, Close string
	// Opened says the generation prompt ends with Open, so a reply starts
	// inside its reasoning.
	Opened bool
}

// WithThinking returns a format that reads t's reasoning off the start of a
// reply before f reads the rest. A zero t returns f.
func WithThinking(f Format, t Thinking) Format {
	if t.Open == "" || t.Close == "" {
		return f
	}
	return thinkingFormat{inner: f, t: t}
}

type thinkingFormat struct {
	inner Format
	t     Thinking
}

func (f thinkingFormat) Name() string { return f.inner.Name() }

// Unwrap returns the format that reads the text after the reasoning.
func (f thinkingFormat) Unwrap() Format { return f.inner }

// Thinking returns the reasoning markup the format reads.
func (f thinkingFormat) Thinking() Thinking { return f.t }

const space = " \t\r\n"

// split finds the reasoning at the start of reply: its text, where the rest
// begins, and whether the reasoning is still open (no Close yet).
func (f thinkingFormat) split(reply string) (reasoning string, rest int, open bool) {
	lead := len(reply) - len(strings.TrimLeft(reply, space))
	body := lead
	switch {
	case strings.HasPrefix(reply[lead:], f.t.Open):
		body = lead + len(f.t.Open)
	case f.t.Opened:
	default:
		return "", 0, false
	}
	i := strings.Index(reply[body:], f.t.Close)
	if i < 0 {
		return reply[body:], len(reply), true
	}
	return reply[body : body+i], body + i + len(f.t.Close), false
}

// after returns where the text after the reasoning starts: past the
// reasoning and the space that separates it from the answer.
func after(reply string, rest int) int {
	if rest == 0 {
		return 0
	}
	return len(reply) - len(strings.TrimLeft(reply[rest:], space))
}

func (f thinkingFormat) Parse(reply string) (Parsed, error) {
	reasoning, rest, _ := f.split(reply)
	rest = after(reply, rest)
	p, err := f.inner.Parse(reply[rest:])
	var tce *ToolCallError
	if errors.As(err, &tce) {
		shifted := *tce
		shifted.Offset += rest
		err = &shifted
	}
	p.Reasoning = joinReasoning(strings.Trim(reasoning, space), p.Reasoning)
	return p, err
}

func (f thinkingFormat) ParsePartial(reply string) Partial {
	trimmed := strings.TrimLeft(reply, space)
	if len(trimmed) < len(f.t.Open) && strings.HasPrefix(f.t.Open, trimmed) {
		return Partial{} // space, or the start of Open: reasoning may follow
	}
	reasoning, rest, open := f.split(reply)
	if open {
		// Hold back a tail that may start Close, and trailing space the
		// final parse trims.
		return Partial{Reasoning: strings.Trim(holdBack(reasoning, []string{f.t.Close}), space)}
	}
	rest = after(reply, rest)
	p := f.inner.ParsePartial(reply[rest:])
	p.Reasoning = joinReasoning(strings.Trim(reasoning, space), p.Reasoning)
	return p
}

func (f thinkingFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	inner, err := f.inner.Pattern(opts)
	if err != nil {
		return constrain.Pattern{}, err
	}
	think := constrain.Sequence(constrain.TextWithout(f.t.Close), constrain.Literal(f.t.Close), constrain.Repeat(constrain.Literal("\n"), 0, 2))
	if f.t.Opened {
		return constrain.Sequence(think, inner), nil
	}
	return constrain.Sequence(constrain.Optional(constrain.Sequence(constrain.Literal(f.t.Open), think)), inner), nil
}

func joinReasoning(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
