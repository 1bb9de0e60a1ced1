//go:build amd64 && !purego

package native

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestILRowsQ4_0AVX2 checks the AVX2 interleaved Q4_0 decode kernel (the
// Go backend's on CPUs without AVX-512 VNNI) against the row-major row
// kernel over the same q8a activations, and against the VNNI one where
// the CPU has it: sums of the same products in another order.
func TestILRowsQ4_0AVX2(t *testing.T) {
	if !haveLowBitRows {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, shape := range [][2]int{{16, 32}, {32, 64}, {48, 576}, {16, 2048}} {
		rows, cols := shape[0], shape[1]
		nb := cols / qk
		w := randWeight(t, r, ggml.Q4_0, rows, cols)
		il, err := Interleave16(Weight{Type: ggml.Q4_0, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
		require.NoError(t, err)
		x := randFloats(r, cols, 3)
		xq := make([]byte, nb*sizeQ8a)
		quantizeQ8(ggml.Q4_0, xq, x)
		want := make([]float32, rows)
		dotRowsQ4_0Q8SIMD(&w.Data[0], w.RowBytes(), rows, &xq[0], nb, &want[0])
		got := make([]float32, rows)
		ilRowsQ4_0AVX2(&il.Data[0], rows/ilRows, nb, &xq[0], &got[0])
		name := fmt.Sprintf("%d×%d", rows, cols)
		assertClose(t, want, got, 1e-5, name)
		if haveVNNI {
			vnni := make([]float32, rows)
			ilRowsQ4_0(&il.Data[0], rows/ilRows, nb, &xq[0], &vnni[0])
			assertClose(t, vnni, got, 1e-5, name+" against VNNI")
		}
	}
}
