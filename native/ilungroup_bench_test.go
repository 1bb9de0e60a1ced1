package native

import (
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
)

// BenchmarkILUngroup measures the de-interleave of a group back to rows
// (batches of interleaved types without gemm kernels pay it per group).
func BenchmarkILUngroup(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 7))
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q4_K} {
		w := randWeight(b, r, typ, 16, 2048)
		il, err := Interleave16(w)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]byte, len(il.Data))
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(len(il.Data)))
			for b.Loop() {
				ilUngroup(typ, dst, il.Data, il.RowBytes())
			}
		})
	}
}
