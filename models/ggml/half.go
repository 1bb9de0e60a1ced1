package ggml

import "math"

// F16ToF32 converts an IEEE 754 binary16 value, given as its bits, to
// float32. The conversion is exact for every input, subnormals, infinities
// and NaNs included (it is the same algorithm as ggml's generic
// ggml_compute_fp16_to_fp32).
func F16ToF32(h uint16) float32 {
	// Placing the 15 magnitude bits at the top of a float32's exponent and
	// mantissa and scaling by 2^(127-15) is exact for normals and
	// subnormals; infinities and NaNs take the all-ones exponent instead.
	mag := uint32(h&0x7FFF) << 13
	f := math.Float32frombits(mag) * 0x1p112
	if h&0x7C00 == 0x7C00 {
		f = math.Float32frombits(mag | 0x7F800000)
	}
	return math.Float32frombits(math.Float32bits(f) | uint32(h&0x8000)<<16)
}

// F32ToF16 converts f to IEEE 754 binary16 bits, rounding to nearest with
// ties to even, producing subnormals and infinities as needed, and turning a
// NaN into the quiet NaN 0x7E00 with f's sign. The result is bit-identical to
// ggml's GGML_FP32_TO_FP16 (and to the x86 F16C instruction vcvtps2ph with
// rounding mode 0).
func F32ToF16(f float32) uint16 {
	const scaleToInf = 0x1.0p+112
	const scaleToZero = 0x1.0p-110
	// The explicit conversions keep every step rounded to float32, as in C.
	base := float32(float32(abs32(f)*scaleToInf) * scaleToZero)

	w := math.Float32bits(f)
	shl1W := w + w
	sign := w & 0x80000000
	bias := shl1W & 0xFF000000
	if bias < 0x71000000 {
		bias = 0x71000000
	}
	base = float32(math.Float32frombits(bias>>1+0x07800000) + base)
	bits := math.Float32bits(base)
	expBits := (bits >> 13) & 0x00007C00
	mantBits := bits & 0x00000FFF
	nonsign := expBits + mantBits
	if shl1W > 0xFF000000 {
		nonsign = 0x7E00
	}
	return uint16(sign>>16 | nonsign)
}

// BF16ToF32 converts bfloat16 bits to float32 (exact).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 converts f to bfloat16 bits, rounding to nearest with ties to
// even; a NaN stays a NaN and is made quiet. Subnormals are kept, not
// flushed. The result is bit-identical to ggml's GGML_FP32_TO_BF16.
func F32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 64
	}
	return uint16((u + (0x7fff + (u>>16)&1)) >> 16)
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ 0x80000000) }
