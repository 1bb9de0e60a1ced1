//go:build !arm64 || purego

package native

import "github.com/litert-go/litert-go/models/ggml"

// sdotGemmKernel is nil: the SDOT gemm is arm64 assembly.
func sdotGemmKernel(ggml.DType) gemmKernel { return nil }
