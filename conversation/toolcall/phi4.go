package toolcall

// phi4Format: Phi-4-mini — a JSON list of call objects between
// <|tool_call|> and <|/tool_call|>:
//
//	<|tool_call|>[{"name": "f", "arguments": {…}}]<|/tool_call|>
//
// It is Granite 3's syntax with a required closing marker.
func phi4Format() Format {
	return &jsonFormat{
		name:  "phi4",
		eot:   []string{"<|end|>", "<|endoftext|>"},
		opens: []string{"<|tool_call|>"},
		read:  objectSyntax{layout: listLayout, close: "<|/tool_call|>", closeRequired: true}.read,
		grammar: grammarSpec{
			open:  "<|tool_call|>[",
			call:  objectCall("", "arguments", ""),
			sep:   ", ",
			close: "]<|/tool_call|>",
			stops: []string{"<|tool_call|>"},
		},
	}
}
