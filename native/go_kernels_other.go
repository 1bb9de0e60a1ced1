//go:build !amd64 || purego

package native

// haveSIMD is false: no assembly kernels exist for this platform, and the
// stubs below are never called.
const haveSIMD = false

func dotF32AVX2(a, b *float32, n int) float32                  { panic("unreachable") }
func dotF32x4AVX2(w, x *float32, xstride, n int, out *float32) { panic("unreachable") }
func dotF16AVX2(w *byte, x *float32, n int) float32            { panic("unreachable") }
func cvtF16AVX2(dst *float32, src *byte, n int)                { panic("unreachable") }
func dotQ8_0AVX2(w *byte, x *float32, nb int) float32          { panic("unreachable") }
func dotQ4_0AVX2(w *byte, x *float32, nb int) float32          { panic("unreachable") }
func dotQ5_0AVX2(w *byte, x *float32, nb int) float32          { panic("unreachable") }
func deqQ8_0AVX2(dst *float32, w *byte, nb int)                { panic("unreachable") }
func deqQ4_0AVX2(dst *float32, w *byte, nb int)                { panic("unreachable") }
func deqQ5_0AVX2(dst *float32, w *byte, nb int)                { panic("unreachable") }
func dotQ6KAVX2(w *byte, x *float32, nb int) float32           { panic("unreachable") }
func deqQ6KAVX2(dst *float32, w *byte, nb int)                 { panic("unreachable") }
func dotQ4KAVX2(w *byte, x *float32, nb int) float32           { panic("unreachable") }
func deqQ4KAVX2(dst *float32, w *byte, nb int)                 { panic("unreachable") }

func dotF32r2x4AVX2(w *float32, wstride int, x *float32, xstride, n int, out *float32) {
	panic("unreachable")
}

func dotsF32AVX2(s, q, k *float32, kstride, nrows, hd int)        { panic("unreachable") }
func dotsF16AVX2(s, q *float32, k *byte, kstride, nrows, hd int)  { panic("unreachable") }
func wsumF32AVX2(o, w, v *float32, vstride, nrows, hd int)        { panic("unreachable") }
func wsumF16AVX2(o, w *float32, v *byte, vstride, nrows, hd int)  { panic("unreachable") }
func wsumQ8_0AVX2(o, w *float32, v *byte, vstride, nrows, nb int) { panic("unreachable") }
func wsumQ4_0AVX2(o, w *float32, v *byte, vstride, nrows, nb int) { panic("unreachable") }
func scaleMaxAVX2(s *float32, n int, scale float32) float32       { panic("unreachable") }
func expSubAVX2(s *float32, n int, m float32) float32             { panic("unreachable") }

// haveAVX512 is false: see haveSIMD.
const haveAVX512 = false

func dotQ8_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ4_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ5_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32) {
	panic("unreachable")
}

func swigluAVX2(gate, up *float32, n int) { panic("unreachable") }

func dotBF16AVX2(w *byte, x *float32, n int) float32  { panic("unreachable") }
func cvtBF16AVX2(dst *float32, src *byte, n int)      { panic("unreachable") }
func dotQ5KAVX2(w *byte, x *float32, nb int) float32  { panic("unreachable") }
func deqQ5KAVX2(dst *float32, w *byte, nb int)        { panic("unreachable") }
func dotQ4_1AVX2(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ5_1AVX2(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func deqQ4_1AVX2(dst *float32, w *byte, nb int)       { panic("unreachable") }
func deqQ5_1AVX2(dst *float32, w *byte, nb int)       { panic("unreachable") }

func quantQ8aAVX2(dst *byte, x *float32, nb int) { panic("unreachable") }
func quantQ8KAVX2(dst *byte, x *float32, nb int) { panic("unreachable") }
func dotQ8_0Q8AVX2(w, y *byte, nb int) float32   { panic("unreachable") }
func dotQ4_0Q8AVX2(w, y *byte, nb int) float32   { panic("unreachable") }
func dotQ4KQ8KAVX2(w, y *byte, nb int) float32   { panic("unreachable") }
func dotQ6KQ8KAVX2(w, y *byte, nb int) float32   { panic("unreachable") }
func roundQ8aAVX2(dst, x *float32, nb int)       { panic("unreachable") }
func roundQ8KAVX2(dst, x *float32, nb int)       { panic("unreachable") }
func dotQ5KQ8KAVX2(w, y *byte, nb int) float32   { panic("unreachable") }
func dotQ5_0Q8AVX2(w, y *byte, nb int) float32   { panic("unreachable") }

// haveVNNI is false: see haveSIMD.
const haveVNNI = false

func packQ8_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ5_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func packQ6K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func gemmPlain(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }
func gemmBias(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)  { panic("unreachable") }
func gemmSplit(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }
