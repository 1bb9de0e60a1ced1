// Package ggml describes ggml's tensor element types: their numeric ids as
// stored in GGUF files, their block layouts, and conversion between them and
// float32 (dequantize and quantize), bit-compatible with ggml.
package ggml

import "fmt"

// DType is a ggml tensor element type, numbered as in ggml.h's enum ggml_type.
type DType uint32

// The ggml types. Ids are fixed by the GGUF format.
const (
	F32     DType = 0
	F16     DType = 1
	Q4_0    DType = 2
	Q4_1    DType = 3
	Q5_0    DType = 6
	Q5_1    DType = 7
	Q8_0    DType = 8
	Q8_1    DType = 9
	Q2_K    DType = 10
	Q3_K    DType = 11
	Q4_K    DType = 12
	Q5_K    DType = 13
	Q6_K    DType = 14
	Q8_K    DType = 15
	IQ2_XXS DType = 16
	IQ2_XS  DType = 17
	IQ3_XXS DType = 18
	IQ1_S   DType = 19
	IQ4_NL  DType = 20
	IQ3_S   DType = 21
	IQ2_S   DType = 22
	IQ4_XS  DType = 23
	I8      DType = 24
	I16     DType = 25
	I32     DType = 26
	I64     DType = 27
	F64     DType = 28
	IQ1_M   DType = 29
	BF16    DType = 30
	TQ1_0   DType = 34
	TQ2_0   DType = 35
	MXFP4   DType = 39
)

// layout is the block geometry of a type: BlockSize elements are stored in
// TypeSize bytes.
type layout struct {
	name      string
	blockSize int
	typeSize  int
}

// layouts mirrors ggml's type_traits (blck_size, type_size), indexed by
// type id (an array, not a map: kernels ask for a type's sizes per row);
// ids without a type have no name.
var layouts = [...]layout{
	F32:     {"F32", 1, 4},
	F16:     {"F16", 1, 2},
	Q4_0:    {"Q4_0", 32, 18},
	Q4_1:    {"Q4_1", 32, 20},
	Q5_0:    {"Q5_0", 32, 22},
	Q5_1:    {"Q5_1", 32, 24},
	Q8_0:    {"Q8_0", 32, 34},
	Q8_1:    {"Q8_1", 32, 36},
	Q2_K:    {"Q2_K", 256, 84},
	Q3_K:    {"Q3_K", 256, 110},
	Q4_K:    {"Q4_K", 256, 144},
	Q5_K:    {"Q5_K", 256, 176},
	Q6_K:    {"Q6_K", 256, 210},
	Q8_K:    {"Q8_K", 256, 292},
	IQ2_XXS: {"IQ2_XXS", 256, 66},
	IQ2_XS:  {"IQ2_XS", 256, 74},
	IQ3_XXS: {"IQ3_XXS", 256, 98},
	IQ1_S:   {"IQ1_S", 256, 50},
	IQ4_NL:  {"IQ4_NL", 32, 18},
	IQ3_S:   {"IQ3_S", 256, 110},
	IQ2_S:   {"IQ2_S", 256, 82},
	IQ4_XS:  {"IQ4_XS", 256, 136},
	I8:      {"I8", 1, 1},
	I16:     {"I16", 1, 2},
	I32:     {"I32", 1, 4},
	I64:     {"I64", 1, 8},
	F64:     {"F64", 1, 8},
	IQ1_M:   {"IQ1_M", 256, 56},
	BF16:    {"BF16", 1, 2},
	TQ1_0:   {"TQ1_0", 256, 54},
	TQ2_0:   {"TQ2_0", 256, 66},
	MXFP4:   {"MXFP4", 32, 17},
}

// layoutOf returns t's layout and whether t is a known type.
func layoutOf(t DType) (layout, bool) {
	if uint64(t) < uint64(len(layouts)) && layouts[t].name != "" {
		return layouts[t], true
	}
	return layout{}, false
}

// Known reports whether t is a type this package knows the layout of.
func (t DType) Known() bool { _, ok := layoutOf(t); return ok }

// String returns ggml's name for the type, such as "Q4_K".
func (t DType) String() string {
	if l, ok := layoutOf(t); ok {
		return l.name
	}
	return fmt.Sprintf("DType(%d)", uint32(t))
}

// BlockSize is the number of elements in one block (1 for plain types).
// It is 0 for an unknown type.
func (t DType) BlockSize() int { l, _ := layoutOf(t); return l.blockSize }

// TypeSize is the number of bytes of one block. It is 0 for an unknown type.
func (t DType) TypeSize() int { l, _ := layoutOf(t); return l.typeSize }

// RowSize returns the bytes taken by n elements of type t, or an error if n
// is not a multiple of the block size or the type is unknown.
func (t DType) RowSize(n int) (int, error) {
	l, ok := layoutOf(t)
	if !ok {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t))
	}
	if n%l.blockSize != 0 {
		return 0, fmt.Errorf("%s: row of %d elements is not a multiple of the block size %d", l.name, n, l.blockSize)
	}
	return n / l.blockSize * l.typeSize, nil
}

// ParseDType returns the type named s (case-insensitive, as "q4_k" or "Q4_K").
func ParseDType(s string) (DType, error) {
	for t, l := range layouts {
		if l.name != "" && equalFold(l.name, s) {
			return DType(t), nil
		}
	}
	return 0, fmt.Errorf("unknown tensor type %q", s)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
