package toolcall

// aprielFormat: ServiceNow Apriel 1.5 / 1.6 — a JSON list of call objects
// between <tool_calls> and </tool_calls>:
//
//	<tool_calls>[{"name": "f", "arguments": {…}}, …]</tool_calls>
//
// It reads only the list; MiniMax-M1's JSON lines behind the same marker
// are minimax-m1's.
func aprielFormat() Format {
	return &jsonFormat{
		name:  "apriel",
		eot:   []string{"<|end|>", "</s>"},
		opens: []string{"<tool_calls>"},
		read:  objectSyntax{layout: listLayout, close: "</tool_calls>"}.read,
		grammar: grammarSpec{
			open:  "<tool_calls>[",
			call:  objectCall("", "arguments", ""),
			sep:   ", ",
			close: "]</tool_calls>",
			stops: []string{"<tool_calls>"},
		},
	}
}
