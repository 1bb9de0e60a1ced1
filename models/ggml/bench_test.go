package ggml

import (
	"math/rand/v2"
	"testing"
)

// benchN is the element count per benchmark operation: a 4096×16 slab.
const benchN = 16 * 4096

func benchData(b *testing.B, typ DType) ([]byte, []float32) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float32, benchN)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	size, err := typ.RowSize(benchN)
	if err != nil {
		b.Fatal(err)
	}
	q := make([]byte, size)
	if CanQuantize(typ) {
		if err := Quantize(typ, x, q); err != nil {
			b.Fatal(err)
		}
	} else {
		for i := range q {
			q[i] = byte(rng.Uint32() & 0x3B) // keeps f16 scales finite
		}
	}
	return q, x
}

// BenchmarkDequantize reports throughput as bytes of float32 output per
// second.
func BenchmarkDequantize(b *testing.B) {
	for _, typ := range allTypes {
		b.Run(typ.String(), func(b *testing.B) {
			q, _ := benchData(b, typ)
			y := make([]float32, benchN)
			b.SetBytes(4 * benchN)
			for b.Loop() {
				if err := DequantizeRow(typ, q, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDot reports throughput as bytes of weights read per second, and
// the element rate as Gelem/s.
func BenchmarkDot(b *testing.B) {
	for _, typ := range allTypes {
		b.Run(typ.String(), func(b *testing.B) {
			q, x := benchData(b, typ)
			b.SetBytes(int64(len(q)))
			var sink float32
			for b.Loop() {
				sink += Dot(typ, q, x)
			}
			b.ReportMetric(float64(benchN)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			_ = sink
		})
	}
}

// BenchmarkQuantize reports bytes of float32 input per second.
func BenchmarkQuantize(b *testing.B) {
	for _, typ := range []DType{F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, Q8_K, Q2_K, Q3_K, IQ4_NL, IQ4_XS, MXFP4} {
		b.Run(typ.String(), func(b *testing.B) {
			q, x := benchData(b, typ)
			b.SetBytes(4 * benchN)
			for b.Loop() {
				if err := Quantize(typ, x, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
