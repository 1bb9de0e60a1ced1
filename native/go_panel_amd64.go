//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// havePanels reports whether float batches run as packed panels
// (go_panel.go): on every CPU with the AVX2 kernels; havePanels512 adds the
// AVX-512 kernel for pairs of panels by 12 tokens.
var (
	havePanels    = haveSIMD
	havePanels512 = haveAVX512
)

// panelMul6SIMD sets o_t[r] = Σ_k p[16*k+r]*y[t][k] over k < n for the
// 16 rows of the panel p and 6 activation rows, writing o_t's 16 floats at
// o + t*os bytes.
//
//go:noescape
func panelMul6SIMD(p *float32, n int, y *[6]*float32, o *float32, os int)

// panelMul12AVX512 sets o_t[r] = Σ_k p'[16*k+r%16]*y_t[k] over k < n for
// the 32 rows of the two panels p and p+ps bytes (p' the one row r falls
// in) and the 12 activation rows y_t at y + t*ys bytes, writing o_t's 32
// floats at o + t*os bytes.
//
//go:noescape
func panelMul12AVX512(p *float32, n, ps int, y *float32, ys int, o *float32, os int)

// transpose8SIMD sets dst[16*k+r] = src[r*stride/4+k] for 8 rows of src
// (stride bytes apart) and k < n, n a multiple of 8.
//
//go:noescape
func transpose8SIMD(dst, src *float32, stride, n int)

// haveBF16Pairs reports whether this CPU runs the BF16 pair panels of
// panelMul12BF16 (AVX512_BF16), and bf16PairsPay whether NewGo batches
// BF16 weights as those rather than widened to float panels as F16 is:
// on AMD's cores (Zen 5: BF16 prefill at 1.57× the F16 panels' rate), not
// on Intel's (Emerald Rapids: 0.7×; the C library's avx512bf16 set is
// its default by the same rule).
var (
	haveBF16Pairs = havePanels512 && cpu.X86.HasAVX512BF16
	bf16PairsPay  = haveBF16Pairs && cpuIsAMD()
)

// cpuIsAMD reports whether CPUID's vendor is AuthenticAMD.
func cpuIsAMD() bool {
	_, b, c, d := cpuid(0)
	return b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163 // "Auth" "enti" "cAMD"
}

// cpuid returns the CPUID leaf's EAX, EBX, ECX and EDX (subleaf 0).
//
//go:noescape
func cpuid(leaf uint32) (a, b, c, d uint32)

// panelMul12BF16 is panelMul12AVX512 for BF16 pair panels (n2 pairs of
// 16 rows, pair k of row r the 32-bit word p[16k+r%16]) by 12 BF16
// activation rows y_t at y + t*ys bytes.
//
//go:noescape
func panelMul12BF16(p *float32, n2 int, y *uint16, ys int, o *[2 * panelRows * panelTokens512]float32)
