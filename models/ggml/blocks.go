package ggml

import "unsafe"

// Block geometry, mirroring ggml-common.h. Every quantized block is stored
// little-endian and packed (no padding); the structs below document the byte
// layout field by field and are checked against the sizes at compile time.
// The code reads blocks from byte slices at the offsets given by the
// constants, so it never depends on Go's struct layout.
const (
	// QK is the number of elements in a block of the legacy types
	// (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1).
	QK = 32
	// QKK is the number of elements in a K-quant super-block
	// (Q2_K … Q8_K).
	QKK = 256
	// kScaleSize is the number of packed 6-bit scale bytes of Q4_K and Q5_K.
	kScaleSize = 12
)

// Byte sizes of one block of each type.
const (
	sizeQ4_0 = 2 + QK/2                           // 18
	sizeQ4_1 = 2 + 2 + QK/2                       // 20
	sizeQ5_0 = 2 + 4 + QK/2                       // 22
	sizeQ5_1 = 2 + 2 + 4 + QK/2                   // 24
	sizeQ8_0 = 2 + QK                             // 34
	sizeQ8_1 = 2 + 2 + QK                         // 36
	sizeQ4_K = 2 + 2 + kScaleSize + QKK/2         // 144
	sizeQ5_K = 2 + 2 + kScaleSize + QKK/8 + QKK/2 // 176
	sizeQ6_K = QKK/2 + QKK/4 + QKK/16 + 2         // 210
	sizeQ8_K = 4 + QKK + QKK/16*2                 // 292
)

// Field offsets inside K-quant blocks.
const (
	// Q4_K: d f16, dmin f16, scales[12], qs[128].
	offQ4KScales = 4
	offQ4KQs     = 16
	// Q5_K: d f16, dmin f16, scales[12], qh[32], qs[128].
	offQ5KScales = 4
	offQ5KQh     = 16
	offQ5KQs     = 48
	// Q6_K: ql[128], qh[64], scales[16] int8, d f16.
	offQ6KQh     = 128
	offQ6KScales = 192
	offQ6KD      = 208
	// Q8_K: d f32, qs[256] int8, bsums[16] int16.
	offQ8KQs    = 4
	offQ8KBsums = 260
)

// blockQ4_0 is ggml's block_q4_0: a scale and 32 4-bit quants q, value
// d*(q-8); element j is the low nibble of qs[j], element j+16 the high one.
type blockQ4_0 struct {
	d  uint16
	qs [QK / 2]byte
}

// blockQ4_1 is ggml's block_q4_1: value d*q + m.
type blockQ4_1 struct {
	d, m uint16
	qs   [QK / 2]byte
}

// blockQ5_0 is ggml's block_q5_0: 5-bit quants, value d*(q-16); bit 4 of
// element j is bit j of qh (little-endian uint32).
type blockQ5_0 struct {
	d  uint16
	qh [4]byte
	qs [QK / 2]byte
}

// blockQ5_1 is ggml's block_q5_1: 5-bit quants, value d*q + m.
type blockQ5_1 struct {
	d, m uint16
	qh   [4]byte
	qs   [QK / 2]byte
}

// blockQ8_0 is ggml's block_q8_0: value d*qs[j].
type blockQ8_0 struct {
	d  uint16
	qs [QK]int8
}

// blockQ8_1 is ggml's block_q8_1: as Q8_0 plus s = d*sum(qs).
type blockQ8_1 struct {
	d, s uint16
	qs   [QK]int8
}

// blockQ4_K is ggml's block_q4_K: 8 sub-blocks of 32 with 6-bit scales and
// mins packed in scales; value d*sc*q - dmin*m.
type blockQ4_K struct {
	d, dmin uint16
	scales  [kScaleSize]byte
	qs      [QKK / 2]byte
}

// blockQ5_K is ggml's block_q5_K: as Q4_K with a fifth bit in qh.
type blockQ5_K struct {
	d, dmin uint16
	scales  [kScaleSize]byte
	qh      [QKK / 8]byte
	qs      [QKK / 2]byte
}

// blockQ6_K is ggml's block_q6_K: 16 sub-blocks of 16 with int8 scales;
// value d*sc*(q-32), q's low 4 bits in ql and high 2 bits in qh.
type blockQ6_K struct {
	ql     [QKK / 2]byte
	qh     [QKK / 4]byte
	scales [QKK / 16]int8
	d      uint16
}

// blockQ8_K is ggml's block_q8_K, used for activations in K-quant dot
// products: a float32 scale, 256 int8 quants and their sums in groups of 16.
type blockQ8_K struct {
	d     float32
	qs    [QKK]int8
	bsums [QKK / 16]int16
}

// Compile-time checks that the documented layouts have the ggml sizes.
var (
	_ [unsafe.Sizeof(blockQ4_0{}) - sizeQ4_0]struct{}
	_ [sizeQ4_0 - unsafe.Sizeof(blockQ4_0{})]struct{}
	_ [unsafe.Sizeof(blockQ4_1{}) - sizeQ4_1]struct{}
	_ [sizeQ4_1 - unsafe.Sizeof(blockQ4_1{})]struct{}
	_ [unsafe.Sizeof(blockQ5_0{}) - sizeQ5_0]struct{}
	_ [sizeQ5_0 - unsafe.Sizeof(blockQ5_0{})]struct{}
	_ [unsafe.Sizeof(blockQ5_1{}) - sizeQ5_1]struct{}
	_ [sizeQ5_1 - unsafe.Sizeof(blockQ5_1{})]struct{}
	_ [unsafe.Sizeof(blockQ8_0{}) - sizeQ8_0]struct{}
	_ [sizeQ8_0 - unsafe.Sizeof(blockQ8_0{})]struct{}
	_ [unsafe.Sizeof(blockQ8_1{}) - sizeQ8_1]struct{}
	_ [sizeQ8_1 - unsafe.Sizeof(blockQ8_1{})]struct{}
	_ [unsafe.Sizeof(blockQ4_K{}) - sizeQ4_K]struct{}
	_ [sizeQ4_K - unsafe.Sizeof(blockQ4_K{})]struct{}
	_ [unsafe.Sizeof(blockQ5_K{}) - sizeQ5_K]struct{}
	_ [sizeQ5_K - unsafe.Sizeof(blockQ5_K{})]struct{}
	_ [unsafe.Sizeof(blockQ6_K{}) - sizeQ6_K]struct{}
	_ [sizeQ6_K - unsafe.Sizeof(blockQ6_K{})]struct{}
	_ [unsafe.Sizeof(blockQ8_K{}) - sizeQ8_K]struct{}
	_ [sizeQ8_K - unsafe.Sizeof(blockQ8_K{})]struct{}
)
