package toolcall

import "github.com/litert-go/litert-go/constrain"

// qwen3CoderXML is the XML-parameter syntax of Qwen3-Coder (also Qwen3.5,
// Nemotron 3 Nano, Step 3.5 Flash). Each value stands on lines of its own;
// strings are raw and other values JSON (the templates write booleans as
// Python's True/False):
//
//	<tool_call>
//	<function=name>
//	<parameter=key>
//	value
//	</parameter>
//	</function>
//	</tool_call>
func qwen3CoderXML() *taggedXMLSyntax {
	return &taggedXMLSyntax{
		callOpen: "<tool_call>\n<function=", nameStops: ">", afterName: ">\n",
		paramOpen: "<parameter=", keyStops: ">", afterKey: ">",
		valueClose: "</parameter>", afterValue: "\n", valueNewlines: true,
		callClose: "</function>\n</tool_call>",
		sep:       "\n",
	}
}

// qwen3Coder is Qwen3-Coder's format; see qwen3CoderXML().
func qwen3Coder() Format {
	return taggedXMLFormat("qwen3-coder", qwen3CoderXML(), []string{"<tool_call>"}, []string{"<|im_end|>", "<|endoftext|>"}, nil)
}

// taggedXMLFormat declares a family of XML-style parameters.
func taggedXMLFormat(name string, x *taggedXMLSyntax, opens, drops []string, reasoning *taggedReasoning) Format {
	stops := taggedAll(opens, drops)
	if reasoning != nil {
		stops = append(stops, reasoning.open, reasoning.close)
	}
	return &taggedTypedFormat{taggedFormat{
		spec: taggedSpec{name: name, opens: opens, drops: drops, region: x.region, reasoning: reasoning, leadDrops: taggedLeadDrop()},
		pattern: func(opts GrammarOptions) (constrain.Pattern, error) {
			return x.pattern(opts, stops)
		},
	}}
}
