package ggml

import (
	"math"
	"testing"
)

// FuzzDequantize feeds arbitrary type ids, element counts and bytes to the
// converters: they must return an error or succeed, never panic, and Dot
// must agree with Dequantize on what is valid.
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
