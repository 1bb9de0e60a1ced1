//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestBlockKernelSets checks the AVX2 and the AVX-512 block kernels (which
// dotRow picks between by CPU) against ggml.Dot on misaligned rows.
func TestBlockKernelSets(t *testing.T) {
	if !haveSIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	type kernel func(w *byte, x *float32, nb int) float32
	sets := map[string]map[ggml.DType]kernel{
		"avx2": {ggml.Q8_0: dotQ8_0SIMD, ggml.Q4_0: dotQ4_0SIMD, ggml.Q5_0: dotQ5_0SIMD, ggml.Q4_1: dotQ4_1SIMD,
			ggml.Q5_1: dotQ5_1SIMD, ggml.Q4_K: dotQ4KSIMD, ggml.Q5_K: dotQ5KSIMD, ggml.Q6_K: dotQ6KSIMD},
	}
	if haveAVX512 {
		sets["avx512"] = map[ggml.DType]kernel{ggml.Q8_0: dotQ8_0AVX512, ggml.Q4_0: dotQ4_0AVX512, ggml.Q5_0: dotQ5_0AVX512}
	} else {
		t.Log("CPU without AVX-512: its kernels are not tested")
	}
	r := rand.New(rand.NewPCG(10, 10))
	for name, set := range sets {
		for typ, k := range set {
			for _, nb := range []int{1, 2, 3, 4, 5, 18} {
				n := nb * typ.BlockSize()
				w := randWeight(t, r, typ, 1, n)
				x := misalignF(randFloats(r, n, 2))
				deq := make([]float32, n)
				require.NoError(t, ggml.DequantizeRow(typ, w.Data, deq))
				var mag float64
				for i := range x {
					mag += math.Abs(float64(deq[i]) * float64(x[i]))
				}
				data := misalign(w.Data, 3)
				require.InDelta(t, ggml.Dot(typ, w.Data, x), k(&data[0], &x[0], nb), 1e-6*mag+1e-7, "%s %s, %d blocks", name, typ, nb)
			}
		}
	}
}
