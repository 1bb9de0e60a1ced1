package toolcall

// taggedFamilies are the formats that write the function name between
// markers, with JSON or XML-style arguments (one file each; shared code in
// tagged_util.go):
//
//	deepseek-r1    DeepSeek R1 and its distills
//	deepseek-v3.1  DeepSeek V3.1
//	dsml           DeepSeek V3.2 (<｜DSML｜function_calls>)
//	dsml-v4        DeepSeek V4 (<｜DSML｜tool_calls>)
//	kimi-k2        Kimi K2 (the call id functions.name:N is the Call.ID)
//	kimi-k3        Kimi K3 (XTML; reads its own reasoning)
//	qwen3-coder    Qwen3-Coder, Qwen3.5, Nemotron 3 Nano, Step 3.5 Flash
//	seed-oss       ByteDance Seed-OSS
//	glm            GLM 4.5-4.7, Poolside Laguna
//	minimax-m2     MiniMax M2
//	minimax-m3     MiniMax M3 (nested argument elements)
//
// The XML-style ones (qwen3-coder, seed-oss, glm, minimax-m2, minimax-m3,
// dsml, dsml-v4) are also TypedParsers: ParseWithTools types values by the
// tool schemas.
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
