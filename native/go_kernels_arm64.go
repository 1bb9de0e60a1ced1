//go:build arm64 && !purego

package native

// haveSIMD is true: NEON (Advanced SIMD) is part of every arm64 CPU, and
// the kernels of go_kernels_arm64.s use nothing beyond ARMv8.0.
const haveSIMD = true

// haveAVX512 is false: the AVX-512 kernels are amd64's; their stubs below
// are never called.
const haveAVX512 = false

func dotQ8_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ4_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotQ5_0AVX512(w *byte, x *float32, nb int) float32 { panic("unreachable") }
func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32) {
	panic("unreachable")
}

// haveVNNI is false: see haveAVX512.
const haveVNNI = false

func packQ8_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ5_0(dst, w *byte, rs, nr, nb int)                                  { panic("unreachable") }
func packQ4K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func packQ6K(dst, w *byte, rs, nr, nb int)                                   { panic("unreachable") }
func gemmPlain(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }
func gemmBias(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)  { panic("unreachable") }
func gemmSplit(p *byte, nb int, y *byte, ys int, out *float32, os, mask int) { panic("unreachable") }
