package tokenizer

// Token attributes, llama.cpp's llama_token_attr.
const (
	attrUnknown     uint16 = 1 << 0
	attrUnused      uint16 = 1 << 1
	attrNormal      uint16 = 1 << 2
	attrControl     uint16 = 1 << 3
	attrUserDefined uint16 = 1 << 4
	attrByte        uint16 = 1 << 5
	attrLstrip      uint16 = 1 << 7
	attrRstrip      uint16 = 1 << 8
)

// attrOfType maps a GGUF tokenizer.ggml.token_type value to attributes.
func attrOfType(t int64) uint16 {
	switch t {
	case 1:
		return attrNormal
	case 2:
		return attrUnknown
	case 3:
		return attrControl
	case 4:
		return attrUserDefined
	case 5:
		return attrUnused
	case 6:
		return attrByte
	}
	return 0 // undefined
}
