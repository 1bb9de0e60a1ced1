package modelinfo

import (
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// FileTypeName returns the name of a general.file_type value, as
// llama.cpp's enum llama_ftype (include/llama.h) numbers the mixes and as
// GGUF file names spell them (LLAMA_FTYPE_MOSTLY_Q4_K_M is "Q4_K_M"), or
// "" for a number llama.cpp does not define.
func FileTypeName(ft int64) string {
	switch ft {
	case 0:
		return "F32"
	case 1:
		return "F16"
	case 2:
		return "Q4_0"
	case 3:
		return "Q4_1"
	case 7:
		return "Q8_0"
	case 8:
		return "Q5_0"
	case 9:
		return "Q5_1"
	case 10:
		return "Q2_K"
	case 11:
		return "Q3_K_S"
	case 12:
		return "Q3_K_M"
	case 13:
		return "Q3_K_L"
	case 14:
		return "Q4_K_S"
	case 15:
		return "Q4_K_M"
	case 16:
		return "Q5_K_S"
	case 17:
		return "Q5_K_M"
	case 18:
		return "Q6_K"
	case 19:
		return "IQ2_XXS"
	case 20:
		return "IQ2_XS"
	case 21:
		return "Q2_K_S"
	case 22:
		return "IQ3_XS"
	case 23:
		return "IQ3_XXS"
	case 24:
		return "IQ1_S"
	case 25:
		return "IQ4_NL"
	case 26:
		return "IQ3_S"
	case 27:
		return "IQ3_M"
	case 28:
		return "IQ2_S"
	case 29:
		return "IQ2_M"
	case 30:
		return "IQ4_XS"
	case 31:
		return "IQ1_M"
	case 32:
		return "BF16"
	case 36:
		return "TQ1_0"
	case 37:
		return "TQ2_0"
	case 38:
		return "MXFP4_MOE"
	}
	return ""
}

// Quant labels a file's quantization as people name it: the mix its
// general.file_type records (a Q4_K_M file whose small tensors fell back to
// Q5_0 is still "Q4_K_M"), else the type holding most bytes of the weight
// matrices (tensors of two or more dimensions).
func Quant(f *gguf.File) string {
	if ft, err := f.Int("general.file_type"); err == nil {
		if name := FileTypeName(ft); name != "" {
			return name
		}
	}
	bytes := map[ggml.DType]uint64{}
	for _, t := range f.Tensors {
		if len(t.Dims) >= 2 {
			bytes[t.Type] += t.Bytes()
		}
	}
	var best ggml.DType
	for t, n := range bytes {
		if n > bytes[best] || (n == bytes[best] && t < best) {
			best = t
		}
	}
	return best.String()
}

// QuantDetail is the quantization label followed by the share of the
// tensor bytes each type holds, largest first: "Q4_K_M (Q5_0 52%, Q8_0
// 31%, Q4_K 16%, F32 1%)".
func (i *Info) QuantDetail() string {
	var total uint64
	for _, s := range i.TensorTypes {
		total += s.Bytes
	}
	if total == 0 {
		return i.Quant
	}
	var parts []string
	for _, t := range i.SortedTypes() {
		pct := 100 * float64(i.TensorTypes[t].Bytes) / float64(total)
		if pct < 0.5 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", t, pct))
	}
	return i.Quant + " (" + strings.Join(parts, ", ") + ")"
}
