package ggml

import (
	"math"
	"unsafe"
)

// The low-bit and non-linear types: Q2_K and Q3_K (K-quants of 2 and 3
// bits), IQ4_NL and IQ4_XS (4-bit indices into the non-linear table
// kvaluesIQ4NL) and MXFP4 (OCP microscaling FP4: E2M1 values under a shared
// E8M0 exponent). Layouts and arithmetic follow ggml-common.h and
// ggml-quants.c's dequantize_row_* functions.

// Byte sizes of one block.
const (
	sizeQ2_K   = QKK/16 + QKK/4 + 2 + 2 // 84
	sizeQ3_K   = QKK/8 + QKK/4 + 12 + 2 // 110
	sizeIQ4_NL = 2 + QK/2               // 18
	sizeIQ4_XS = 2 + 2 + QKK/64 + QKK/2 // 136
	sizeMXFP4  = 1 + QK/2               // 17
)

// Field offsets.
const (
	// Q2_K: scales[16] (4-bit scale | 4-bit min << 4), qs[64], d f16, dmin f16.
	offQ2KQs   = 16
	offQ2KD    = 80
	offQ2KDmin = 82
	// Q3_K: hmask[32], qs[64], scales[12] (sixteen 6-bit scales), d f16.
	offQ3KQs     = 32
	offQ3KScales = 96
	offQ3KD      = 108
	// IQ4_XS: d f16, scales_h u16, scales_l[4], qs[128].
	offIQ4XSScalesH = 2
	offIQ4XSScalesL = 4
	offIQ4XSQs      = 8
)

// blockQ2_K is ggml's block_q2_K: 16 sub-blocks of 16 with a 4-bit scale
// and min each; value d*sc*q - dmin*m for 2-bit q. Within each 128-element
// half, bits 2k..2k+1 of qs[l] hold element 32k+l.
type blockQ2_K struct {
	scales  [QKK / 16]byte
	qs      [QKK / 4]byte
	d, dmin uint16
}

// blockQ3_K is ggml's block_q3_K: 16 sub-blocks of 16 with 6-bit signed
// scales (offset 32); value d*(sc-32)*(q-4·!h) for the 2 low bits q in qs
// (placed as in Q2_K) and the high bit h in hmask.
type blockQ3_K struct {
	hmask  [QKK / 8]byte
	qs     [QKK / 4]byte
	scales [12]byte
	d      uint16
}

// blockIQ4_NL is ggml's block_iq4_nl: value d*kvaluesIQ4NL[q], element j in
// the low nibble of qs[j] and element j+16 in the high one.
type blockIQ4_NL struct {
	d  uint16
	qs [QK / 2]byte
}

// blockIQ4_XS is ggml's block_iq4_xs: 8 sub-blocks of 32 as IQ4_NL, each
// with a 6-bit scale ls (low 4 bits in scales_l, high 2 in scales_h) and
// value d*(ls-32)*kvaluesIQ4NL[q].
type blockIQ4_XS struct {
	d       uint16
	scalesH uint16
	scalesL [QKK / 64]byte
	qs      [QKK / 2]byte
}

// blockMXFP4 is ggml's block_mxfp4: an E8M0 exponent e and 32 E2M1 codes;
// value kvaluesMXFP4[q] * 2^(e-128) (the table holds doubled E2M1 values).
type blockMXFP4 struct {
	e  byte
	qs [QK / 2]byte
}

var (
	_ [unsafe.Sizeof(blockQ2_K{}) - sizeQ2_K]struct{}
	_ [sizeQ2_K - unsafe.Sizeof(blockQ2_K{})]struct{}
	_ [unsafe.Sizeof(blockQ3_K{}) - sizeQ3_K]struct{}
	_ [sizeQ3_K - unsafe.Sizeof(blockQ3_K{})]struct{}
	_ [unsafe.Sizeof(blockIQ4_NL{}) - sizeIQ4_NL]struct{}
	_ [sizeIQ4_NL - unsafe.Sizeof(blockIQ4_NL{})]struct{}
	_ [unsafe.Sizeof(blockIQ4_XS{}) - sizeIQ4_XS]struct{}
	_ [sizeIQ4_XS - unsafe.Sizeof(blockIQ4_XS{})]struct{}
	_ [unsafe.Sizeof(blockMXFP4{}) - sizeMXFP4]struct{}
	_ [sizeMXFP4 - unsafe.Sizeof(blockMXFP4{})]struct{}
)

// kvaluesIQ4NL is ggml's kvalues_iq4nl, the 16 levels of IQ4_NL and IQ4_XS.
var kvaluesIQ4NL = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// IQ4NLLevels returns the 16 levels of IQ4_NL and IQ4_XS (ggml's
// kvalues_iq4nl), which a nibble indexes.
func IQ4NLLevels() [16]int8 { return kvaluesIQ4NL }

// kvaluesMXFP4 is ggml's kvalues_mxfp4: twice the E2M1 values of codes 0-15.
var kvaluesMXFP4 = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// e8m0Half returns 2^(e-128), half the E8M0 value e, as ggml's
// ggml_e8m0_to_fp32_half computes it (subnormal for e < 2; never NaN).
func e8m0Half(e byte) float32 {
	if e < 2 {
		return math.Float32frombits(0x00200000 << e)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

// ScalesQ3K unpacks the sixteen 6-bit scales of a Q3_K block (its 12
// scale bytes), minus 32, as ggml does.
func ScalesQ3K(s *[12]byte) (sc [16]int8) {
	for k := 0; k < 4; k++ {
		h := s[8+k]
		sc[k] = int8(s[k]&0xF|(h&3)<<4) - 32
		sc[4+k] = int8(s[4+k]&0xF|(h>>2&3)<<4) - 32
		sc[8+k] = int8(s[k]>>4|(h>>4&3)<<4) - 32
		sc[12+k] = int8(s[4+k]>>4|(h>>6&3)<<4) - 32
	}
	return sc
}

// scaleIQ4XS returns the 6-bit scale of sub-block ib of an IQ4_XS block,
// minus 32.
func scaleIQ4XS(b *[sizeIQ4_XS]byte, ib int) int {
	sh := uint16(b[offIQ4XSScalesH]) | uint16(b[offIQ4XSScalesH+1])<<8
	ls := int(b[offIQ4XSScalesL+ib/2]>>(4*(ib%2))&0xF) | int(sh>>(2*ib)&3)<<4
	return ls - 32
}

func dequantQ2_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ2_K]byte)(src[i*sizeQ2_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d, dmin := f16At(b[offQ2KD:]), f16At(b[offQ2KDmin:])
		for h := 0; h < 2; h++ {
			q := (*[32]byte)(b[offQ2KQs+32*h:])
			for j := 0; j < 4; j++ {
				shift := uint(2 * j)
				for half := 0; half < 2; half++ {
					sc := b[8*h+2*j+half]
					dl, ml := d*float32(sc&0xF), dmin*float32(sc>>4)
					yy := (*[16]float32)(y[128*h+32*j+16*half:])
					for l := 0; l < 16; l++ {
						yy[l] = float32(dl*float32(q[16*half+l]>>shift&3)) - ml
					}
				}
			}
		}
	}
}

func dequantQ3_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ3_K]byte)(src[i*sizeQ3_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := f16At(b[offQ3KD:])
		sc := ScalesQ3K((*[12]byte)(b[offQ3KScales:]))
		hm := (*[32]byte)(b[0:])
		for h := 0; h < 2; h++ {
			q := (*[32]byte)(b[offQ3KQs+32*h:])
			for j := 0; j < 4; j++ {
				shift, m := uint(2*j), byte(1)<<(4*h+j)
				for half := 0; half < 2; half++ {
					dl := d * float32(sc[8*h+2*j+half])
					yy := (*[16]float32)(y[128*h+32*j+16*half:])
					for l := 0; l < 16; l++ {
						k := 16*half + l
						yy[l] = dl * float32(q3(q[k], hm[k], shift, m))
					}
				}
			}
		}
	}
}

// q3 returns the signed 3-bit Q3_K quant from its low bits (at shift in q)
// and its high bit (mask m in hm): low - 4 when the high bit is clear.
func q3(q, hm byte, shift uint, m byte) int {
	v := int(q >> shift & 3)
	if hm&m == 0 {
		v -= 4
	}
	return v
}

func dequantIQ4_NL(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeIQ4_NL]byte)(src[i*sizeIQ4_NL:])
		y := (*[QK]float32)(dst[i*QK:])
		d := f16At(b[0:])
		for j, q := range (*[QK / 2]byte)(b[2:]) {
			y[j] = d * float32(kvaluesIQ4NL[q&0xF])
			y[j+QK/2] = d * float32(kvaluesIQ4NL[q>>4])
		}
	}
}

func dequantIQ4_XS(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeIQ4_XS]byte)(src[i*sizeIQ4_XS:])
		d := f16At(b[0:])
		for ib := 0; ib < QKK/32; ib++ {
			dl := d * float32(scaleIQ4XS(b, ib))
			y := (*[32]float32)(dst[i*QKK+32*ib:])
			for j, q := range (*[16]byte)(b[offIQ4XSQs+16*ib:]) {
				y[j] = dl * float32(kvaluesIQ4NL[q&0xF])
				y[j+16] = dl * float32(kvaluesIQ4NL[q>>4])
			}
		}
	}
}

func dequantMXFP4(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeMXFP4]byte)(src[i*sizeMXFP4:])
		y := (*[QK]float32)(dst[i*QK:])
		d := e8m0Half(b[0])
		for j, q := range (*[QK / 2]byte)(b[1:]) {
			y[j] = float32(kvaluesMXFP4[q&0xF]) * d
			y[j+QK/2] = float32(kvaluesMXFP4[q>>4]) * d
		}
	}
}

// dotLUT16 returns sum table[lo(q[j])]*x[j] + table[hi(q[j])]*x[j+16] over
// 16 bytes: a 32-element block of 4-bit indices into a 16-entry table.
func dotLUT16(q *[16]byte, table *[16]int8, x *[32]float32) float32 {
	var a0, a1, b0, b1 float32
	for j := 0; j < 16; j += 2 {
		v0, v1 := q[j], q[j+1]
		a0 += float32(table[v0&0xF]) * x[j]
		a1 += float32(table[v1&0xF]) * x[j+1]
		b0 += float32(table[v0>>4]) * x[j+16]
		b1 += float32(table[v1>>4]) * x[j+17]
	}
	return (a0 + a1) + (b0 + b1)
}

func dotQ2_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ2_K]byte)(row[i*sizeQ2_K:])
		xb := (*[QKK]float32)(x[i*QKK:])
		var qs, ms float32
		for h := 0; h < 2; h++ {
			q := (*[32]byte)(b[offQ2KQs+32*h:])
			for j := 0; j < 4; j++ {
				shift := uint(2 * j)
				for half := 0; half < 2; half++ {
					sc := b[8*h+2*j+half]
					xx := (*[16]float32)(xb[128*h+32*j+16*half:])
					var s0, s1, m0, m1 float32
					for l := 0; l < 16; l += 2 {
						s0 += float32(q[16*half+l]>>shift&3) * xx[l]
						s1 += float32(q[16*half+l+1]>>shift&3) * xx[l+1]
						m0 += xx[l]
						m1 += xx[l+1]
					}
					qs += float32(sc&0xF) * (s0 + s1)
					ms += float32(sc>>4) * (m0 + m1)
				}
			}
		}
		sum += f16At(b[offQ2KD:])*qs - f16At(b[offQ2KDmin:])*ms
	}
	return sum
}

func dotQ3_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ3_K]byte)(row[i*sizeQ3_K:])
		xb := (*[QKK]float32)(x[i*QKK:])
		sc := ScalesQ3K((*[12]byte)(b[offQ3KScales:]))
		hm := (*[32]byte)(b[0:])
		var acc float32
		for h := 0; h < 2; h++ {
			q := (*[32]byte)(b[offQ3KQs+32*h:])
			for j := 0; j < 4; j++ {
				shift, m := uint(2*j), byte(1)<<(4*h+j)
				for half := 0; half < 2; half++ {
					xx := (*[16]float32)(xb[128*h+32*j+16*half:])
					var s0, s1 float32
					for l := 0; l < 16; l += 2 {
						k := 16*half + l
						s0 += float32(q3(q[k], hm[k], shift, m)) * xx[l]
						s1 += float32(q3(q[k+1], hm[k+1], shift, m)) * xx[l+1]
					}
					acc += float32(sc[8*h+2*j+half]) * (s0 + s1)
				}
			}
		}
		sum += f16At(b[offQ3KD:]) * acc
	}
	return sum
}

func dotIQ4_NL(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeIQ4_NL]byte)(row[i*sizeIQ4_NL:])
		sum += f16At(b[0:]) * dotLUT16((*[16]byte)(b[2:]), &kvaluesIQ4NL, (*[QK]float32)(x[i*QK:]))
	}
	return sum
}

func dotIQ4_XS(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeIQ4_XS]byte)(row[i*sizeIQ4_XS:])
		var acc float32
		for ib := 0; ib < QKK/32; ib++ {
			s := dotLUT16((*[16]byte)(b[offIQ4XSQs+16*ib:]), &kvaluesIQ4NL, (*[32]float32)(x[i*QKK+32*ib:]))
			acc += float32(scaleIQ4XS(b, ib)) * s
		}
		sum += f16At(b[0:]) * acc
	}
	return sum
}

func dotMXFP4(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeMXFP4]byte)(row[i*sizeMXFP4:])
		sum += e8m0Half(b[0]) * dotLUT16((*[16]byte)(b[1:]), &kvaluesMXFP4, (*[QK]float32)(x[i*QK:]))
	}
	return sum
}
