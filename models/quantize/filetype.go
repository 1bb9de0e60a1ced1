package quantize

import (
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/models/ggml"
)

// FileType is a quantization mix, numbered as llama.cpp's enum llama_ftype;
// the number is what general.file_type holds in a quantized GGUF file.
type FileType uint32

// The supported mixes.
const (
	AllF32       FileType = 0
	MostlyF16    FileType = 1
	MostlyQ4_0   FileType = 2
	MostlyQ4_1   FileType = 3
	MostlyQ8_0   FileType = 7
	MostlyQ5_0   FileType = 8
	MostlyQ5_1   FileType = 9
	MostlyQ2_K   FileType = 10
	MostlyQ3_K_S FileType = 11
	MostlyQ3_K_M FileType = 12
	MostlyQ3_K_L FileType = 13
	MostlyQ4_K_S FileType = 14
	MostlyQ4_K_M FileType = 15
	MostlyQ5_K_S FileType = 16
	MostlyQ5_K_M FileType = 17
	MostlyQ6_K   FileType = 18
	MostlyIQ4_NL FileType = 25
	MostlyIQ4_XS FileType = 30
	MostlyBF16   FileType = 32
	// MostlyMXFP4MoE stores expert tensors as MXFP4 and other weights as Q8_0.
	MostlyMXFP4MoE FileType = 38
)

// fileTypes lists the mixes with their command-line names and the default
// tensor type (llama_ftype_get_default_type).
var fileTypes = []struct {
	ft   FileType
	name string
	def  ggml.DType
}{
	{AllF32, "f32", ggml.F32},
	{MostlyF16, "f16", ggml.F16},
	{MostlyBF16, "bf16", ggml.BF16},
	{MostlyQ8_0, "q8_0", ggml.Q8_0},
	{MostlyQ4_0, "q4_0", ggml.Q4_0},
	{MostlyQ4_1, "q4_1", ggml.Q4_1},
	{MostlyQ5_0, "q5_0", ggml.Q5_0},
	{MostlyQ5_1, "q5_1", ggml.Q5_1},
	{MostlyQ4_K_S, "q4_k_s", ggml.Q4_K},
	{MostlyQ4_K_M, "q4_k_m", ggml.Q4_K},
	{MostlyQ5_K_S, "q5_k_s", ggml.Q5_K},
	{MostlyQ5_K_M, "q5_k_m", ggml.Q5_K},
	{MostlyQ6_K, "q6_k", ggml.Q6_K},
	{MostlyQ2_K, "q2_k", ggml.Q2_K},
	{MostlyQ3_K_S, "q3_k_s", ggml.Q3_K},
	{MostlyQ3_K_M, "q3_k_m", ggml.Q3_K},
	{MostlyQ3_K_L, "q3_k_l", ggml.Q3_K},
	{MostlyIQ4_NL, "iq4_nl", ggml.IQ4_NL},
	{MostlyIQ4_XS, "iq4_xs", ggml.IQ4_XS},
	{MostlyMXFP4MoE, "mxfp4_moe", ggml.MXFP4},
}

// ParseFileType returns the mix named s (case-insensitive), one of f32,
// f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q4_k_s, q4_k_m, q5_k_s, q5_k_m,
// q6_k, q2_k, q3_k_s, q3_k_m, q3_k_l, iq4_nl, iq4_xs, mxfp4_moe (those
// llama-quantize makes without an importance matrix).
func ParseFileType(s string) (FileType, error) {
	for _, f := range fileTypes {
		if strings.EqualFold(f.name, s) {
			return f.ft, nil
		}
	}
	return 0, fmt.Errorf("quantize: unknown type %q (want one of %s)", s, strings.Join(FileTypeNames(), ", "))
}

// FileTypeNames lists the names ParseFileType accepts.
func FileTypeNames() []string {
	names := make([]string, len(fileTypes))
	for i, f := range fileTypes {
		names[i] = f.name
	}
	return names
}

// String returns the mix's name, such as "q4_k_m".
func (ft FileType) String() string {
	for _, f := range fileTypes {
		if f.ft == ft {
			return f.name
		}
	}
	return fmt.Sprintf("FileType(%d)", uint32(ft))
}

// DefaultType is the tensor type most weights of the mix get.
func (ft FileType) DefaultType() (ggml.DType, error) {
	for _, f := range fileTypes {
		if f.ft == ft {
			return f.def, nil
		}
	}
	return 0, fmt.Errorf("quantize: unsupported file type %d", uint32(ft))
}
