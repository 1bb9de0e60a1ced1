package toolcall

// taggedFamilies are the formats that write the function name between
// markers, with JSON or XML-style arguments: DeepSeek, Kimi, Qwen3-Coder,
// GLM, MiniMax, … (one file each; shared code in tagged_util.go). The
// XML-style ones are also TypedParsers.
func taggedFamilies() []Format {
	return []Format{
		deepseekR1(),
		deepseekV31(),
		dsml(),
		dsmlV4(),
		kimiK2(),
		kimiK3(),
		qwen3Coder(),
		seedOSS(),
		glm(),
		minimaxM2(),
		minimaxM3(),
	}
}
