package toolcall

import (
	"github.com/litert-go/litert-go/constrain"
)

// Muse Glimmer (ATEM) writes a reply as messages, each opened by
// <|start|>assistant (the generation prompt writes the first) and a
// recipient: to=self is reasoning, to=user the answer, to=TOOL a call in
// <atem:function_calls>; messages end with <|eom|>, the turn with <|eot|>:
//
//	 to=self<|message|>plan<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>
//	<atem:invoke name="get_weather">
//	<atem:parameter name="city">Paris</atem:parameter>
//	</atem:invoke>
//	</atem:function_calls><|eot|>
//
// Values are JSON where they read as JSON, else raw strings.

const (
	museStart, museMessage, museEOM, museEOT = "<|start|>assistant", "<|message|>", "<|eom|>", "<|eot|>"
	museCallsOpen, museCallsClose            = "<atem:function_calls>", "</atem:function_calls>"
)

func museTags() *otherTagSyntax {
	return &otherTagSyntax{
		callOpen: `<atem:invoke name="`, nameEnd: `">`, callClose: "</atem:invoke>",
		keyOpen: `<atem:parameter name="`, keyEnd: `">`, valClose: "</atem:parameter>",
		sep: "\n",
	}
}

func museFormat() Format {
	tags := museTags()
	f := &blockFormat{
		name: "muse",
		blocks: []otherBlock{
			{open: "to=self" + museMessage, close: museEOM, kind: otherReasoning},
			{open: "to=user" + museMessage, close: museEOM, kind: otherContent}, // or the turn's end
			{open: "to=", close: museMessage, kind: otherHeader},
			{open: museCallsOpen, close: museCallsClose, kind: otherCalls},
			{open: museStart, kind: otherMark},
			{open: museEOM, kind: otherMark},
		},
		eot:  []string{museEOT, "<|start|>user", "<|start|>system", "<|start|>tool"},
		body: tags.calls,
	}
	stops := append(f.markers(), "<|start|>", museMessage)
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		text := constrain.TextWithout(stops...)
		think := constrain.Optional(constrain.Sequence(constrain.Literal(" to=self"+museMessage), text, constrain.Literal(museEOM+museStart)))
		answer := constrain.Sequence(constrain.Literal(" to=user"+museMessage), text)
		if opts.Mode == TextOnly || len(opts.Tools) == 0 && opts.Mode == TextOrCalls {
			return constrain.Sequence(think, answer), nil
		}
		call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) {
			invoke, err := tags.pattern(t, opts)
			return constrain.Sequence(constrain.Literal(" to="+t.Name+museMessage+museCallsOpen+"\n"), invoke, constrain.Literal("\n"+museCallsClose)), err
		})
		if err != nil {
			return call, err
		}
		calls := otherSeveral(call, constrain.Literal(museEOM+museStart), opts.Parallel)
		if opts.Mode == CallsOnly {
			return constrain.Sequence(think, calls), nil
		}
		return constrain.Sequence(think, constrain.Choice(answer, calls)), nil
	}
	return f
}
