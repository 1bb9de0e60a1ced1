package ggml

import (
	"encoding/binary"
	"fmt"
	"math"
)

// CanQuantize reports whether Quantize supports t.
func CanQuantize(t DType) bool {
	switch t {
	case F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K,
		IQ4_NL, IQ4_XS, MXFP4:
		return true
	}
	return false
}

// Quantize converts src to type t, writing exactly t.RowSize(len(src))
// bytes into dst, which must have that length. The algorithms are ggml's
// reference ones (quantize_row_*_ref, what llama-quantize uses without an
// importance matrix), computed in float32 step by step as C does, so the
// bytes equal llama.cpp's.
func Quantize(t DType, src []float32, dst []byte) error {
	if !CanQuantize(t) {
		return fmt.Errorf("ggml: quantizing to %s is not supported", t)
	}
	if err := CheckRow(t, len(dst), len(src)); err != nil {
		return err
	}
	switch t {
	case F32:
		for i, v := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
	case F16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(v))
		}
	case BF16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(v))
		}
	case Q4_0:
		quantQ4_0(src, dst)
	case Q4_1:
		quantQ4_1(src, dst)
	case Q5_0:
		quantQ5_0(src, dst)
	case Q5_1:
		quantQ5_1(src, dst)
	case Q8_0:
		quantQ8_0(src, dst)
	case Q2_K:
		quantQ2_K(src, dst)
	case Q3_K:
		quantQ3_K(src, dst)
	case Q4_K:
		quantQ4_K(src, dst)
	case Q5_K:
		quantQ5_K(src, dst)
	case Q6_K:
		quantQ6_K(src, dst)
	case Q8_K:
		quantQ8_K(src, dst)
	case IQ4_NL:
		quantIQ4_NL(src, dst)
	case IQ4_XS:
		quantIQ4_XS(src, dst)
	case MXFP4:
		quantMXFP4(src, dst)
	}
	return nil
}

// putF16 stores f as little-endian binary16 at b[0:2].
func putF16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F32ToF16(f)) }

// absMax returns the largest |v| of x and the signed value that has it (the
// first one on ties), as the ggml reference quantizers pick it.
func absMax(x []float32) (amax, max float32) {
	for _, v := range x {
		if a := abs32(v); amax < a {
			amax, max = a, v
		}
	}
	return amax, max
}

// minMax returns the smallest and largest values of x.
func minMax(x []float32) (lo, hi float32) {
	lo, hi = float32(math.MaxFloat32), -float32(math.MaxFloat32)
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// inv returns 1/d, or 0 when d is 0.
func inv(d float32) float32 {
	if d != 0 {
		return 1 / d
	}
	return 0
}

func quantQ4_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		y := (*[sizeQ4_0]byte)(dst[i*sizeQ4_0:])
		_, max := absMax(x[:])
		d := max / -8
		id := inv(d)
		putF16(y[0:], d)
		for j := 0; j < QK/2; j++ {
			x0 := float32(x[j] * id)
			x1 := float32(x[j+QK/2] * id)
			y[2+j] = byte(min(15, int8(x0+8.5))) | byte(min(15, int8(x1+8.5)))<<4
		}
	}
}

func quantQ4_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		y := (*[sizeQ4_1]byte)(dst[i*sizeQ4_1:])
		lo, hi := minMax(x[:])
		d := (hi - lo) / 15
		id := inv(d)
		putF16(y[0:], d)
		putF16(y[2:], lo)
		for j := 0; j < QK/2; j++ {
			x0 := float32((x[j] - lo) * id)
			x1 := float32((x[j+QK/2] - lo) * id)
			y[4+j] = byte(min(15, int8(x0+0.5))) | byte(min(15, int8(x1+0.5)))<<4
		}
	}
}

func quantQ5_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		y := (*[sizeQ5_0]byte)(dst[i*sizeQ5_0:])
		_, max := absMax(x[:])
		d := max / -16
		id := inv(d)
		putF16(y[0:], d)
		var qh uint32
		for j := 0; j < QK/2; j++ {
			x0 := float32(x[j] * id)
			x1 := float32(x[j+QK/2] * id)
			xi0 := byte(min(31, int8(x0+16.5)))
			xi1 := byte(min(31, int8(x1+16.5)))
			y[6+j] = xi0&0x0F | (xi1&0x0F)<<4
			qh |= uint32(xi0&0x10) >> 4 << j
			qh |= uint32(xi1&0x10) >> 4 << (j + QK/2)
		}
		binary.LittleEndian.PutUint32(y[2:], qh)
	}
}

func quantQ5_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		y := (*[sizeQ5_1]byte)(dst[i*sizeQ5_1:])
		lo, hi := minMax(x[:])
		d := (hi - lo) / 31
		id := inv(d)
		putF16(y[0:], d)
		putF16(y[2:], lo)
		var qh uint32
		for j := 0; j < QK/2; j++ {
			x0 := float32((x[j] - lo) * id)
			x1 := float32((x[j+QK/2] - lo) * id)
			xi0 := uint8(x0 + 0.5)
			xi1 := uint8(x1 + 0.5)
			y[8+j] = xi0&0x0F | (xi1&0x0F)<<4
			qh |= uint32(xi0&0x10) >> 4 << j
			qh |= uint32(xi1&0x10) >> 4 << (j + QK/2)
		}
		binary.LittleEndian.PutUint32(y[4:], qh)
	}
}

func quantQ8_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		y := (*[sizeQ8_0]byte)(dst[i*sizeQ8_0:])
		amax, _ := absMax(x[:])
		d := amax / 127
		id := inv(d)
		putF16(y[0:], d)
		for j, v := range x {
			y[2+j] = byte(int8(math.Round(float64(float32(v * id)))))
		}
	}
}

// nearestInt rounds f to the nearest integer, ties to even, exactly as
// ggml's nearest_int (valid for |f| <= 4194303).
func nearestInt(f float32) int {
	v := float32(f) + 12582912
	return int(int32(math.Float32bits(v)&0x007fffff) - 0x00400000)
}

func quantQ8_K(src []float32, dst []byte) {
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		y := (*[sizeQ8_K]byte)(dst[i*sizeQ8_K:])
		amax, max := absMax(x[:])
		if amax == 0 {
			clear(y[:])
			continue
		}
		iscale := -127 / max
		for j, v := range x {
			y[offQ8KQs+j] = byte(int8(min(127, nearestInt(float32(iscale*v)))))
		}
		for j := 0; j < QKK/16; j++ {
			sum := 0
			for _, q := range y[offQ8KQs+16*j : offQ8KQs+16*j+16] {
				sum += int(int8(q))
			}
			binary.LittleEndian.PutUint16(y[offQ8KBsums+2*j:], uint16(int16(sum)))
		}
		binary.LittleEndian.PutUint32(y[0:], math.Float32bits(1/iscale))
	}
}

// IsQuantized reports whether t is a block-quantized type (ggml's
// ggml_is_quantized): every known type with more than one element per block.
func IsQuantized(t DType) bool { return t.BlockSize() > 1 }
