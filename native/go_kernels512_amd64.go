//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveAVX512 reports whether the AVX-512 kernels of go_kernels512_amd64.s
// run on this CPU (on top of haveSIMD).
var haveAVX512 = haveSIMD && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// dotQ8_0AVX512 is dotQ8_0AVX2 with AVX-512.
//
//go:noescape
func dotQ8_0AVX512(w *byte, x *float32, nb int) float32

// dotQ4_0AVX512 is dotQ4_0AVX2 with AVX-512.
//
//go:noescape
func dotQ4_0AVX512(w *byte, x *float32, nb int) float32

// dotQ5_0AVX512 is dotQ5_0AVX2 with AVX-512.
//
//go:noescape
func dotQ5_0AVX512(w *byte, x *float32, nb int) float32

// dotF32r4x4AVX512 sets out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for 4
// weight rows wstride bytes apart and 4 activation rows xstride bytes
// apart; n is a multiple of 16.
//
//go:noescape
func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32)
