package toolcall

import (
	"encoding/json"

	"github.com/litert-go/litert-go/constrain"
)

// Apertus writes its calls as a JSON list of {"name": arguments} objects
// between <|tools_prefix|> and <|tools_suffix|>, and reasons between
// <|inner_prefix|> and <|inner_suffix|>:
//
//	<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"search": {…}}]<|tools_suffix|>

func apertusFormat() Format {
	const open, close = "<|tools_prefix|>", "<|tools_suffix|>"
	const thinkOpen, thinkClose = "<|inner_prefix|>", "<|inner_suffix|>"
	f := &blockFormat{
		name: "apertus",
		blocks: []otherBlock{
			{open: thinkOpen, close: thinkClose, kind: otherReasoning},
			{open: open, close: close, kind: otherCalls},
		},
		eot: []string{"<|assistant_end|>"},
		body: func(s string, i int, _ string, sink *otherSink) (int, error) {
			return otherJSONList(s, i, sink, apertusCall)
		},
	}
	stops := f.markers()
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		p, err := otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(constrain.Literal("{"+otherQuote(t.Name)+": "), otherArgs(t, opts.JSON), constrain.Literal("}")), nil
				})
				if err != nil {
					return call, err
				}
				return constrain.Sequence(constrain.Literal(open+"["), otherSeveral(call, constrain.Literal(", "), opts.Parallel), constrain.Literal("]"+close)), nil
			})
		if err != nil || opts.Mode == TextOnly {
			return p, err
		}
		think := constrain.Sequence(constrain.Literal(thinkOpen), constrain.TextWithout(stops...), constrain.Literal(thinkClose))
		return constrain.Sequence(constrain.Optional(think), p), nil
	}
	return f
}

// apertusCall reads {"name": {arguments}}.
func apertusCall(s string, at int, fields []otherField, _ bool) (Call, error) {
	if len(fields) == 0 {
		return Call{}, otherErrf(at, "empty call object")
	}
	fd := fields[0]
	if fd.end < 0 {
		return Call{Name: fd.key, Arguments: json.RawMessage(s[fd.start:])}, nil
	}
	if len(fields) > 1 {
		return Call{}, otherErrf(fields[1].start, "a call object holds one function name, got more")
	}
	if fd.key == "" || s[fd.start] != '{' {
		return Call{}, otherErrf(fd.start, "call %q: arguments are not a JSON object", fd.key)
	}
	return Call{Name: fd.key, Arguments: json.RawMessage(s[fd.start:fd.end])}, nil
}
