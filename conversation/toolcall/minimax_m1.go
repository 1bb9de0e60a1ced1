package toolcall

// minimaxM1Format: MiniMax-M1 — call objects on lines between
// <tool_calls> and </tool_calls> (a JSON list is read too):
//
//	<tool_calls>
//	{"name": "f", "arguments": {…}}
//	{"name": "g", "arguments": {…}}
//	</tool_calls>
func minimaxM1Format() Format {
	return &jsonFormat{
		name:  "minimax-m1",
		eot:   []string{"<end_of_sentence>"},
		opens: []string{"<tool_calls>"},
		read:  objectSyntax{layout: linesLayout, close: "</tool_calls>"}.read,
		grammar: grammarSpec{
			open:  "<tool_calls>\n",
			call:  objectCall("", "arguments", ""),
			sep:   "\n",
			close: "\n</tool_calls>",
			stops: []string{"<tool_calls>"},
		},
	}
}
