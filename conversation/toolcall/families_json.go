package toolcall

// jsonFamilies are the formats whose calls are JSON objects naming the
// function, or a name followed by JSON arguments, in detection priority
// order: where two syntaxes share a marker, the stricter comes first
// (phi4 before granite, apriel before minimax-m1, mistral-v3 before
// mistral), and llama3's bare JSON, which needs no marker, comes last.
// The shared machinery is in json_util.go.
func jsonFamilies() []Format {
	return []Format{
		hermesFormat(),
		phi4Format(),
		graniteFormat(),
		nemotronV2Format(),
		aprielFormat(),
		minimaxM1Format(),
		mistralV3Format(),
		mistralFormat(),
		firefunctionV2Format(),
		functionaryV31Format(),
		functionaryV32Format(),
		llama3Format(),
	}
}
