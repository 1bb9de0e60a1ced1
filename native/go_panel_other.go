//go:build !amd64 || purego

package native

// havePanels is false: the panel kernel is amd64 assembly.
const havePanels = false

func panelMul6SIMD(p *float32, n int, y *[6]*float32, o *[96]float32) { panic("unreachable") }

func transpose8SIMD(dst, src *float32, stride, n int) { panic("unreachable") }
