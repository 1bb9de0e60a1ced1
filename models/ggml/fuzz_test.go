package ggml

import (
	"math"
	"testing"
)

// FuzzDequantize feeds arbitrary type ids, element counts and bytes to the
// converters: they must return an error or succeed, never panic, and Dot
// must agree with Dequantize on what is valid; the low-bit types give
// finite values whenever their block scales are finite.
func FuzzDequantize(f *testing.F) {
	f.Add(uint32(Q8_0), 32, make([]byte, 34))
	f.Add(uint32(Q4_K), 256, make([]byte, 144))
	f.Add(uint32(Q6_K), 256, make([]byte, 210))
	f.Add(uint32(Q2_K), 256, make([]byte, 84))
	f.Add(uint32(Q3_K), 256, make([]byte, 110))
	f.Add(uint32(IQ4_NL), 32, make([]byte, 18))
	f.Add(uint32(IQ4_XS), 256, make([]byte, 136))
	f.Add(uint32(MXFP4), 64, make([]byte, 34))
	f.Add(uint32(F16), 3, []byte{0, 0x3c, 0, 0x7c, 1, 0x7e})
	f.Add(uint32(99), 1, []byte{1})
	f.Fuzz(func(t *testing.T, typ uint32, n int, data []byte) {
		if n < 0 || n > 1<<16 {
			return
		}
		dt := DType(typ)
		y := make([]float32, n)
		err := Dequantize(dt, data, y)
		rowErr := DequantizeRow(dt, data, y)
		x := make([]float32, n)
		for i := range x {
			x[i] = 1
		}
		d := Dot(dt, data, x)
		if err == nil && finiteScales(dt, data) {
			for i, v := range y {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: element %d is %v although every block scale is finite", dt, i, v)
				}
			}
		}
		if err == nil {
			if rowErr != nil {
				t.Fatalf("Dequantize accepted what DequantizeRow refused: %v", rowErr)
			}
			if math.IsNaN(float64(d)) {
				var sum float32
				nan := false
				for _, v := range y {
					sum += v
					nan = nan || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)
				}
				if !nan && !math.IsNaN(float64(sum)) && !math.IsInf(float64(sum), 0) {
					t.Fatalf("Dot returned NaN for valid finite data")
				}
			}
			if CanQuantize(dt) {
				q := make([]byte, len(data))
				if qerr := Quantize(dt, y, q); qerr != nil {
					t.Fatalf("Quantize of dequantized data: %v", qerr)
				}
			}
		}
	})
}

// scaleFields are the byte offsets of the f16 scales in a block of the
// low-bit types whose values are bounded by their scales.
var scaleFields = map[DType][]int{
	Q2_K: {offQ2KD, offQ2KDmin}, Q3_K: {offQ3KD}, IQ4_NL: {0}, IQ4_XS: {0},
}

// finiteScales reports whether every block of data (of type t, one of
// scaleFields or MXFP4) has scales that keep its values finite: finite f16
// scales, or for MXFP4 an exponent of at most 252 (12·2^124 is the largest
// finite product; 12·2^125 overflows float32).
func finiteScales(t DType, data []byte) bool {
	offs, ok := scaleFields[t]
	if !ok && t != MXFP4 {
		return false
	}
	bs := t.TypeSize()
	for o := 0; o+bs <= len(data); o += bs {
		if t == MXFP4 {
			if data[o] > 252 {
				return false
			}
			continue
		}
		for _, f := range offs {
			if h := uint16(data[o+f]) | uint16(data[o+f+1])<<8; h&0x7c00 == 0x7c00 {
				return false
			}
		}
	}
	return true
}
