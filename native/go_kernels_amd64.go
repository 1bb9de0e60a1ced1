//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveSIMD reports whether the AVX2 kernels of go_kernels_amd64.s run on
// this CPU (AVX2, FMA and F16C, with the OS saving the YMM registers).
var haveSIMD = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotF32SIMD returns Σ a[i]*b[i] over n floats; n is a multiple of 8.
//
//go:noescape
func dotF32SIMD(a, b *float32, n int) float32

// dotF32x4SIMD sets out[t] = Σ w[i]*x[t][i] over n floats for 4 rows of x
// xstride bytes apart; n is a multiple of 8.
//
//go:noescape
func dotF32x4SIMD(w, x *float32, xstride, n int, out *float32)

// dotF16SIMD returns Σ f16(w[i])*x[i] over n elements; n is a multiple of 8.
//
//go:noescape
func dotF16SIMD(w *byte, x *float32, n int) float32

// cvtF16SIMD converts n binary16 values to float32; n is a multiple of 8.
//
//go:noescape
func cvtF16SIMD(dst *float32, src *byte, n int)

// dotQ8_0SIMD returns the dot product of nb Q8_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ8_0SIMD(w *byte, x *float32, nb int) float32

// dotQ4_0SIMD returns the dot product of nb Q4_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ4_0SIMD(w *byte, x *float32, nb int) float32

// dotQ5_0SIMD returns the dot product of nb Q5_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ5_0SIMD(w *byte, x *float32, nb int) float32

// deqQ8_0SIMD dequantizes nb Q8_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ8_0SIMD(dst *float32, w *byte, nb int)

// deqQ4_0SIMD dequantizes nb Q4_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ4_0SIMD(dst *float32, w *byte, nb int)

// deqQ5_0SIMD dequantizes nb Q5_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ5_0SIMD(dst *float32, w *byte, nb int)

// dotQ6KSIMD returns the dot product of nb Q6_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ6KSIMD(w *byte, x *float32, nb int) float32

// deqQ6KSIMD dequantizes nb Q6_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ6KSIMD(dst *float32, w *byte, nb int)

// dotQ4KSIMD returns the dot product of nb Q4_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ4KSIMD(w *byte, x *float32, nb int) float32

// deqQ4KSIMD dequantizes nb Q4_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ4KSIMD(dst *float32, w *byte, nb int)

// dotF32r2x4SIMD sets out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for 2
// weight rows wstride bytes apart and 4 activation rows xstride bytes
// apart; n is a multiple of 8.
//
//go:noescape
func dotF32r2x4SIMD(w *float32, wstride int, x *float32, xstride, n int, out *float32)

// dotBF16SIMD returns Σ bf16(w[i])*x[i] over n elements; n is a multiple
// of 8.
//
//go:noescape
func dotBF16SIMD(w *byte, x *float32, n int) float32

// cvtBF16SIMD converts n bfloat16 values to float32; n is a multiple of 8.
//
//go:noescape
func cvtBF16SIMD(dst *float32, src *byte, n int)

// dotQ5KSIMD returns the dot product of nb Q5_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ5KSIMD(w *byte, x *float32, nb int) float32

// deqQ5KSIMD dequantizes nb Q5_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ5KSIMD(dst *float32, w *byte, nb int)

// dotQ4_1SIMD returns the dot product of nb Q4_1 blocks with 32*nb floats.
//
//go:noescape
func dotQ4_1SIMD(w *byte, x *float32, nb int) float32

// dotQ5_1SIMD returns the dot product of nb Q5_1 blocks with 32*nb floats.
//
//go:noescape
func dotQ5_1SIMD(w *byte, x *float32, nb int) float32

// deqQ4_1SIMD dequantizes nb Q4_1 blocks into 32*nb floats.
//
//go:noescape
func deqQ4_1SIMD(dst *float32, w *byte, nb int)

// deqQ5_1SIMD dequantizes nb Q5_1 blocks into 32*nb floats.
//
//go:noescape
func deqQ5_1SIMD(dst *float32, w *byte, nb int)

// quantQ8aSIMD quantizes 32*nb floats to nb q8a blocks at dst.
//
//go:noescape
func quantQ8aSIMD(dst *byte, x *float32, nb int)

// quantQ8KSIMD quantizes 256*nb floats to nb q8K blocks at dst.
//
//go:noescape
func quantQ8KSIMD(dst *byte, x *float32, nb int)

// dotRowsQ8_0Q8SIMD sets out[r] to the dot product of the nb Q8_0 blocks of
// weight row r (at w + r*rs bytes) with the nb q8a blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ4_0Q8SIMD sets out[r] to the dot product of the nb Q4_0 blocks of
// weight row r (at w + r*rs bytes) with the nb q8a blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ4KQ8KSIMD sets out[r] to the dot product of the nb Q4_K blocks of
// weight row r (at w + r*rs bytes) with the nb q8K blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ6KQ8KSIMD sets out[r] to the dot product of the nb Q6_K blocks of
// weight row r (at w + r*rs bytes) with the nb q8K blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// roundQ8aSIMD sets 32*nb floats at dst to the values of the q8a blocks
// quantQ8aSIMD makes of x (dst may be x).
//
//go:noescape
func roundQ8aSIMD(dst, x *float32, nb int)

// roundQ8KSIMD sets 256*nb floats at dst to the values of the q8K blocks
// quantQ8KSIMD makes of x (dst may be x).
//
//go:noescape
func roundQ8KSIMD(dst, x *float32, nb int)

// dotRowsQ5KQ8KSIMD sets out[r] to the dot product of the nb Q5_K blocks of
// weight row r (at w + r*rs bytes) with the nb q8K blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ5_0Q8SIMD sets out[r] to the dot product of the nb Q5_0 blocks of
// weight row r (at w + r*rs bytes) with the nb q8a blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
