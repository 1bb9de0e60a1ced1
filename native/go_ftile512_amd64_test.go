//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDotF32r4x4 checks the AVX-512 float tile against float64 sums, for
// lengths with and without a tail, and that a row repeated (wstride 0)
// gives bit for bit the sum it gets inside a tile of 4 distinct rows.
func TestDotF32r4x4(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 15, 16, 17, 48, 100, 576, 1536} {
		w := randFloats(r, 4*n, 1)
		x := randFloats(r, 4*n, 1)
		var o [16]float32
		dotF32r4x4(w, n, x, n, n, &o)
		for row := range 4 {
			for tok := range 4 {
				var want float64
				for k := range n {
					want += float64(w[row*n+k]) * float64(x[tok*n+k])
				}
				require.InDelta(t, want, float64(o[4*row+tok]), 1e-5*math.Sqrt(float64(n))+1e-6, "n=%d row %d token %d", n, row, tok)
			}
			var one [16]float32
			dotF32r4x4(w[row*n:(row+1)*n], 0, x, n, n, &one)
			for tok := range 4 {
				require.Equal(t, o[4*row+tok], one[tok], "n=%d row %d token %d: a repeated row differs from the tile", n, row, tok)
			}
		}
	}
}
