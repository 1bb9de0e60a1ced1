package toolcall

// firefunctionV2Format: Fireworks firefunction v2 — a JSON list of call
// objects behind functools, with no closing marker:
//
//	functools[{"name": "f", "arguments": {…}}, …]
func firefunctionV2Format() Format {
	return &jsonFormat{
		name:  "firefunction-v2",
		eot:   []string{"<|eot_id|>", "<|eom_id|>"},
		opens: []string{"functools["},
		read:  objectSyntax{layout: listLayout}.read,
		grammar: grammarSpec{
			open:  " functools[",
			call:  objectCall("", "arguments", ""),
			sep:   ", ",
			close: "]",
			stops: []string{"functools["},
		},
	}
}
