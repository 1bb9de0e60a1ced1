package native

import (
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkGoRowDot compares, per weight type, the pure-Go backend's
// matrix-vector product of SmolLM2's FFN down projection (576×1536) on one
// thread: "generic" is ggml.Dot row by row (the portable code, and the
// whole backend before the SIMD kernels), "simd" the kernels dotRow picks
// on this CPU. MB/s counts weight bytes.
func BenchmarkGoRowDot(b *testing.B) {
	const rows, cols = 576, 1536
	r := rand.New(rand.NewPCG(3, 3))
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q4_1, ggml.Q5_1, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K} {
		w := randWeight(b, r, typ, rows, cols)
		x := randFloats(r, cols, 1)
		out := make([]float32, rows)
		rs := w.RowBytes()
		for _, k := range []struct {
			name string
			dot  func(ggml.DType, []byte, []float32) float32
		}{{"generic", ggml.Dot}, {"simd", dotRow}} {
			b.Run(typ.String()+"/"+k.name, func(b *testing.B) {
				b.SetBytes(int64(len(w.Data)))
				for b.Loop() {
					for i := range rows {
						out[i] = k.dot(typ, w.Data[i*rs:(i+1)*rs], x)
					}
				}
			})
		}
	}
}
