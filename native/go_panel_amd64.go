//go:build amd64 && !purego

package native

// havePanels reports whether float batches run as packed panels
// (go_panel.go): on AVX2 CPUs without AVX-512, whose float tiles
// (dotF32r4x4AVX512) take that role.
var havePanels = haveSIMD && !haveAVX512

// panelMul6SIMD sets o[16*t+r] = Σ_k p[16*k+r]*y[t][k] over k < n for the
// 16 rows of the panel p and 6 activation rows.
//
//go:noescape
func panelMul6SIMD(p *float32, n int, y *[6]*float32, o *[96]float32)

// transpose8SIMD sets dst[16*k+r] = src[r*stride/4+k] for 8 rows of src
// (stride bytes apart) and k < n, n a multiple of 8.
//
//go:noescape
func transpose8SIMD(dst, src *float32, stride, n int)
