//go:build arm64 && !purego

package native

// dotsF32SIMD sets s[j] = Σ q[i]*k[j][i] over hd floats for nrows key rows
// kstride bytes apart; hd is a multiple of 8.
//
//go:noescape
func dotsF32SIMD(s, q, k *float32, kstride, nrows, hd int)

// dotsF16SIMD is dotsF32SIMD for binary16 keys.
//
//go:noescape
func dotsF16SIMD(s, q *float32, k *byte, kstride, nrows, hd int)

// wsumF32SIMD sets o[i] = Σ w[j]*v[j][i] over nrows value rows vstride
// bytes apart, for i < hd; hd is a multiple of 8.
//
//go:noescape
func wsumF32SIMD(o, w, v *float32, vstride, nrows, hd int)

// wsumF16SIMD is wsumF32SIMD for binary16 values.
//
//go:noescape
func wsumF16SIMD(o, w *float32, v *byte, vstride, nrows, hd int)

// wsumQ8_0SIMD sets o[i] = Σ w[j]*v[j][i] over nrows value rows of nb
// Q8_0 blocks, vstride bytes apart, for i < 32*nb: each block is widened
// to float32 in registers, never stored.
//
//go:noescape
func wsumQ8_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)

// wsumQ4_0SIMD is wsumQ8_0SIMD for Q4_0 value rows.
//
//go:noescape
func wsumQ4_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)

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
