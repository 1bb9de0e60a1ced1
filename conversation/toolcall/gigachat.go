package toolcall

import (
	"github.com/litert-go/litert-go/constrain"
)

// GigaChat 3 writes its call as the message of a "function call" role, a
// JSON object naming the function; GigaChat 3.1 after a marker:
//
//	GigaChat 3:   text<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {…}}<|message_sep|>
//	GigaChat 3.1: text<|function_call|>{"name": "f", "arguments": {…}}<|message_sep|>
//
// A turn holds one call (the templates render the first call of a turn
// only), so grammars force one call whatever Parallel says.

func gigaChat3Format() Format {
	return jsonObjectCallFormat("gigachat3", "<|message_sep|>\n\nfunction call<|role_sep|>", "\n", []string{"<|message_sep|>", "</s>"})
}

func gigaChat31Format() Format {
	return jsonObjectCallFormat("gigachat3.1", "<|function_call|>", "", []string{"<|message_sep|>", "</s>"})
}

// jsonObjectCallFormat: text, then open and one {"name", "arguments"}
// object up to the end of the turn.
func jsonObjectCallFormat(name, open, lead string, eot []string) Format {
	f := &blockFormat{
		name:   name,
		blocks: []otherBlock{{open: open, kind: otherCalls}},
		eot:    eot,
		body: func(s string, i int, _ string, sink *otherSink) (int, error) {
			at := skipSpace(s, i)
			fields, end, err := otherJSONFields(s, at)
			c, cerr := otherNamedCall(s, at, fields, err == nil, "name", "arguments", "")
			if err != nil {
				if cerr == nil && c.Name != "" {
					sink.pending = &c
				}
				return end, err
			}
			if cerr != nil {
				return at, cerr
			}
			sink.add(c)
			return end, nil
		},
	}
	stops := append([]string{open}, eot...)
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		return otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				return otherEachTool(name, opts, func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(constrain.Literal(open+lead+`{"name": `+otherQuote(t.Name)+`, "arguments": `), otherArgs(t, opts.JSON), constrain.Literal("}")), nil
				})
			})
	}
	return f
}
