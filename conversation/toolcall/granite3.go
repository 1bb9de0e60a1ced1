package toolcall

// graniteFormat: Granite 3.x — <|tool_call|> followed by a JSON list of
// call objects (Granite 4 writes Hermes tags instead):
//
//	<|tool_call|>[{"name": "f", "arguments": {…}}]
//
// The Granite 3.3 template does not render calls, so it cannot be
// detected from the template; the name selects it.
func graniteFormat() Format {
	return &jsonFormat{
		name:  "granite",
		eot:   []string{"<|end_of_text|>"},
		opens: []string{"<|tool_call|>"},
		read:  objectSyntax{layout: listLayout, close: "<|/tool_call|>"}.read,
		grammar: grammarSpec{
			open:  "<|tool_call|>[",
			call:  objectCall("", "arguments", ""),
			sep:   ", ",
			close: "]",
			stops: []string{"<|tool_call|>"},
		},
	}
}
