//go:build arm64 && !purego

package native

import "github.com/litert-go/litert-go/models/ggml"

// sdotGemmKernel returns the arm64 gemm kernel of weight type t
// (go_batch_arm64.s) for the kind of its packs (gemmKindOf), nil where the
// CPU lacks the dot product instructions (haveDotProd) or t has no
// gemmPacks; all multiply activations as quantized (not flipped:
// signedGemm).
func sdotGemmKernel(t ggml.DType) gemmKernel {
	if !haveDotProd {
		return nil
	}
	switch t {
	case ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.IQ4_NL, ggml.IQ4_XS, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K:
		return [...]gemmKernel{gemmPlainSDOT, gemmSplitSDOT, gemmBiasSDOT}[gemmKindOf(t)]
	}
	return nil
}

// gemmMinTokens is the batch from which quantized weights take the gemm
// here: its packs are built in Go per MatMul (packRowsScalar, about 0.4
// µs a block column of 16 rows on an x86 core), which a batch of 32
// tokens repays against the float path (dequantized rows by NEON's 2×4
// float tiles); smaller batches keep to that path.
const gemmMinTokens = 32

// gemmSDOT sets out[t*os/4+r] for the 16 rows r of the nb gemmPacks at p
// and 4 tokens t (q8a blocks at y + t*ys bytes), packs of the given kind.
//
//go:noescape
func gemmSDOT(p *byte, nb int, y *byte, ys int, out *float32, os int, kind gemmKind)

// gemmPlainSDOT, gemmSplitSDOT and gemmBiasSDOT are gemmSDOT's kinds as
// gemmKernels: all 16 rows written (runGemm gives a short group's to a
// scratch tile), the mask unused.
func gemmPlainSDOT(p *byte, nb int, y *byte, ys int, out *float32, os, _ int) {
	gemmSDOT(p, nb, y, ys, out, os, gemmKindPlain)
}

func gemmSplitSDOT(p *byte, nb int, y *byte, ys int, out *float32, os, _ int) {
	gemmSDOT(p, nb, y, ys, out, os, gemmKindSplit)
}

func gemmBiasSDOT(p *byte, nb int, y *byte, ys int, out *float32, os, _ int) {
	gemmSDOT(p, nb, y, ys, out, os, gemmKindBias)
}

// haveNEONTiles is true: the prefill attention tiles (go_attend_tile.go)
// run on panelMul4NEON, which needs nothing beyond ARMv8.0.
const haveNEONTiles = true

// panelMul4NEON is the tiles' panel product on NEON: 16 lanes by 4 rows
// (tileKernel; ps unused), n a multiple of 4.
//
//go:noescape
func panelMul4NEON(p *float32, n, ps int, y *float32, ys int, o *float32, os int)
