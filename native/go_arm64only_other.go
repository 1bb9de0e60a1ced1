//go:build !arm64 || purego

package native

import "github.com/litert-go/litert-go/models/ggml"

// The arm64 batch kernels (go_gemm_arm64.go, go_batch_arm64.s): elsewhere
// (and with -tags purego) there are none.

// haveNEONTiles is false: the NEON tile kernel is arm64 assembly.
const haveNEONTiles = false

// gemmMinTokens is the batch from which quantized weights take the gemm
// (a tile of 4 tokens: the AVX2 packers are assembly, the VNNI ones too).
const gemmMinTokens = tileTokens

// sdotGemmKernel is nil: the SDOT gemm is arm64 assembly.
func sdotGemmKernel(ggml.DType) gemmKernel { return nil }

func panelMul4NEON(p *float32, n, ps int, y *float32, ys int, o *float32, os int) {
	panic("unreachable")
}
