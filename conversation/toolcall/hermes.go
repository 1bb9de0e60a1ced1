package toolcall

// hermesFormat: Hermes 2 Pro / 3, Qwen 2.5 / 3 / QwQ, Bielik, MiMo-VL,
// Reka-Edge, Granite 4 — one call per tag:
//
//	<tool_call>
//	{"name": "f", "arguments": {…}}
//	</tool_call>
//
// A list of call objects inside one tag is read too, and the closing tag
// may be missing where the reply ends.
func hermesFormat() Format {
	return &jsonFormat{
		name:  "hermes",
		eot:   []string{"<|im_end|>", "<|end_of_text|>", "<|endoftext|>", "<|eot_id|>", "<sep>", "</s>"},
		opens: []string{"<tool_call>"},
		read:  objectSyntax{layout: perCall, close: "</tool_call>"}.read,
		grammar: grammarSpec{
			call:  objectCall("<tool_call>\n", "arguments", "\n</tool_call>"),
			sep:   "\n",
			stops: []string{"<tool_call>"},
		},
	}
}
