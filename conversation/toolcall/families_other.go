package toolcall

// otherFamilies are the formats with syntaxes of their own: harmony
// (gpt-oss), python calls (LFM2, Gemma 3), Gemma's call:name{…}, …
// (families_other_*.go).
func otherFamilies() []Format {
	return []Format{
		harmonyFmt(),
		gemma4Format(),
		functionGemmaFormat(),
		lfm2Format(),
		commandR7BFormat(),
		commandRFormat(),
		apertusFormat(),
		gigaChat31Format(),
		gigaChat3Format(),
		solarFormat(),
		hy3Format(),
		miniCPMFormat(),
		museFormat(),
		gemma3Format(),
	}
}
