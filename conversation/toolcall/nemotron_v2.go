package toolcall

// nemotronV2Format: NVIDIA Nemotron Nano v2 — a JSON list of call objects
// between <TOOLCALL> and </TOOLCALL>:
//
//	<TOOLCALL>[{"name": "f", "arguments": {…}}]</TOOLCALL>
func nemotronV2Format() Format {
	return &jsonFormat{
		name:  "nemotron-v2",
		eot:   []string{"<SPECIAL_12>", "</s>"},
		opens: []string{"<TOOLCALL>"},
		read:  objectSyntax{layout: listLayout, close: "</TOOLCALL>"}.read,
		grammar: grammarSpec{
			open:  "<TOOLCALL>[",
			call:  objectCall("", "arguments", ""),
			sep:   ", ",
			close: "]</TOOLCALL>",
			stops: []string{"<TOOLCALL>"},
		},
	}
}
