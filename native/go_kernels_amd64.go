//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveSIMD reports whether the AVX2 kernels of go_kernels_amd64.s run on
// this CPU (AVX2, FMA and F16C, with the OS saving the YMM registers).
var haveSIMD = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotF32AVX2 returns Σ a[i]*b[i] over n floats; n is a multiple of 8.
//
//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

// dotF32x4AVX2 sets out[t] = Σ w[i]*x[t][i] over n floats for 4 rows of x
// xstride bytes apart; n is a multiple of 8.
//
//go:noescape
func dotF32x4AVX2(w, x *float32, xstride, n int, out *float32)

// dotF16AVX2 returns Σ f16(w[i])*x[i] over n elements; n is a multiple of 8.
//
//go:noescape
func dotF16AVX2(w *byte, x *float32, n int) float32

// cvtF16AVX2 converts n binary16 values to float32; n is a multiple of 8.
//
//go:noescape
func cvtF16AVX2(dst *float32, src *byte, n int)

// dotQ8_0AVX2 returns the dot product of nb Q8_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ8_0AVX2(w *byte, x *float32, nb int) float32

// dotQ4_0AVX2 returns the dot product of nb Q4_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ4_0AVX2(w *byte, x *float32, nb int) float32

// dotQ5_0AVX2 returns the dot product of nb Q5_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ5_0AVX2(w *byte, x *float32, nb int) float32

// deqQ8_0AVX2 dequantizes nb Q8_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ8_0AVX2(dst *float32, w *byte, nb int)

// deqQ4_0AVX2 dequantizes nb Q4_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ4_0AVX2(dst *float32, w *byte, nb int)

// deqQ5_0AVX2 dequantizes nb Q5_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ5_0AVX2(dst *float32, w *byte, nb int)

// dotQ6KAVX2 returns the dot product of nb Q6_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ6KAVX2(w *byte, x *float32, nb int) float32

// deqQ6KAVX2 dequantizes nb Q6_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ6KAVX2(dst *float32, w *byte, nb int)

// dotQ4KAVX2 returns the dot product of nb Q4_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ4KAVX2(w *byte, x *float32, nb int) float32

// deqQ4KAVX2 dequantizes nb Q4_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ4KAVX2(dst *float32, w *byte, nb int)

// dotF32r2x4AVX2 sets out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for 2
// weight rows wstride bytes apart and 4 activation rows xstride bytes
// apart; n is a multiple of 8.
//
//go:noescape
func dotF32r2x4AVX2(w *float32, wstride int, x *float32, xstride, n int, out *float32)

// dotBF16AVX2 returns Σ bf16(w[i])*x[i] over n elements; n is a multiple
// of 8.
//
//go:noescape
func dotBF16AVX2(w *byte, x *float32, n int) float32

// cvtBF16AVX2 converts n bfloat16 values to float32; n is a multiple of 8.
//
//go:noescape
func cvtBF16AVX2(dst *float32, src *byte, n int)

// dotQ5KAVX2 returns the dot product of nb Q5_K super-blocks with 256*nb
// floats.
//
//go:noescape
func dotQ5KAVX2(w *byte, x *float32, nb int) float32

// deqQ5KAVX2 dequantizes nb Q5_K super-blocks into 256*nb floats.
//
//go:noescape
func deqQ5KAVX2(dst *float32, w *byte, nb int)

// dotQ4_1AVX2 returns the dot product of nb Q4_1 blocks with 32*nb floats.
//
//go:noescape
func dotQ4_1AVX2(w *byte, x *float32, nb int) float32

// dotQ5_1AVX2 returns the dot product of nb Q5_1 blocks with 32*nb floats.
//
//go:noescape
func dotQ5_1AVX2(w *byte, x *float32, nb int) float32

// deqQ4_1AVX2 dequantizes nb Q4_1 blocks into 32*nb floats.
//
//go:noescape
func deqQ4_1AVX2(dst *float32, w *byte, nb int)

// deqQ5_1AVX2 dequantizes nb Q5_1 blocks into 32*nb floats.
//
//go:noescape
func deqQ5_1AVX2(dst *float32, w *byte, nb int)

// quantQ8aAVX2 quantizes 32*nb floats to nb q8a blocks at dst.
//
//go:noescape
func quantQ8aAVX2(dst *byte, x *float32, nb int)

// quantQ8KAVX2 quantizes 256*nb floats to nb q8K blocks at dst.
//
//go:noescape
func quantQ8KAVX2(dst *byte, x *float32, nb int)

// dotQ8_0Q8AVX2 returns the dot product of nb Q8_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ8_0Q8AVX2(w, y *byte, nb int) float32

// dotQ4_0Q8AVX2 returns the dot product of nb Q4_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ4_0Q8AVX2(w, y *byte, nb int) float32

// dotQ4KQ8KAVX2 returns the dot product of nb Q4_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ4KQ8KAVX2(w, y *byte, nb int) float32

// dotQ6KQ8KAVX2 returns the dot product of nb Q6_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ6KQ8KAVX2(w, y *byte, nb int) float32

// roundQ8aAVX2 sets 32*nb floats at dst to the values of the q8a blocks
// quantQ8aAVX2 makes of x (dst may be x).
//
//go:noescape
func roundQ8aAVX2(dst, x *float32, nb int)

// roundQ8KAVX2 sets 256*nb floats at dst to the values of the q8K blocks
// quantQ8KAVX2 makes of x (dst may be x).
//
//go:noescape
func roundQ8KAVX2(dst, x *float32, nb int)

// dotQ5KQ8KAVX2 returns the dot product of nb Q5_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ5KQ8KAVX2(w, y *byte, nb int) float32

// dotQ5_0Q8AVX2 returns the dot product of nb Q5_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ5_0Q8AVX2(w, y *byte, nb int) float32
