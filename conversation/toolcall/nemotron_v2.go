package toolcall

// nemotronV2Format: NVIDIA Nemotron Nano v2 — a JSON list of call objects
// between <TOOLCALL> and </TOOLCALL>:
//
//	<TOOLCALL>[{"name": "f", "arguments": {…}}]</TOOLCALL>
func nemotronV2Format() Format {
	return &jsonFormat{
		name: "nemotron-v2",
		eot:  []string{"<SPECIAL_12>", "</s>"},
		// As the last turn of a history, the template writes content and
		// calls as two assistant turns; reading the turn break as part of
		// the marker lets the probes of that render round-trip.
		opens: []string{"<TOOLCALL>", "<SPECIAL_12>\n<SPECIAL_11>Assistant\n<TOOLCALL>"},
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
