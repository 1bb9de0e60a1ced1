package native

import (
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// The batch products of quantized weights on AVX-512 VNNI CPUs (haveVNNI),
// the design of the C library's gemm kernels (csrc/matmul.c): the
// activations are quantized once per MatMul to q8a blocks with their
// quants flipped to unsigned (q^0x80), and each group of gemmRows weight
// rows is repacked, a 32-element block column at a time, into gemmPacks
// that one VPDPBUSD per 4 quants advances all 16 rows of; every tile of 4
// tokens then streams over the group's packs, which stay in L1/L2.
// K-quants become 32-element columns with per-column scales (and biases
// for the mins), as in the C kernels. CPUs without VNNI multiply the same
// packs, built in Go: AVX2 (go_gemm_avx2.go) and arm64 with the dot
// product instructions (go_gemm_arm64.go, SDOT by element: 4 rows' 4
// quants by one token's 4 a step, the activations not flipped).

// gemmRows is the number of weight rows packed together.
const gemmRows = 16

// gemmPackSize is the bytes of a gemmPack: one block column of 16 rows.
// Int32 lane r of quant vector g (64 bytes each, 8 of them) holds quants
// 4g..4g+3 of row r as signed bytes; then float32 d[16], d2[16], b[16] and
// int32 c[16], c2[16]. Row r's value j is d[r]*q[j] + b[r], with d2 for
// j >= 16 where the halves have their own scales (Q6_K); c and c2 are
// -128 times the sums of the quants of each half, cancelling the +128 the
// flipped activations carry.
const gemmPackSize = 832

// gemmKernel is one of gemmPlain, gemmBias, gemmSplit.
type gemmKernel func(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)

// gemmKind is how a type's gemmPacks give its values: plain (d·q),
// split (d·q for a column's first 16 quants, d2·q for the rest: Q3_K and
// Q6_K's 16-element scales) or bias (d·q + b: Q4_K and Q5_K's mins).
type gemmKind int

const (
	gemmKindPlain gemmKind = iota
	gemmKindSplit
	gemmKindBias
)

// gemmKindOf returns the kind of type t's gemmPacks.
func gemmKindOf(t ggml.DType) gemmKind {
	switch t {
	case ggml.Q3_K, ggml.Q6_K:
		return gemmKindSplit
	case ggml.Q4_K, ggml.Q5_K:
		return gemmKindBias
	}
	return gemmKindPlain
}

// hasGemm reports whether row-major weights of type t have a batch kernel
// on this CPU (VNNI's, or the AVX2 ones of go_gemm_avx2.go, or arm64's
// SDOT ones), for cols columns.
func hasGemm(t ggml.DType, cols int) bool {
	if cols%t.BlockSize() != 0 {
		return false
	}
	if !haveVNNI {
		return otherGemmKernel(t) != nil
	}
	switch t {
	case ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS:
		return true
	}
	return false
}

// quantizeGemm quantizes x, a whole number of 32-element blocks, to the
// q8a blocks the gemm kernels multiply: flipped (+128), but for the signed
// kernel (gemmSignedAVX2).
func quantizeGemm(dst []byte, x []float32, flip bool) {
	nb := len(x) / qk
	if nb == 0 {
		return
	}
	_ = dst[nb*sizeQ8a-1]
	var x80 byte
	if flip {
		x80 = 0x80
	}
	quantQ8aSIMD(&dst[0], &x[0], nb, x80)
}

// otherGemmKernel is the gemm kernel of type t on a CPU without VNNI:
// AVX2's or arm64's, nil for none.
func otherGemmKernel(t ggml.DType) gemmKernel {
	if k := avx2GemmKernel(t); k != nil {
		return k
	}
	return sdotGemmKernel(t)
}

// runGemm multiplies the row groups [lo, hi) (gemmRows rows each, the
// last maybe fewer) by every token with the gemm kernels.
func (m *matmulTask) runGemm(lo, hi int) {
	cols, rows := m.w.Cols, m.w.Rows
	nb := cols / qk
	buf := m.g.packs.Get().(*[]byte)
	defer m.g.packs.Put(buf)
	*buf = grow(*buf, nb*gemmPackSize+64)
	off := int((64 - uintptr(unsafe.Pointer(&(*buf)[0]))%64) % 64)
	p := (*buf)[off : off+nb*gemmPackSize]
	kernel := [...]gemmKernel{gemmPlain, gemmSplit, gemmBias}[gemmKindOf(m.w.Type)]
	if !haveVNNI { // AVX2 (go_gemm_avx2.go; row-major or interleaved), arm64 (row-major)
		kernel = otherGemmKernel(m.w.Type)
	}
	var part [4 * gemmRows]float32 // the AVX2 and arm64 kernels' 16 rows of a last, short group
	for gi := lo; gi < hi; gi++ {
		r0 := gi * gemmRows
		nr := min(gemmRows, rows-r0)
		m.pack(p, r0, nr)
		// a last tile of fewer than 4 tokens redoes some of the one before
		for t0 := 0; t0 < m.nTokens; t0 += 4 {
			t := min(t0, m.nTokens-4)
			if !haveVNNI && nr < gemmRows {
				kernel(&p[0], nb, &m.xq[t*m.xqRow], m.xqRow, &part[0], 4*gemmRows, 1<<gemmRows-1)
				for k := range 4 {
					copy(m.out[(t+k)*rows+r0:(t+k)*rows+r0+nr], part[k*gemmRows:k*gemmRows+nr])
				}
				continue
			}
			kernel(&p[0], nb, &m.xq[t*m.xqRow], m.xqRow, &m.out[t*rows+r0], 4*rows, 1<<nr-1)
		}
	}
}

// pack repacks the nr rows from r0 into the gemmPacks p.
func (m *matmulTask) pack(p []byte, r0, nr int) {
	w := &m.w.Data[r0*m.rs]
	if m.il { // whole groups
		k, _ := ilKernelOf(m.w.Type)
		k.pack(&p[0], w, m.w.Cols/m.w.Type.BlockSize())
		return
	}
	if !haveVNNI {
		packRowsGo(m.w.Type, p, m.w.Data[r0*m.rs:(r0+nr)*m.rs], m.rs, nr, m.w.Cols/qk)
		return
	}
	switch t := m.w.Type; t {
	case ggml.Q8_0:
		packQ8_0(&p[0], w, m.rs, nr, m.w.Cols/qk)
	case ggml.Q4_0:
		packQ4_0(&p[0], w, m.rs, nr, m.w.Cols/qk)
	case ggml.Q5_0:
		packQ5_0(&p[0], w, m.rs, nr, m.w.Cols/qk)
	case ggml.Q4_K:
		packQ4K(&p[0], w, m.rs, nr, m.w.Cols/qkk)
	case ggml.Q5_K:
		packQ5K(&p[0], w, m.rs, nr, m.w.Cols/qkk)
	case ggml.IQ4_XS:
		packIQ4XS(&p[0], w, m.rs, nr, m.w.Cols/qkk)
	case ggml.Q6_K:
		packQ6K(&p[0], w, m.rs, nr, m.w.Cols/qkk)
	case ggml.Q3_K:
		packQ3K(&p[0], w, m.rs, nr, m.w.Cols/qkk)
	default:
		panic("native: gemm: no kernel for " + t.String())
	}
}
