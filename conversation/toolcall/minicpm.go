package toolcall

import (
	"github.com/litert-go/litert-go/constrain"
)

// MiniCPM 5 writes each call as XML in its reply, one per line, with
// parameter values as Python writes them (True, None, [1, 'x'], {'a':
// 'b'}) and strings raw, or in CDATA when they hold <, & or a newline:
//
//	<function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>
//
// Grammars write string values in CDATA, so that no string reads as a
// Python literal.

func miniCPMTags() *otherTagSyntax {
	return &otherTagSyntax{
		callOpen: `<function name="`, nameEnd: `">`, callClose: "</function>",
		keyOpen: `<param name="`, keyEnd: `">`, valClose: "</param>",
		one: true, python: true, cdata: true,
	}
}

func miniCPMFormat() Format {
	tags := miniCPMTags()
	f := &blockFormat{
		name: "minicpm5",
		blocks: []otherBlock{
			{open: "<think>", close: "</think>", kind: otherReasoning},
			{open: tags.callOpen, kind: otherCalls},
		},
		eot:  []string{"<|im_end|>", "<|im_start|>"},
		body: tags.calls,
	}
	stops := f.markers()
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		return otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) { return tags.pattern(t, opts) })
				return otherSeveral(call, constrain.Literal("\n"), opts.Parallel), err
			})
	}
	return f
}
