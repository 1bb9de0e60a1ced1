//go:build amd64 && !purego

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
