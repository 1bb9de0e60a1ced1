package toolcall

import (
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Python-call formats write each call as a Python function call with
// keyword arguments whose values are Python literals:
//
//	LFM2:    <|tool_call_start|>[get_weather(city='Paris', days=3), search(q="x")]<|tool_call_end|>
//	Gemma 3: ```tool_code\nget_weather(city="Paris")\n```
//
// The reader accepts True/False/None and true/false/null, strings in
// single, double or triple quotes with Python's escapes, lists, tuples and
// dicts, calls in a [list] or one per line. Grammars write arguments in
// Python spelling with JSON-style double-quoted strings (valid Python).

func lfm2Format() Format {
	return pythonicFormat("lfm2", "<|tool_call_start|>", "<|tool_call_end|>", []string{"<|im_end|>", "<|endoftext|>"}, "[", ", ", "]")
}

func gemma3Format() Format {
	return pythonicFormat("gemma3", "```tool_code", "```", []string{"<end_of_turn>", "<eos>"}, "\n", "\n", "\n")
}

// pythonicFormat: calls between open and close; the grammar writes them
// as open+lead+call(sep+call)*+tail+close.
func pythonicFormat(name, open, close string, eot []string, lead, sep, tail string) Format {
	f := &blockFormat{
		name:   name,
		blocks: []otherBlock{{open: open, close: close, kind: otherCalls}},
		eot:    eot,
		body:   otherPyCalls,
	}
	stops := append([]string{open}, eot...)
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		return otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(name, opts, func(t Tool) (constrain.Pattern, error) { return otherPyCallPattern(name, t, opts) })
				if err != nil {
					return call, err
				}
				return constrain.Sequence(constrain.Literal(open+lead), otherSeveral(call, constrain.Literal(sep), opts.Parallel), constrain.Literal(tail+close)), nil
			})
	}
	return f
}

// otherPyCalls reads Python calls at s[i]: [a(…), b(…)], or one call per
// line up to stop.
func otherPyCalls(s string, i int, stop string, sink *otherSink) (int, error) {
	i = skipSpace(s, i)
	if i >= len(s) {
		return i, otherTruncated(i)
	}
	bracket := s[i] == '['
	if bracket {
		i++
	}
	for {
		c, end, err := otherPyCall(s, i, sink)
		if err != nil {
			return end, err
		}
		sink.add(c)
		i = skipSpace(s, end)
		if i >= len(s) {
			if bracket {
				return i, otherTruncated(i)
			}
			return i, nil
		}
		switch {
		case s[i] == ',':
			i++
		case s[i] == ']' && bracket:
			return i + 1, nil
		case !bracket && strings.Contains(s[end:i], "\n"):
			if strings.HasPrefix(s[i:], stop) || strings.HasPrefix(stop, s[i:]) {
				return i, nil
			}
		default:
			return i, otherErrf(i, "want ',' between calls, got %q", truncate(s[i:], 20))
		}
	}
}

// otherPyCallPattern forces name(key=value, …) for tool t.
func otherPyCallPattern(format string, t Tool, opts GrammarOptions) (constrain.Pattern, error) {
	props, err := otherProperties(t)
	if err != nil {
		return constrain.Pattern{}, err
	}
	for _, p := range props {
		if !isPyIdent(p.name) {
			return constrain.Pattern{}, fmt.Errorf("toolcall: %s grammar: tool %s: property %q is not a Python keyword argument: %w", format, t.Name, p.name, ErrNoGrammar)
		}
	}
	if !isPyName(t.Name) {
		return constrain.Pattern{}, fmt.Errorf("toolcall: %s grammar: tool name %q is not a Python name: %w", format, t.Name, ErrNoGrammar)
	}
	jo := opts.JSON
	jo.Dialect = constrain.DialectPython
	schema := otherSchema(t)
	args := otherKeyValues(props, constrain.Literal(", "), func(p otherProperty) constrain.Pattern {
		return constrain.Sequence(constrain.Literal(p.name+"="), constrain.JSONValue(schema, otherPointer(p.name), jo))
	})
	return constrain.Sequence(constrain.Literal(t.Name+"("), args, constrain.Literal(")")), nil
}

func isPyIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		if !otherIdentByte(s[i], i > 0) {
			return false
		}
	}
	return s != ""
}

// isPyName allows the dotted and dashed names otherPyCall reads.
func isPyName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !otherIdentByte(s[i], i > 0) && !(i > 0 && (s[i] == '.' || s[i] == '-')) {
			return false
		}
	}
	return s != ""
}
