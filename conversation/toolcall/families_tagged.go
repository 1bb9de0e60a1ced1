package toolcall

// taggedFamilies are the formats that write the function name between
// markers, with JSON or XML-style arguments: DeepSeek, Kimi, Qwen3-Coder,
// GLM, MiniMax, … (families_tagged_*.go).
func taggedFamilies() []Format { return nil }
