//go:build (!amd64 && !arm64) || purego

package native

// haveSIMD is false: no assembly kernels exist for this platform, and the
// stubs below are never called.
const haveSIMD = false

func dotF32SIMD(a, b *float32, n int) float32                                { panic("unreachable") }
func dotF32x4SIMD(w, x *float32, xstride, n int, out *float32)               { panic("unreachable") }
func dotF16SIMD(w *byte, x *float32, n int) float32                          { panic("unreachable") }
func dotRowsF16SIMD(w *byte, rs, nrows int, x *float32, n int, out *float32) { panic("unreachable") }
func cvtF16SIMD(dst *float32, src *byte, n int)                              { panic("unreachable") }
func dotQ8_0SIMD(w *byte, x *float32, nb int) float32                        { panic("unreachable") }
func dotQ4_0SIMD(w *byte, x *float32, nb int) float32                        { panic("unreachable") }
func dotQ5_0SIMD(w *byte, x *float32, nb int) float32                        { panic("unreachable") }
func deqQ8_0SIMD(dst *float32, w *byte, nb int)                              { panic("unreachable") }
func deqQ4_0SIMD(dst *float32, w *byte, nb int)                              { panic("unreachable") }
func deqQ5_0SIMD(dst *float32, w *byte, nb int)                              { panic("unreachable") }
func dotQ6KSIMD(w *byte, x *float32, nb int) float32                         { panic("unreachable") }
func deqQ6KSIMD(dst *float32, w *byte, nb int)                               { panic("unreachable") }
func dotQ4KSIMD(w *byte, x *float32, nb int) float32                         { panic("unreachable") }
func deqQ4KSIMD(dst *float32, w *byte, nb int)                               { panic("unreachable") }

func dotF32r2x4SIMD(w *float32, wstride int, x *float32, xstride, n int, out *float32) {
	panic("unreachable")
}

func dotsF32SIMD(s, q, k *float32, kstride, nrows, hd int)        { panic("unreachable") }
func dotsF16SIMD(s, q *float32, k *byte, kstride, nrows, hd int)  { panic("unreachable") }
func wsumF32SIMD(o, w, v *float32, vstride, nrows, hd int)        { panic("unreachable") }
func wsumF16SIMD(o, w *float32, v *byte, vstride, nrows, hd int)  { panic("unreachable") }
func wsumQ8_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int) { panic("unreachable") }
func wsumQ4_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int) { panic("unreachable") }
func scaleMaxSIMD(s *float32, n int, scale float32) float32       { panic("unreachable") }
func expSubSIMD(s *float32, n int, m float32) float32             { panic("unreachable") }

func swigluSIMD(gate, up *float32, n int) { panic("unreachable") }

func dotBF16SIMD(w *byte, x *float32, n int) float32  { panic("unreachable") }
func cvtBF16SIMD(dst *float32, src *byte, n int)      { panic("unreachable") }
func dotQ5KSIMD(w *byte, x *float32, nb int) float32  { panic("unreachable") }
func deqQ5KSIMD(dst *float32, w *byte, nb int)        { panic("unreachable") }
func dotQ4_1SIMD(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ5_1SIMD(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func deqQ4_1SIMD(dst *float32, w *byte, nb int)       { panic("unreachable") }
func deqQ5_1SIMD(dst *float32, w *byte, nb int)       { panic("unreachable") }

func quantQ8aSIMD(dst *byte, x *float32, nb int, flip byte)                   { panic("unreachable") }
func quantQ8KSIMD(dst *byte, x *float32, nb int)                              { panic("unreachable") }
func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func dotsQ8_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)       { panic("unreachable") }
func dotsQ4_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)       { panic("unreachable") }
func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func roundQ8aSIMD(dst, x *float32, nb int)                                    { panic("unreachable") }
func roundQ8KSIMD(dst, x *float32, nb int)                                    { panic("unreachable") }
func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }
func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) { panic("unreachable") }

func xorSIMD(p *byte, n int) uint64 { panic("unreachable") }
