//go:build amd64 && !purego

package native

// scaleMaxSIMD multiplies the n floats of s by scale in place and returns
// their maximum; n is a positive multiple of 8.
//
//go:noescape
func scaleMaxSIMD(s *float32, n int, scale float32) float32

// expSubSIMD sets s[j] = e^(s[j]-m) for the n floats of s and returns their
// sum; n is a multiple of 8. The exponential is Cephes' expf (within 2 ulp
// of the exact value); arguments below -87 give e^-87.
//
//go:noescape
func expSubSIMD(s *float32, n int, m float32) float32

// swigluSIMD sets gate[i] = silu(gate[i]) * up[i] for n elements, n a
// multiple of 8, with the exponential of expSubSIMD.
//
//go:noescape
func swigluSIMD(gate, up *float32, n int)
