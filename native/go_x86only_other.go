//go:build !amd64 || purego

package native

// The AVX-512 and VNNI kernels are amd64 assembly: elsewhere (and with
// purego) haveAVX512 and haveVNNI are false and these stubs are never
// called.

const haveAVX512 = false

func dotQ8_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ4_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ5_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotRowsF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32) {
	panic("unreachable")
}
func dotRowsBF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32) {
	panic("unreachable")
}
func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32) {
	panic("unreachable")
}

const haveVNNI = false

func packQ8_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ5_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func packQ5K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func packIQ4XS(dst, w *byte, rs, nr, nb int)                                 { panic("unreachable") }
func packQ6K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func gemmPlain(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }
func gemmBias(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)  { panic("unreachable") }
func gemmSplit(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }

func packILQ4_0(dst, w *byte, nb int)                        { panic("unreachable") }
func packILQ8_0(dst, w *byte, nb int)                        { panic("unreachable") }
func ilRowsQ4_0(w *byte, ng, nb int, y *byte, out *float32)  { panic("unreachable") }
func ilRowsQ8_0(w *byte, ng, nb int, y *byte, out *float32)  { panic("unreachable") }
func packILQ5_0(dst, w *byte, nb int)                        { panic("unreachable") }
func ilRowsQ5_0(w *byte, ng, nb int, y *byte, out *float32)  { panic("unreachable") }
func packILQ4K(dst, w *byte, nb int)                         { panic("unreachable") }
func ilRowsQ4K(w *byte, ng, nb int, y *byte, out *float32)   { panic("unreachable") }
func packILQ5K(dst, w *byte, nb int)                         { panic("unreachable") }
func ilRowsQ5K(w *byte, ng, nb int, y *byte, out *float32)   { panic("unreachable") }
func packILIQ4XS(dst, w *byte, nb int)                       { panic("unreachable") }
func ilRowsIQ4XS(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }
func packILQ6K(dst, w *byte, nb int)                         { panic("unreachable") }
func ilRowsQ6K(w *byte, ng, nb int, y *byte, out *float32)   { panic("unreachable") }

func ilRowsF16(w *byte, ng, n2 int, x *float32, out *float32)      { panic("unreachable") }
func ilRowsBF16(w *byte, ng, n2 int, x *float32, out *float32)     { panic("unreachable") }
func ilPanelF16(dst *float32, w *byte, n2 int)                     { panic("unreachable") }
func dotsF16AVX512(s, q *float32, k *byte, kstride, nrows, hd int) { panic("unreachable") }
func wsumF16AVX512(o, w *float32, v *byte, vstride, nrows, hd int) { panic("unreachable") }
func dotsF16G4AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func wsumF16G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func dotsF16G3AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func wsumF16G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func wsumQ8_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func wsumQ8_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func wsumQ4_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func wsumQ4_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func dotsQ8_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func dotsQ8_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func dotsQ4_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func dotsQ4_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}

func ilRowsIQ4NL(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }
func packILIQ4NL(dst, w *byte, nb int)                       { panic("unreachable") }

func packQ3K(dst, w *byte, rs, nr, nb int)                 { panic("unreachable") }
func packILQ3K(dst, w *byte, nb int)                       { panic("unreachable") }
func ilRowsQ3K(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }

// The kernels only x86 has (go_kernels_amd64.s: the lookup types' and
// Q2_K/Q3_K rows kernels, the AVX2 gemms, packers and attention) are
// stubs here.
const haveX86SIMD = false

func f16FromF32SIMD(dst *uint16, src *float32, n int)       { panic("unreachable") }
func addSIMD(dst, src *float32, n int)                      { panic("unreachable") }
func roundBF16SIMD(dst, src *float32, n int)                { panic("unreachable") }
func toBF16SIMD(dst *uint16, src *float32, n int)           { panic("unreachable") }
func sumSquaresSIMD(x *float32, n int) float64              { panic("unreachable") }
func ropePairsSIMD(v, c, s *float32, n int)                 { panic("unreachable") }
func ropeHalvesSIMD(v, c, s *float32, half int)             { panic("unreachable") }
func scaleMulSIMD(dst, x, w *float32, n int, scale float32) { panic("unreachable") }

func dotRowsIQ4NLQ8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)  { panic("unreachable") }
func dotRowsMXFP4Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)  { panic("unreachable") }
func dotRowsIQ4XSQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func dotRowsQ2KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)   { panic("unreachable") }
func dotRowsQ3KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)   { panic("unreachable") }

func deqIQ4NLSIMD(dst *float32, w *byte, nb int)                { panic("unreachable") }
func deqIQ4XSSIMD(dst *float32, w *byte, nb int)                { panic("unreachable") }
func deqQ2KSIMD(dst *float32, w *byte, nb int)                  { panic("unreachable") }
func deqQ3KSIMD(dst *float32, w *byte, nb int)                  { panic("unreachable") }
func ilRowsQ4_0AVX2(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }
func gemmPlainAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func gemmPlain4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func gemmBias4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func gemmSignedAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func gemmSplit2AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func gemmSplit4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) {
	panic("unreachable")
}
func ilRowsQ5_0AVX2(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }
func ilRowsQ8_0AVX2(w *byte, ng, nb int, y *byte, out *float32) { panic("unreachable") }
func packILQ8_0AVX2(dst, w *byte, nb int)                       { panic("unreachable") }
func dotsF16G4AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func wsumF16G4AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func dotsF16G3AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int) {
	panic("unreachable")
}
func wsumF16G3AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int) {
	panic("unreachable")
}
func ilRowsQ3KAVX2(w *byte, ng, nb int, y *byte, out *float32)    { panic("unreachable") }
func ilRowsQ4KAVX2(w *byte, ng, nb int, y *byte, out *float32)    { panic("unreachable") }
func ilRowsQ5KAVX2(w *byte, ng, nb int, y *byte, out *float32)    { panic("unreachable") }
func ilRowsQ6KAVX2(w *byte, ng, nb int, y *byte, out *float32)    { panic("unreachable") }
func ilRowsIQ4XSAVX2(w *byte, ng, nb int, y *byte, out *float32)  { panic("unreachable") }
func packILQ4_0AVX2(dst, w *byte, nb int)                         { panic("unreachable") }
func ilRowsF16AVX2(w *byte, ng, n2 int, x *float32, out *float32) { panic("unreachable") }
func ilPanelF16AVX2(dst *float32, w *byte, n2 int)                { panic("unreachable") }
func packILQ5_0AVX2(dst, w *byte, nb int)                         { panic("unreachable") }
func packILQ3KAVX2(dst, w *byte, nb int)                          { panic("unreachable") }
func packILQ4KAVX2(dst, w *byte, nb int)                          { panic("unreachable") }
func packILQ5KAVX2(dst, w *byte, nb int)                          { panic("unreachable") }
func packILQ6KAVX2(dst, w *byte, nb int)                          { panic("unreachable") }
func packILIQ4XSAVX2(dst, w *byte, nb int)                        { panic("unreachable") }
func packQ8_0QuantsAVX2(dst, w *byte, rs, nb int)                 { panic("unreachable") }
func packIQ4NLQuantsAVX2(dst, w *byte, rs, nb int)                { panic("unreachable") }
func packIQ4XSQuantsAVX2(dst, w *byte, rs, nb int)                { panic("unreachable") }
func packQ4KQuantsAVX2(dst, w *byte, rs, nb int)                  { panic("unreachable") }
func packQ5KQuantsAVX2(dst, w *byte, rs, nb int)                  { panic("unreachable") }
func packQ6KQuantsAVX2(dst, w *byte, rs, nb int)                  { panic("unreachable") }
func packQ3KQuantsAVX2(dst, w *byte, rs, nb int)                  { panic("unreachable") }
