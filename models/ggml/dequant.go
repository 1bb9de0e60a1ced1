package ggml

import (
	"encoding/binary"
	"fmt"
	"math"
)

// CanDequantize reports whether Dequantize, DequantizeRow and Dot support t.
func CanDequantize(t DType) bool {
	switch t {
	case F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K,
		IQ4_NL, IQ4_XS, MXFP4:
		return true
	}
	return false
}

// CheckRow reports whether nbytes bytes of type t hold exactly n elements:
// t must be supported, n a multiple of its block size and nbytes equal to
// t.RowSize(n). The error names the type and the sizes.
func CheckRow(t DType, nbytes, n int) error {
	need, err := rowBytes(t, n)
	if err != nil {
		return err
	}
	if nbytes != need {
		return fmt.Errorf("ggml: %s: %d elements take %d bytes, got %d", t, n, need, nbytes)
	}
	return nil
}

// rowBytes is RowSize restricted to the types this package converts.
func rowBytes(t DType, n int) (int, error) {
	if !CanDequantize(t) {
		return 0, fmt.Errorf("ggml: converting type %s is not supported", t)
	}
	if n < 0 {
		return 0, fmt.Errorf("ggml: %s: negative element count %d", t, n)
	}
	size, err := t.RowSize(n)
	if err != nil {
		return 0, fmt.Errorf("ggml: %w", err)
	}
	return size, nil
}

// Dequantize converts the whole tensor data src of type t to float32 in dst.
// len(dst) is the element count; src must be exactly t.RowSize(len(dst))
// bytes. The values are bit-identical to ggml's dequantize_row_* functions.
func Dequantize(t DType, src []byte, dst []float32) error {
	if err := CheckRow(t, len(src), len(dst)); err != nil {
		return err
	}
	dequantize(t, src, dst)
	return nil
}

// DequantizeRow converts the first len(dst) elements stored in src (which
// may be longer, such as the rest of a tensor) to float32. It does not
// allocate, so it suits hot loops; like Dequantize it returns an error when
// the type is unsupported, len(dst) is not a multiple of the block size or
// src is too short.
func DequantizeRow(t DType, src []byte, dst []float32) error {
	need, err := rowBytes(t, len(dst))
	if err != nil {
		return err
	}
	if len(src) < need {
		return fmt.Errorf("ggml: %s: %d elements need %d bytes, got %d", t, len(dst), need, len(src))
	}
	dequantize(t, src[:need], dst)
	return nil
}

// dequantize dispatches on t; the sizes have been checked.
func dequantize(t DType, src []byte, dst []float32) {
	switch t {
	case F32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case F16:
		for i := range dst {
			dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case BF16:
		for i := range dst {
			dst[i] = BF16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case Q4_0:
		dequantQ4_0(src, dst)
	case Q4_1:
		dequantQ4_1(src, dst)
	case Q5_0:
		dequantQ5_0(src, dst)
	case Q5_1:
		dequantQ5_1(src, dst)
	case Q8_0:
		dequantQ8_0(src, dst)
	case Q8_1:
		dequantQ8_1(src, dst)
	case Q2_K:
		dequantQ2_K(src, dst)
	case Q3_K:
		dequantQ3_K(src, dst)
	case Q4_K:
		dequantQ4_K(src, dst)
	case Q5_K:
		dequantQ5_K(src, dst)
	case Q6_K:
		dequantQ6_K(src, dst)
	case Q8_K:
		dequantQ8_K(src, dst)
	case IQ4_NL:
		dequantIQ4_NL(src, dst)
	case IQ4_XS:
		dequantIQ4_XS(src, dst)
	case MXFP4:
		dequantMXFP4(src, dst)
	}
}

// f16At reads the little-endian binary16 value at b[0:2] as float32.
func f16At(b []byte) float32 { return F16ToF32(uint16(b[0]) | uint16(b[1])<<8) }

func dequantQ4_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ4_0]byte)(src[i*sizeQ4_0:])
		y := (*[QK]float32)(dst[i*QK:])
		d := f16At(b[0:])
		qs := (*[QK / 2]byte)(b[2:])
		for j, q := range qs {
			y[j] = float32(int(q&0x0F)-8) * d
			y[j+QK/2] = float32(int(q>>4)-8) * d
		}
	}
}

func dequantQ4_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ4_1]byte)(src[i*sizeQ4_1:])
		y := (*[QK]float32)(dst[i*QK:])
		d, m := f16At(b[0:]), f16At(b[2:])
		qs := (*[QK / 2]byte)(b[4:])
		for j, q := range qs {
			y[j] = float32(float32(q&0x0F)*d) + m
			y[j+QK/2] = float32(float32(q>>4)*d) + m
		}
	}
}

func dequantQ5_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ5_0]byte)(src[i*sizeQ5_0:])
		y := (*[QK]float32)(dst[i*QK:])
		d := f16At(b[0:])
		qh := binary.LittleEndian.Uint32(b[2:])
		qs := (*[QK / 2]byte)(b[6:])
		for j, q := range qs {
			h0 := byte(qh>>j<<4) & 0x10
			h1 := byte(qh>>(j+12)) & 0x10
			y[j] = float32(int(q&0x0F|h0)-16) * d
			y[j+QK/2] = float32(int(q>>4|h1)-16) * d
		}
	}
}

func dequantQ5_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ5_1]byte)(src[i*sizeQ5_1:])
		y := (*[QK]float32)(dst[i*QK:])
		d, m := f16At(b[0:]), f16At(b[2:])
		qh := binary.LittleEndian.Uint32(b[4:])
		qs := (*[QK / 2]byte)(b[8:])
		for j, q := range qs {
			h0 := byte(qh>>j<<4) & 0x10
			h1 := byte(qh>>(j+12)) & 0x10
			y[j] = float32(float32(q&0x0F|h0)*d) + m
			y[j+QK/2] = float32(float32(q>>4|h1)*d) + m
		}
	}
}

func dequantQ8_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ8_0]byte)(src[i*sizeQ8_0:])
		y := (*[QK]float32)(dst[i*QK:])
		d := f16At(b[0:])
		qs := (*[QK]byte)(b[2:])
		for j, q := range qs {
			y[j] = float32(int8(q)) * d
		}
	}
}

func dequantQ8_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := (*[sizeQ8_1]byte)(src[i*sizeQ8_1:])
		y := (*[QK]float32)(dst[i*QK:])
		d := f16At(b[0:])
		qs := (*[QK]byte)(b[4:])
		for j, q := range qs {
			y[j] = float32(int8(q)) * d
		}
	}
}

// ScaleMinK4 unpacks the 6-bit scale and min of sub-block j from the 12
// packed bytes of a Q4_K or Q5_K block (ggml's get_scale_min_k4).
func ScaleMinK4(j int, q *[kScaleSize]byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xF | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

func dequantQ4_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ4_K]byte)(src[i*sizeQ4_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d, dmin := f16At(b[0:]), f16At(b[2:])
		scales := (*[kScaleSize]byte)(b[offQ4KScales:])
		for g := 0; g < 4; g++ {
			sc, m := ScaleMinK4(2*g, scales)
			d1, m1 := d*float32(sc), dmin*float32(m)
			sc, m = ScaleMinK4(2*g+1, scales)
			d2, m2 := d*float32(sc), dmin*float32(m)
			q := (*[32]byte)(b[offQ4KQs+32*g:])
			y1 := (*[32]float32)(y[64*g:])
			y2 := (*[32]float32)(y[64*g+32:])
			for l, v := range q {
				y1[l] = float32(d1*float32(v&0xF)) - m1
				y2[l] = float32(d2*float32(v>>4)) - m2
			}
		}
	}
}

func dequantQ5_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ5_K]byte)(src[i*sizeQ5_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d, dmin := f16At(b[0:]), f16At(b[2:])
		scales := (*[kScaleSize]byte)(b[offQ5KScales:])
		qh := (*[32]byte)(b[offQ5KQh:])
		for g := 0; g < 4; g++ {
			sc, m := ScaleMinK4(2*g, scales)
			d1, m1 := d*float32(sc), dmin*float32(m)
			sc, m = ScaleMinK4(2*g+1, scales)
			d2, m2 := d*float32(sc), dmin*float32(m)
			ql := (*[32]byte)(b[offQ5KQs+32*g:])
			y1 := (*[32]float32)(y[64*g:])
			y2 := (*[32]float32)(y[64*g+32:])
			s1, s2 := uint(2*g), uint(2*g+1)
			for l, v := range ql {
				h := qh[l]
				y1[l] = float32(d1*float32(v&0xF|(h>>s1&1)<<4)) - m1
				y2[l] = float32(d2*float32(v>>4|(h>>s2&1)<<4)) - m2
			}
		}
	}
}

func dequantQ6_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ6_K]byte)(src[i*sizeQ6_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := f16At(b[offQ6KD:])
		for h := 0; h < 2; h++ {
			ql := (*[64]byte)(b[64*h:])
			qh := (*[32]byte)(b[offQ6KQh+32*h:])
			sc := (*[8]byte)(b[offQ6KScales+8*h:])
			yy := (*[128]float32)(y[128*h:])
			for l := 0; l < 32; l++ {
				is := l / 16
				q1 := int(ql[l]&0xF|(qh[l]>>0&3)<<4) - 32
				q2 := int(ql[l+32]&0xF|(qh[l]>>2&3)<<4) - 32
				q3 := int(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
				q4 := int(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
				yy[l] = float32(d*float32(int8(sc[is]))) * float32(q1)
				yy[l+32] = float32(d*float32(int8(sc[is+2]))) * float32(q2)
				yy[l+64] = float32(d*float32(int8(sc[is+4]))) * float32(q3)
				yy[l+96] = float32(d*float32(int8(sc[is+6]))) * float32(q4)
			}
		}
	}
}

func dequantQ8_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := (*[sizeQ8_K]byte)(src[i*sizeQ8_K:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := math.Float32frombits(binary.LittleEndian.Uint32(b[0:]))
		qs := (*[QKK]byte)(b[offQ8KQs:])
		for j, q := range qs {
			y[j] = d * float32(int8(q))
		}
	}
}
