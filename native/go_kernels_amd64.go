//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveSIMD reports whether the AVX2 kernels of go_kernels_amd64.s run on
// this CPU (AVX2, FMA and F16C, with the OS saving the YMM registers).
var haveSIMD = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotRowsQ8_0Q8SIMD sets out[r] to the dot product of the nb Q8_0 blocks of
// weight row r (at w + r*rs bytes) with the nb q8a blocks at y, for r <
// nrows: decode's matrix-vector product, the row loop in assembly.
//
//go:noescape
func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotsQ8_0SIMD sets s[j] to the dot product of key row j (nb Q8_0 blocks
// at k + j*kstride bytes) with the query's nb q8a blocks at y, for j <
// nrows: attention scores over a Q8_0 cache, four rows reduced together.
//
//go:noescape
func dotsQ8_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)

// dotsQ4_0SIMD is dotsQ8_0SIMD for a Q4_0 cache.
//
//go:noescape
func dotsQ4_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)

// dotRowsQ4_0Q8SIMD is dotRowsQ8_0Q8SIMD for Q4_0 blocks and q8a activations.
//
//go:noescape
func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ4KQ8KSIMD is dotRowsQ8_0Q8SIMD for Q4_K blocks and q8K activations.
//
//go:noescape
func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ6KQ8KSIMD is dotRowsQ8_0Q8SIMD for Q6_K blocks and q8K activations.
//
//go:noescape
func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ5KQ8KSIMD is dotRowsQ8_0Q8SIMD for Q5_K blocks and q8K activations.
//
//go:noescape
func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ5_0Q8SIMD is dotRowsQ8_0Q8SIMD for Q5_0 blocks and q8a activations.
//
//go:noescape
func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsF16SIMD sets out[r] to the dot product of the n binary16
// elements of weight row r (at w + r*rs bytes) with the n floats at x,
// for r < nrows; n is a multiple of 8. Decode's F16 matrix-vector
// product, the row loop in assembly.
//
//go:noescape
func dotRowsF16SIMD(w *byte, rs, nrows int, x *float32, n int, out *float32)

// haveX86SIMD reports whether the kernels only x86 has run: the AVX2
// ones of this file's assembly (the IQ4_NL, MXFP4, IQ4_XS, Q2_K and Q3_K
// rows kernels, the AVX2 gemms and packers, the four-head attention),
// which haveSIMD's arm64 twin lacks.
var haveX86SIMD = haveSIMD

// f16FromF32SIMD rounds n float32 values to binary16 (to nearest even, as
// ggml.F32ToF16 but for NaN payloads); n is a multiple of 8.
//
//go:noescape
func f16FromF32SIMD(dst *uint16, src *float32, n int)

// roundBF16SIMD sets dst[i] to src[i] rounded to BF16 (as roundBF16) for
// i < n, n a multiple of 8.
//
//go:noescape
func roundBF16SIMD(dst, src *float32, n int)

// sumSquaresSIMD returns Σ x[i]*x[i] over i < n, n a multiple of 8: the
// squares in float32, their sum in float64 (rmsNormRows' rule).
//
//go:noescape
func sumSquaresSIMD(x *float32, n int) float64

// scaleMulSIMD sets dst[i] = x[i]*scale*w[i] for i < n, n a multiple of 8.
//
//go:noescape
func scaleMulSIMD(dst, x, w *float32, n int, scale float32)

// ropePairsSIMD rotates the pairs (v[2i], v[2i+1]), i < n/2 (n a multiple
// of 8), by cosines c[i] and sines s[i], with the scalar rotation's
// operations.
//
//go:noescape
func ropePairsSIMD(v, c, s *float32, n int)

// ropeHalvesSIMD rotates the NeoX pairs (v[i], v[i+half]), half a
// multiple of 8, by cosines c and sines s, with the scalar rotation's
// operations.
//
//go:noescape
func ropeHalvesSIMD(v, c, s *float32, half int)

// toBF16SIMD sets dst[i] = ggml.F32ToBF16(src[i]) for i < n, n a multiple
// of 8.
//
//go:noescape
func toBF16SIMD(dst *uint16, src *float32, n int)

// addSIMD sets dst[i] += src[i] for i < n, n a multiple of 8.
//
//go:noescape
func addSIMD(dst, src *float32, n int)

// dotRowsIQ4NLQ8SIMD is dotRowsQ8_0Q8SIMD for IQ4_NL blocks and q8a
// activations.
//
//go:noescape
func dotRowsIQ4NLQ8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsMXFP4Q8SIMD is dotRowsQ8_0Q8SIMD for MXFP4 blocks and q8a
// activations.
//
//go:noescape
func dotRowsMXFP4Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// deqIQ4NLSIMD dequantizes nb IQ4_NL blocks at w to 32*nb floats at dst,
// as ggml.DequantizeRow does (the float batches' rows).
//
//go:noescape
func deqIQ4NLSIMD(dst *float32, w *byte, nb int)

// deqIQ4XSSIMD is deqIQ4NLSIMD for nb IQ4_XS super-blocks (256 floats each).
//
//go:noescape
func deqIQ4XSSIMD(dst *float32, w *byte, nb int)

// deqQ2KSIMD is deqIQ4NLSIMD for nb Q2_K super-blocks.
//
//go:noescape
func deqQ2KSIMD(dst *float32, w *byte, nb int)

// deqQ3KSIMD is deqIQ4NLSIMD for nb Q3_K super-blocks.
//
//go:noescape
func deqQ3KSIMD(dst *float32, w *byte, nb int)

// ilRowsQ4_0AVX2 is ilRowsQ4_0 on AVX2: out[16g+r] is row r of group g <
// ng of the interleaved Q4_0 weights at w (nb block columns) times the
// q8a blocks at y.
//
//go:noescape
func ilRowsQ4_0AVX2(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsQ8_0AVX2 is ilRowsQ4_0AVX2 for interleaved Q8_0 weights.
//
//go:noescape
func ilRowsQ8_0AVX2(w *byte, ng, nb int, y *byte, out *float32)

// packILQ8_0AVX2 repacks the nb block columns of an interleaved Q8_0
// group at w into gemmPacks at dst for gemmSignedAVX2: the quants flipped
// back to signed and the scales d (no corrections: the signed kernel
// reads nothing else).
//
//go:noescape
func packILQ8_0AVX2(dst, w *byte, nb int)

// gemmPlainAVX2 is gemmPlain on AVX2 for packs of quants at most 16 in
// magnitude (Q4_0's), 16 rows (mask 0xffff: runGemm handles a last, short
// group) by 4 tokens.
//
//go:noescape
func gemmPlainAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmPlain4AVX2 is gemmPlainAVX2 for quants up to 32 in magnitude (Q5_0).
//
//go:noescape
func gemmPlain4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmBias4AVX2 is gemmBias on AVX2 for quants up to 32 in magnitude
// (Q4_K's unsigned nibbles, Q5_K's quants less 16).
//
//go:noescape
func gemmBias4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmSignedAVX2 is gemmPlainAVX2 for quants up to 128 in magnitude
// (Q8_0's, IQ4_NL's and IQ4_XS's levels) and activations as quantized, not
// flipped (quantizeGemm's flip false): no corrections.
//
//go:noescape
func gemmSignedAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmSplit2AVX2 is gemmSplit on AVX2 for quants up to 64 in magnitude
// (Q6_K's, less 32).
//
//go:noescape
func gemmSplit2AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmSplit4AVX2 is gemmSplit2AVX2 for quants up to 16 in magnitude
// (Q3_K's, less 4): a half's four chunk products add as int16.
//
//go:noescape
func gemmSplit4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// ilRowsQ5_0AVX2 is ilRowsQ4_0AVX2 for interleaved Q5_0 weights.
//
//go:noescape
func ilRowsQ5_0AVX2(w *byte, ng, nb int, y *byte, out *float32)

// dotRowsIQ4XSQ8KSIMD is dotRowsQ4KQ8KSIMD for IQ4_XS super-blocks.
//
//go:noescape
func dotRowsIQ4XSQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ2KQ8KSIMD is dotRowsQ4KQ8KSIMD for Q2_K super-blocks.
//
//go:noescape
func dotRowsQ2KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotRowsQ3KQ8KSIMD is dotRowsQ4KQ8KSIMD for Q3_K super-blocks.
//
//go:noescape
func dotRowsQ3KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)

// dotsF16G4AVX2 is dotsF16G4AVX512 on AVX2, for head sizes hd a multiple
// of 8 and nrows a multiple of 2: two key rows a step by four heads, each
// key chunk widened once for the four.
//
//go:noescape
func dotsF16G4AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int)

// wsumF16G4AVX2 is wsumF16G4AVX512 on AVX2, for head sizes hd a multiple
// of 8.
//
//go:noescape
func wsumF16G4AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// dotsF16G3AVX2 is dotsF16G4AVX2 for three heads (GQA groups of 3).
//
//go:noescape
func dotsF16G3AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int)

// wsumF16G3AVX2 is wsumF16G4AVX2 for three heads.
//
//go:noescape
func wsumF16G3AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// packQ8_0QuantsAVX2 writes the quants of the nb Q8_0 block columns of 16
// whole rows at w, rs bytes apart, into the gemmPacks at dst as
// gemmSignedAVX2 multiplies them (their scales are packAsm's).
//
//go:noescape
func packQ8_0QuantsAVX2(dst, w *byte, rs, nb int)

// packIQ4NLQuantsAVX2 is packQ8_0QuantsAVX2 for IQ4_NL blocks: the levels
// their nibbles index.
//
//go:noescape
func packIQ4NLQuantsAVX2(dst, w *byte, rs, nb int)

// packIQ4XSQuantsAVX2 is packIQ4NLQuantsAVX2 for the nb IQ4_XS
// super-blocks of 16 rows: a pack per 32-element sub-block.
//
//go:noescape
func packIQ4XSQuantsAVX2(dst, w *byte, rs, nb int)

// packQ4KQuantsAVX2 writes the quants and corrections of the nb Q4_K
// super-block columns of 16 whole rows at w, rs bytes apart, into the
// gemmPacks at dst (8 a super-block) as gemmBias4AVX2 multiplies them
// (their scales and biases are packAsm's).
//
//go:noescape
func packQ4KQuantsAVX2(dst, w *byte, rs, nb int)

// packQ5KQuantsAVX2 is packQ4KQuantsAVX2 for Q5_K, its quants less 16.
//
//go:noescape
func packQ5KQuantsAVX2(dst, w *byte, rs, nb int)

// packQ3KQuantsAVX2 is packQ4KQuantsAVX2 for Q3_K (gemmSplit4AVX2's
// packs), its quants less 4.
//
//go:noescape
func packQ3KQuantsAVX2(dst, w *byte, rs, nb int)

// packQ6KQuantsAVX2 is packQ4KQuantsAVX2 for Q6_K (gemmSplit2AVX2's
// packs), its quants less 32.
//
//go:noescape
func packQ6KQuantsAVX2(dst, w *byte, rs, nb int)

// ilRowsQ4KAVX2 is ilRowsQ4K on AVX2: out[16g+r] is row r of group g < ng
// of the interleaved Q4_K weights at w (nb super-block columns) times the
// q8K blocks at y.
//
//go:noescape
func ilRowsQ4KAVX2(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsQ5KAVX2 is ilRowsQ4KAVX2 for interleaved Q5_K weights.
//
//go:noescape
func ilRowsQ5KAVX2(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsIQ4XSAVX2 is ilRowsQ4KAVX2 for interleaved IQ4_XS weights.
//
//go:noescape
func ilRowsIQ4XSAVX2(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsQ3KAVX2 is ilRowsQ4KAVX2 for interleaved Q3_K weights.
//
//go:noescape
func ilRowsQ3KAVX2(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsQ6KAVX2 is ilRowsQ4KAVX2 for interleaved Q6_K weights.
//
//go:noescape
func ilRowsQ6KAVX2(w *byte, ng, nb int, y *byte, out *float32)

// packILQ4_0AVX2 writes the nb block columns of an interleaved Q4_0 group
// at w into the gemmPacks at dst as the AVX2 gemm kernel multiplies them.
//
//go:noescape
func packILQ4_0AVX2(dst, w *byte, nb int)

// packILQ5_0AVX2 is packILQ4_0AVX2 for Q5_0.
//
//go:noescape
func packILQ5_0AVX2(dst, w *byte, nb int)

// packILQ3KAVX2 is packILQ4_0AVX2 for nb Q3_K super-block columns (8
// packs each).
//
//go:noescape
func packILQ3KAVX2(dst, w *byte, nb int)

// packILQ4KAVX2 is packILQ3KAVX2 for Q4_K.
//
//go:noescape
func packILQ4KAVX2(dst, w *byte, nb int)

// packILQ5KAVX2 is packILQ3KAVX2 for Q5_K.
//
//go:noescape
func packILQ5KAVX2(dst, w *byte, nb int)

// packILQ6KAVX2 is packILQ3KAVX2 for Q6_K.
//
//go:noescape
func packILQ6KAVX2(dst, w *byte, nb int)

// packILIQ4XSAVX2 is packILQ3KAVX2 for IQ4_XS (signed levels: no
// corrections).
//
//go:noescape
func packILIQ4XSAVX2(dst, w *byte, nb int)

// ilRowsF16AVX2 is ilRowsF16 on AVX2.
//
//go:noescape
func ilRowsF16AVX2(w *byte, ng, n2 int, x *float32, out *float32)

// ilPanelF16AVX2 is ilPanelF16 on AVX2.
//
//go:noescape
func ilPanelF16AVX2(dst *float32, w *byte, n2 int)
