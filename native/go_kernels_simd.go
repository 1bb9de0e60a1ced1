//go:build (amd64 || arm64) && !purego

package native

// The SIMD kernels both architectures implement in assembly (amd64: AVX2,
// FMA and F16C; arm64: NEON), one contract each; haveSIMD says whether they
// run. The per-architecture files declare the rest: amd64's multi-row
// decode kernels (dotRows*), arm64's single-row ones and haveDotProd.

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

// quantQ8aSIMD quantizes 32*nb floats to nb q8a blocks at dst, their
// quants XORed with flip (0, or 0x80 for the gemm kernels' unsigned
// activations).
//
//go:noescape
func quantQ8aSIMD(dst *byte, x *float32, nb int, flip byte)

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

// The attention kernels.

// dotsF32SIMD sets s[j] = Σ q[i]*k[j][i] over hd floats for nrows key rows
// kstride bytes apart; hd is a multiple of 8.
//
//go:noescape
func dotsF32SIMD(s, q, k *float32, kstride, nrows, hd int)

// dotsF16SIMD is dotsF32SIMD for binary16 keys.
//
//go:noescape
func dotsF16SIMD(s, q *float32, k *byte, kstride, nrows, hd int)

// wsumF32SIMD adds to o[i] the Σ w[j]*v[j][i] over nrows value rows
// vstride bytes apart, for i < hd; hd is a multiple of 8.
//
//go:noescape
func wsumF32SIMD(o, w, v *float32, vstride, nrows, hd int)

// wsumF16SIMD is wsumF32SIMD for binary16 values.
//
//go:noescape
func wsumF16SIMD(o, w *float32, v *byte, vstride, nrows, hd int)

// wsumQ8_0SIMD adds to o[i] the Σ w[j]*v[j][i] over nrows value rows of nb
// Q8_0 blocks, vstride bytes apart, for i < 32*nb: each block is widened
// to float32 in registers, never stored.
//
//go:noescape
func wsumQ8_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)

// wsumQ4_0SIMD is wsumQ8_0SIMD for Q4_0 value rows.
//
//go:noescape
func wsumQ4_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)

// xorSIMD returns the xor of the n/8 little-endian words at p, n a
// multiple of 128, read with full-width vector loads in four chains: the
// loop of the memory-bandwidth probe.
//
//go:noescape
func xorSIMD(p *byte, n int) uint64

// softmax and SwiGLU.

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
