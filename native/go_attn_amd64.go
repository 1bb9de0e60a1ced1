//go:build amd64 && !purego

package native

// dotsF32AVX2 sets s[j] = Σ q[i]*k[j][i] over hd floats for nrows key rows
// kstride bytes apart; hd is a multiple of 8.
//
//go:noescape
func dotsF32AVX2(s, q, k *float32, kstride, nrows, hd int)

// dotsF16AVX2 is dotsF32AVX2 for binary16 keys.
//
//go:noescape
func dotsF16AVX2(s, q *float32, k *byte, kstride, nrows, hd int)

// wsumF32AVX2 sets o[i] = Σ w[j]*v[j][i] over nrows value rows vstride
// bytes apart, for i < hd; hd is a multiple of 8.
//
//go:noescape
func wsumF32AVX2(o, w, v *float32, vstride, nrows, hd int)

// wsumF16AVX2 is wsumF32AVX2 for binary16 values.
//
//go:noescape
func wsumF16AVX2(o, w *float32, v *byte, vstride, nrows, hd int)

// wsumQ8_0AVX2 sets o[i] = Σ w[j]*v[j][i] over nrows value rows of nb
// Q8_0 blocks, vstride bytes apart, for i < 32*nb: each block is widened
// to float32 in registers, never stored.
//
//go:noescape
func wsumQ8_0AVX2(o, w *float32, v *byte, vstride, nrows, nb int)

// wsumQ4_0AVX2 is wsumQ8_0AVX2 for Q4_0 value rows.
//
//go:noescape
func wsumQ4_0AVX2(o, w *float32, v *byte, vstride, nrows, nb int)
