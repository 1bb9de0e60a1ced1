package toolcall

// jsonFamilies are the formats whose calls are JSON objects naming the
// function, or a name followed by JSON arguments, in detection priority
// order: where two syntaxes share a marker, the stricter comes first
// (phi4 before granite, apriel before minimax-m1, mistral-v3 before
// mistral), and llama3's bare JSON, which needs no marker, comes last.
// The shared machinery is in json_util.go.
//
// Families whose reasoning markup the templates do not render (so that
// Detect cannot see it) read it themselves through WithThinking: Magistral
// and Ministral's [THINK]…[/THINK], Apriel 1.5's <thinking>…</thinking>,
// MiniMax-M1's and Nemotron Nano v2's <think>…</think>.
func jsonFamilies() []Format {
	return []Format{
		hermesFormat(),
		phi4Format(),
		graniteFormat(),
		WithThinking(nemotronV2Format(), Thinking{Open: "<think>", Close: "</think>"}),
		WithThinking(aprielFormat(), Thinking{Open: "<thinking>", Close: "</thinking>"}),
		WithThinking(minimaxM1Format(), Thinking{Open: "<think>", Close: "</think>"}),
		mistralV3Format(),
		WithThinking(mistralFormat(), Thinking{Open: "[THINK]", Close: "[/THINK]"}),
		firefunctionV2Format(),
		functionaryV31Format(),
		functionaryV32Format(),
		llama3Format(),
	}
}
