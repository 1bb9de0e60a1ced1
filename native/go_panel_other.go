//go:build !amd64 || purego

package native

// havePanels and havePanels512 are false: the panel kernels are amd64
// assembly.
const (
	havePanels    = false
	havePanels512 = false
	haveBF16Pairs = false
	bf16PairsPay  = false
)

func panelMul6SIMD(p *float32, n int, y *[6]*float32, o *float32, os int) { panic("unreachable") }

func panelMul12AVX512(p *float32, n, ps int, y *float32, ys int, o *float32, os int) {
	panic("unreachable")
}

func transpose8SIMD(dst, src *float32, stride, n int) { panic("unreachable") }

func panelMul12BF16(p *float32, n2 int, y *uint16, ys int, o *[2 * panelRows * panelTokens512]float32) {
	panic("unreachable")
}
