//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSoftmaxKernels512 checks that the 16-lane steps of scaleMaxSIMD,
// expSubSIMD and swigluSIMD give every element the value of their 8-lane
// (AVX2) steps, bit for bit, and the same maximum; the sums agree to
// rounding (their order differs). Lengths take 16-lane steps alone, the
// 8-lane tail alone, and both.
func TestSoftmaxKernels512(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this CPU (or built with -tags avx2only): the 16-lane steps do not run")
	}
	r := rand.New(rand.NewPCG(41, 42))
	run := func(wide bool, f func()) {
		defer func() { haveAVX512 = true }()
		haveAVX512 = wide
		f()
	}
	for _, n := range []int{8, 16, 24, 32, 40, 128, 520} {
		for _, spread := range []float32{0.5, 20, 200} {
			s := randFloats(r, n, spread)
			s[n/2] = -1000 // an exponent below the clamp
			a, b := append([]float32(nil), s...), append([]float32(nil), s...)
			var ma, mb, sa, sb float32
			run(true, func() { ma = scaleMaxSIMD(&a[0], n, 0.3); sa = expSubSIMD(&a[0], n, ma) })
			run(false, func() { mb = scaleMaxSIMD(&b[0], n, 0.3); sb = expSubSIMD(&b[0], n, mb) })
			require.Equal(t, mb, ma, "n=%d spread %g: max", n, spread)
			for i := range a {
				require.Equal(t, math.Float32bits(b[i]), math.Float32bits(a[i]), "n=%d spread %g: element %d", n, spread, i)
			}
			require.InEpsilon(t, sb, sa, 1e-6, "n=%d spread %g: sum", n, spread)

			gate, up := randFloats(r, n, spread), randFloats(r, n, 2)
			ga, gb := append([]float32(nil), gate...), append([]float32(nil), gate...)
			run(true, func() { swigluSIMD(&ga[0], &up[0], n) })
			run(false, func() { swigluSIMD(&gb[0], &up[0], n) })
			for i := range ga {
				require.Equal(t, math.Float32bits(gb[i]), math.Float32bits(ga[i]), "swiglu n=%d spread %g: element %d", n, spread, i)
			}
		}
	}
}
