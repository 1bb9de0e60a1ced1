package toolcall

import (
	"github.com/litert-go/litert-go/constrain"
)

// Tencent Hy3 writes GLM-style calls whose tags end in ":opensource":
//
//	<tool_calls:opensource>
//	<tool_call:opensource>get_weather<tool_sep:opensource>
//	<arg_key:opensource>city</arg_key:opensource>
//	<arg_value:opensource>Paris</arg_value:opensource>
//	</tool_call:opensource>
//	</tool_calls:opensource>
//
// Values are JSON where they read as JSON, else raw strings. It reasons in
// <think:opensource>…</think:opensource>, which the generation prompt may
// open.

const (
	hy3ThinkOpen, hy3ThinkClose = "<think:opensource>", "</think:opensource>"
	hy3CallsOpen, hy3CallsClose = "<tool_calls:opensource>", "</tool_calls:opensource>"
)

func hy3Tags() *otherTagSyntax {
	return &otherTagSyntax{
		callOpen: "<tool_call:opensource>", nameEnd: "<tool_sep:opensource>", callClose: "</tool_call:opensource>",
		keyOpen: "<arg_key:opensource>", keyEnd: "</arg_key:opensource>", valOpen: "<arg_value:opensource>", valClose: "</arg_value:opensource>",
		sep: "\n", keySep: "\n",
	}
}

func hy3Format() Format {
	tags := hy3Tags()
	f := &blockFormat{
		name: "hy3",
		blocks: []otherBlock{
			{open: hy3ThinkOpen, close: hy3ThinkClose, kind: otherReasoning},
			{open: hy3CallsOpen, close: hy3CallsClose, kind: otherCalls},
		},
		eot:       []string{"<｜hy_eos:opensource｜>", "<｜hy_User:opensource｜>"},
		bareClose: hy3ThinkClose,
		body:      tags.calls,
	}
	stops := append(f.markers(), tags.callOpen)
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		think := constrain.Optional(constrain.Sequence(constrain.Optional(constrain.Literal(hy3ThinkOpen)), constrain.TextWithout(stops...), constrain.Literal(hy3ThinkClose)))
		p, err := otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) { return tags.pattern(t, opts) })
				if err != nil {
					return call, err
				}
				return constrain.Sequence(constrain.Literal(hy3CallsOpen+"\n"), otherSeveral(constrain.Sequence(call, constrain.Literal("\n")), constrain.Literal(""), opts.Parallel), constrain.Literal(hy3CallsClose)), nil
			})
		if err != nil {
			return p, err
		}
		return constrain.Sequence(think, p), nil
	}
	return f
}
