package native

import "github.com/litert-go/litert-go/models/ggml"

// Byte sizes of the 8-bit activation blocks (the C library's block_q8a and
// block_q8K; see go_kernels_amd64.s for their layout).
const (
	sizeQ8a = 40
	sizeQ8K = 292
)

// q8Layout returns the block of the 8-bit activations that weights of type
// t are multiplied by in matrix-vector products (32 floats to a q8a block,
// or 256 to a q8K block for K-quants), and false where t has no such
// kernel on this CPU: there the activations stay float32.
func q8Layout(t ggml.DType) (elems, size int, ok bool) {
	if !haveSIMD {
		return 0, 0, false
	}
	switch t {
	case ggml.Q8_0, ggml.Q4_0, ggml.Q5_0:
		return qk, sizeQ8a, true
	case ggml.Q4_K, ggml.Q5_K, ggml.Q6_K:
		return qkk, sizeQ8K, true
	case ggml.IQ4_NL, ggml.MXFP4:
		return qk, sizeQ8a, haveX86SIMD
	case ggml.IQ4_XS, ggml.Q2_K, ggml.Q3_K:
		return qkk, sizeQ8K, haveX86SIMD
	}
	return 0, 0, false
}

// quantizeQ8 quantizes x, a whole number of blocks, to the activation
// blocks of weight type t (q8Layout(t) must hold) in dst.
func quantizeQ8(t ggml.DType, dst []byte, x []float32) {
	elems, size, _ := q8Layout(t)
	nb := len(x) / elems
	if nb == 0 {
		return
	}
	_ = dst[nb*size-1]
	if size == sizeQ8K {
		quantQ8KSIMD(&dst[0], &x[0], nb)
		return
	}
	quantQ8aSIMD(&dst[0], &x[0], nb, 0)
}

// dotRowQ8 returns the dot product of nb blocks of a weight row of type t
// with the 8-bit activation blocks xq made by quantizeQ8.
func dotRowQ8(t ggml.DType, row, xq []byte, nb int) float32 {
	var out [1]float32
	dotRowsQ8(t, row, len(row), 1, xq, nb, out[:])
	return out[0]
}

// dotRowsQ8 sets out[r] to the dot product of nb blocks of weight row r of
// type t (rs bytes apart in w) with the 8-bit activation blocks xq, for r
// < nrows.
func dotRowsQ8(t ggml.DType, w []byte, rs, nrows int, xq []byte, nb int, out []float32) {
	if nb == 0 || nrows == 0 {
		clear(out[:nrows])
		return
	}
	_, size, _ := q8Layout(t)
	_ = xq[nb*size-1]
	_ = w[(nrows-1)*rs+nb*t.TypeSize()-1]
	_ = out[nrows-1]
	switch t {
	case ggml.Q8_0:
		dotRowsQ8_0Q8SIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q4_0:
		dotRowsQ4_0Q8SIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q5_0:
		dotRowsQ5_0Q8SIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q4_K:
		dotRowsQ4KQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q5_K:
		dotRowsQ5KQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q6_K:
		dotRowsQ6KQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.IQ4_NL:
		dotRowsIQ4NLQ8SIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.MXFP4:
		dotRowsMXFP4Q8SIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.IQ4_XS:
		dotRowsIQ4XSQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q2_K:
		dotRowsQ2KQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	case ggml.Q3_K:
		dotRowsQ3KQ8KSIMD(&w[0], rs, nrows, &xq[0], nb, &out[0])
	default:
		panic("native: dotRowsQ8: no kernel for " + t.String())
	}
}

// roundQ8 sets dst to the values d*q of the 8-bit activation blocks of
// weight type t that quantizeQ8 makes of x (a whole number of blocks): the
// batch products multiply these as floats, so that they round the
// activations as the matrix-vector ones do.
func roundQ8(t ggml.DType, dst, x []float32) {
	elems, size, _ := q8Layout(t)
	nb := len(x) / elems
	if nb == 0 {
		return
	}
	_ = dst[nb*elems-1]
	if size == sizeQ8K {
		roundQ8KSIMD(&dst[0], &x[0], nb)
		return
	}
	roundQ8aSIMD(&dst[0], &x[0], nb)
}
