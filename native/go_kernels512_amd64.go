//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveAVX512 reports whether the AVX-512 kernels of go_kernels512_amd64.s
// run on this CPU (on top of haveSIMD).
var haveAVX512 = haveSIMD && !avx2Only && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// dotQ8_0AVX512 is dotQ8_0SIMD with AVX-512.
//
//go:noescape
func dotQ8_0AVX512(w *byte, x *float32, nb int) float32

// dotQ4_0AVX512 is dotQ4_0SIMD with AVX-512.
//
//go:noescape
func dotQ4_0AVX512(w *byte, x *float32, nb int) float32

// dotQ5_0AVX512 is dotQ5_0SIMD with AVX-512.
//
//go:noescape
func dotQ5_0AVX512(w *byte, x *float32, nb int) float32

// dotRowsF16AVX512 is dotRowsF16SIMD with AVX-512 and a prefetch of the
// rows 2 KB ahead.
//
//go:noescape
func dotRowsF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32)

// dotRowsBF16AVX512 is dotRowsF16AVX512 for BF16 rows.
//
//go:noescape
func dotRowsBF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32)

// dotF32r4x4AVX512 sets out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for 4
// weight rows wstride bytes apart and 4 activation rows xstride bytes
// apart; n is a multiple of 16.
//
//go:noescape
func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32)

// haveVNNI reports whether the AVX-512 VNNI batch kernels of
// go_gemm_amd64.s run on this CPU (on top of haveAVX512).
var haveVNNI = haveAVX512 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512DQ

// packQ8_0 repacks nb block columns of nr (1..16) Q8_0 rows rs bytes apart
// at w into nb gemmPacks at dst (see gemmPack).
//
//go:noescape
func packQ8_0(dst, w *byte, rs, nr, nb int)

// packQ4_0 is packQ8_0 for Q4_0 rows.
//
//go:noescape
func packQ4_0(dst, w *byte, rs, nr, nb int)

// packQ5_0 is packQ8_0 for Q5_0 rows.
//
//go:noescape
func packQ5_0(dst, w *byte, rs, nr, nb int)

// packQ4K repacks nb Q4_K super-blocks of nr rows into 8*nb gemmPacks at
// dst, a pack per 32-element sub-block: scale d*sc_j, bias -dmin*m_j.
//
//go:noescape
func packQ4K(dst, w *byte, rs, nr, nb int)

// packQ6K is packQ4K for Q6_K rows: sub-block j's halves have the scales
// d*sc[2j] and d*sc[2j+1].
//
//go:noescape
func packQ6K(dst, w *byte, rs, nr, nb int)

// gemmPlain sets out[t*os/4+r], for the rows r set in mask and 4 tokens t,
// to the product of row r of the nb gemmPacks at p with the nb flipped q8a
// blocks of token t at y+t*ys.
//
//go:noescape
func gemmPlain(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmBias is gemmPlain for packs with a bias (values d*q + b).
//
//go:noescape
func gemmBias(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmSplit is gemmPlain for packs whose halves have their own scales.
//
//go:noescape
func gemmSplit(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// packILQ4_0 repacks nb block columns of one interleaved Q4_0 group
// (interleave.go) at w into nb gemmPacks at dst.
//
//go:noescape
func packILQ4_0(dst, w *byte, nb int)

// packILQ8_0 is packILQ4_0 for an interleaved Q8_0 group.
//
//go:noescape
func packILQ8_0(dst, w *byte, nb int)

// ilRowsQ4_0 sets out[16g+r] to row r of group g < ng of the interleaved
// Q4_0 weight at w (nb block columns) times the q8a blocks at y.
//
//go:noescape
func ilRowsQ4_0(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsQ8_0 is ilRowsQ4_0 for interleaved Q8_0 weights.
//
//go:noescape
func ilRowsQ8_0(w *byte, ng, nb int, y *byte, out *float32)

// packILQ5_0 is packILQ4_0 for an interleaved Q5_0 group.
//
//go:noescape
func packILQ5_0(dst, w *byte, nb int)

// ilRowsQ5_0 is ilRowsQ4_0 for interleaved Q5_0 weights.
//
//go:noescape
func ilRowsQ5_0(w *byte, ng, nb int, y *byte, out *float32)

// packILQ4K repacks nb super-block columns of one interleaved Q4_K group
// into 8*nb gemmPacks at dst (scale d*sc_j, bias -dmin*m_j, as packQ4K).
//
//go:noescape
func packILQ4K(dst, w *byte, nb int)

// ilRowsQ4K is ilRowsQ4_0 for interleaved Q4_K weights (nb super-block
// columns) and q8K activations.
//
//go:noescape
func ilRowsQ4K(w *byte, ng, nb int, y *byte, out *float32)

// packILQ5K is packILQ4K for interleaved Q5_K groups (as packQ5K).
//
//go:noescape
func packILQ5K(dst, w *byte, nb int)

// ilRowsQ5K is ilRowsQ4K for interleaved Q5_K weights.
//
//go:noescape
func ilRowsQ5K(w *byte, ng, nb int, y *byte, out *float32)

// packQ3K is packQ6K for Q3_K super-blocks (signed quants less 4, the
// scales of a run's halves).
//
//go:noescape
func packQ3K(dst, w *byte, rs, nr, nb int)

// packILQ3K is packQ3K for interleaved Q3_K groups.
//
//go:noescape
func packILQ3K(dst, w *byte, nb int)

// ilRowsQ3K is ilRowsQ4K for interleaved Q3_K weights.
//
//go:noescape
func ilRowsQ3K(w *byte, ng, nb int, y *byte, out *float32)

// packILIQ4XS is packIQ4XS for interleaved IQ4_XS groups.
//
//go:noescape
func packILIQ4XS(dst, w *byte, nb int)

// ilRowsIQ4XS is ilRowsQ4K for interleaved IQ4_XS weights.
//
//go:noescape
func ilRowsIQ4XS(w *byte, ng, nb int, y *byte, out *float32)

// packILQ6K repacks nb super-block columns of one interleaved Q6_K group
// into 8*nb gemmPacks at dst (as packQ6K: d and d2 the halves' scales).
//
//go:noescape
func packILQ6K(dst, w *byte, nb int)

// ilRowsQ6K is ilRowsQ4K for interleaved Q6_K weights.
//
//go:noescape
func ilRowsQ6K(w *byte, ng, nb int, y *byte, out *float32)

// ilRowsF16 sets out[16g+r] to row r of group g < ng of the interleaved
// F16 weight at w (n2 ≥ 1 element-pair columns) times the 2*n2 floats x.
//
//go:noescape
func ilRowsF16(w *byte, ng, n2 int, x *float32, out *float32)

// ilRowsBF16 is ilRowsF16 for interleaved BF16 weights (x rounded to BF16).
//
//go:noescape
func ilRowsBF16(w *byte, ng, n2 int, x *float32, out *float32)

// ilPanelF16 writes the interleaved F16 group at w (n2 ≥ 1 element-pair
// columns) as the float panel dst: dst[16k+r] = element k of row r.
//
//go:noescape
func ilPanelF16(dst *float32, w *byte, n2 int)

// dotsF16AVX512 is dotsF16SIMD for head sizes hd a multiple of 16.
//
//go:noescape
func dotsF16AVX512(s, q *float32, k *byte, kstride, nrows, hd int)

// wsumF16AVX512 is wsumF16SIMD for head sizes hd a multiple of 16.
//
//go:noescape
func wsumF16AVX512(o, w *float32, v *byte, vstride, nrows, hd int)

// dotsF16G4AVX512 is dotsF16AVX512 for four query heads of a GQA group at
// once (q holds them hd floats apart), each key chunk widened once for the
// four: head h's scores go to s + h*sstride bytes; nrows is a multiple of 4.
//
//go:noescape
func dotsF16G4AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int)

// wsumF16G4AVX512 is wsumF16AVX512 for four query heads of a GQA group at
// once: o holds their outputs hd floats apart, w their weights wstride
// bytes apart, and each value chunk is widened once for the four.
//
//go:noescape
func wsumF16G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// dotsF16G3AVX512 is dotsF16G4AVX512 for three heads (GQA groups of 3).
//
//go:noescape
func dotsF16G3AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int)

// wsumF16G3AVX512 is wsumF16G4AVX512 for three heads.
//
//go:noescape
func wsumF16G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// wsumQ8_0G4AVX512 is wsumF16G4AVX512 for value rows of Q8_0 blocks (hd a
// multiple of 32): each block widened to its values d·q once for the four
// heads.
//
//go:noescape
func wsumQ8_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// wsumQ8_0G3AVX512 is wsumQ8_0G4AVX512 for three heads.
//
//go:noescape
func wsumQ8_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// wsumQ4_0G4AVX512 is wsumQ8_0G4AVX512 for Q4_0 blocks (values d·(q-8)).
//
//go:noescape
func wsumQ4_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// wsumQ4_0G3AVX512 is wsumQ4_0G4AVX512 for three heads.
//
//go:noescape
func wsumQ4_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)

// dotsQ8_0G4VNNI sets the scores of four query heads of a GQA group at
// once against nrows (a multiple of 4) key rows of Q8_0 blocks, each key
// chunk read once for the four: q is the heads' queries as
// packGroupQuery lays them out (3*hd bytes a head), head h's scores go
// to s + h*sstride bytes; hd is a multiple of 64.
//
//go:noescape
func dotsQ8_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)

// dotsQ8_0G3VNNI is dotsQ8_0G4VNNI for three heads.
//
//go:noescape
func dotsQ8_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)

// dotsQ4_0G4VNNI is dotsQ8_0G4VNNI for Q4_0 keys.
//
//go:noescape
func dotsQ4_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)

// dotsQ4_0G3VNNI is dotsQ4_0G4VNNI for three heads.
//
//go:noescape
func dotsQ4_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)

// ilRowsIQ4NL is ilRowsQ4_0 for interleaved IQ4_NL weights.
//
//go:noescape
func ilRowsIQ4NL(w *byte, ng, nb int, y *byte, out *float32)

// packILIQ4NL is packILQ4_0 for an interleaved IQ4_NL group.
//
//go:noescape
func packILIQ4NL(dst, w *byte, nb int)

// packQ5K is packQ4K for Q5_K super-blocks.
//
//go:noescape
func packQ5K(dst, w *byte, rs, nr, nb int)

// packIQ4XS is packQ4K for IQ4_XS super-blocks (signed levels, no bias).
//
//go:noescape
func packIQ4XS(dst, w *byte, rs, nr, nb int)
