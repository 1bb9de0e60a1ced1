//go:build arm64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveSIMD is true: NEON (Advanced SIMD) is part of every arm64 CPU, and
// the arm64 kernels (go_kernels_arm64.s, go_quant_arm64.s,
// go_attn_arm64.s) need nothing beyond ARMv8.0 but where haveDotProd
// says so.
const haveSIMD = true

// haveDotProd reports whether the CPU has the Armv8.2 dot product
// instructions (SDOT), which the 8-bit activation dots of
// go_kernels_arm64.s then use instead of their ARMv8.0 path. It is read
// by the assembly (a variable, so tests may turn it off).
var haveDotProd = cpu.ARM64.HasASIMDDP

// dotF32SIMD returns Σ a[i]*b[i] over n floats; n is a multiple of 8.
//
//go:noescape
func dotF32SIMD(a, b *float32, n int) float32

// dotF32x4SIMD sets out[t] = Σ w[i]*x[t][i] over n floats for 4 rows of x
// xstride bytes apart; n is a multiple of 8.
//
//go:noescape
func dotF32x4SIMD(w, x *float32, xstride, n int, out *float32)

// dotF32r2x4SIMD sets out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for 2
// weight rows wstride bytes apart and 4 activation rows xstride bytes
// apart; n is a multiple of 8.
//
//go:noescape
func dotF32r2x4SIMD(w *float32, wstride int, x *float32, xstride, n int, out *float32)

// dotF16SIMD returns Σ f16(w[i])*x[i] over n elements; n is a multiple of 8.
//
//go:noescape
func dotF16SIMD(w *byte, x *float32, n int) float32

// cvtF16SIMD converts n binary16 values to float32; n is a multiple of 8.
//
//go:noescape
func cvtF16SIMD(dst *float32, src *byte, n int)

// quantQ8aSIMD quantizes 32*nb floats to nb q8a blocks at dst.
//
//go:noescape
func quantQ8aSIMD(dst *byte, x *float32, nb int)

// quantQ8KSIMD quantizes 256*nb floats to nb q8K blocks at dst.
//
//go:noescape
func quantQ8KSIMD(dst *byte, x *float32, nb int)

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

// dotQ8_0Q8SIMD returns the dot product of nb Q8_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ8_0Q8SIMD(w, y *byte, nb int) float32

// dotQ4_0Q8SIMD returns the dot product of nb Q4_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ4_0Q8SIMD(w, y *byte, nb int) float32

// dotQ4KQ8KSIMD returns the dot product of nb Q4_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ4KQ8KSIMD(w, y *byte, nb int) float32

// dotQ6KQ8KSIMD returns the dot product of nb Q6_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ6KQ8KSIMD(w, y *byte, nb int) float32

// dotQ8_0SIMD returns the dot product of nb Q8_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ8_0SIMD(w *byte, x *float32, nb int) float32

// dotQ4_0SIMD returns the dot product of nb Q4_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ4_0SIMD(w *byte, x *float32, nb int) float32

// deqQ8_0SIMD dequantizes nb Q8_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ8_0SIMD(dst *float32, w *byte, nb int)

// deqQ4_0SIMD dequantizes nb Q4_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ4_0SIMD(dst *float32, w *byte, nb int)

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

// dotQ5_0SIMD returns the dot product of nb Q5_0 blocks with 32*nb floats.
//
//go:noescape
func dotQ5_0SIMD(w *byte, x *float32, nb int) float32

// deqQ5_0SIMD dequantizes nb Q5_0 blocks into 32*nb floats.
//
//go:noescape
func deqQ5_0SIMD(dst *float32, w *byte, nb int)

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

// dotQ5KQ8KSIMD returns the dot product of nb Q5_K super-blocks with nb
// q8K blocks.
//
//go:noescape
func dotQ5KQ8KSIMD(w, y *byte, nb int) float32

// dotQ5_0Q8SIMD returns the dot product of nb Q5_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ5_0Q8SIMD(w, y *byte, nb int) float32
