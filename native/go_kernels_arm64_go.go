//go:build arm64 && !purego

package native

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// The kernels below have no NEON assembly yet: they are the generic Go
// code behind the contracts of go_kernels_arm64.go, so that every kernel
// dispatch picks on arm64 exists and is correct.

func bytesAt(p *byte, n int) []byte        { return unsafe.Slice(p, n) }
func floatsAt(p *float32, n int) []float32 { return unsafe.Slice(p, n) }

func dotBF16SIMD(w *byte, x *float32, n int) float32 {
	return ggml.Dot(ggml.BF16, bytesAt(w, 2*n), floatsAt(x, n))
}

func cvtBF16SIMD(dst *float32, src *byte, n int) {
	_ = ggml.DequantizeRow(ggml.BF16, bytesAt(src, 2*n), floatsAt(dst, n))
}

// blockDot returns ggml.Dot of nb blocks of type t with 32*nb or 256*nb
// floats.
func blockDot(t ggml.DType, w *byte, x *float32, nb int) float32 {
	return ggml.Dot(t, bytesAt(w, nb*t.TypeSize()), floatsAt(x, nb*t.BlockSize()))
}

// blockDeq dequantizes nb blocks of type t.
func blockDeq(t ggml.DType, dst *float32, w *byte, nb int) {
	_ = ggml.DequantizeRow(t, bytesAt(w, nb*t.TypeSize()), floatsAt(dst, nb*t.BlockSize()))
}

func dotQ5KSIMD(w *byte, x *float32, nb int) float32  { return blockDot(ggml.Q5_K, w, x, nb) }
func dotQ4_1SIMD(w *byte, x *float32, nb int) float32 { return blockDot(ggml.Q4_1, w, x, nb) }
func dotQ5_1SIMD(w *byte, x *float32, nb int) float32 { return blockDot(ggml.Q5_1, w, x, nb) }
func deqQ5KSIMD(dst *float32, w *byte, nb int)        { blockDeq(ggml.Q5_K, dst, w, nb) }
func deqQ4_1SIMD(dst *float32, w *byte, nb int)       { blockDeq(ggml.Q4_1, dst, w, nb) }
func deqQ5_1SIMD(dst *float32, w *byte, nb int)       { blockDeq(ggml.Q5_1, dst, w, nb) }

// q8Dot returns the dot product of nb blocks of weight type t with nb
// 8-bit activation blocks (q8a or q8K) as floats: the weights dequantized,
// the activations as their values d*q.
func q8Dot(t ggml.DType, w, y *byte, nb int) float32 {
	elems := t.BlockSize()
	size, qoff := sizeQ8a, 8
	if elems == qkk {
		size, qoff = sizeQ8K, 4
	}
	ws := bytesAt(w, nb*t.TypeSize())
	ys := bytesAt(y, nb*size)
	var xd [qkk]float32
	var s float32
	for b := range nb {
		yb := ys[b*size:]
		d := math.Float32frombits(binary.LittleEndian.Uint32(yb))
		for j, q := range yb[qoff : qoff+elems] {
			xd[j] = d * float32(int8(q))
		}
		s += ggml.Dot(t, ws[b*t.TypeSize():(b+1)*t.TypeSize()], xd[:elems])
	}
	return s
}

func dotQ5KQ8KSIMD(w, y *byte, nb int) float32 { return q8Dot(ggml.Q5_K, w, y, nb) }
func dotQ5_0Q8SIMD(w, y *byte, nb int) float32 { return q8Dot(ggml.Q5_0, w, y, nb) }

func halvesAt(p *byte, n int) []uint16 { return unsafe.Slice((*uint16)(unsafe.Pointer(p)), n) }

func dotQ5_0SIMD(w *byte, x *float32, nb int) float32 { return blockDot(ggml.Q5_0, w, x, nb) }
func deqQ5_0SIMD(dst *float32, w *byte, nb int)       { blockDeq(ggml.Q5_0, dst, w, nb) }

// q8Scales returns the block's inverse scale id = 127/max|x| and scale d
// (max|x|/127 for q8a, 1/id for q8K; both 0 for an all-zero block).
func q8Scales(xb []float32, k bool) (id, d float32) {
	var amax float32
	for _, v := range xb {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	if amax == 0 {
		return 0, 0
	}
	id = 127 / amax
	if k {
		return id, 1 / id
	}
	return id, amax / 127
}

func q8Round(v, id float32) int {
	return max(-128, min(127, int(math.RoundToEven(float64(v*id)))))
}

func roundQ8Go(dst, x *float32, nb, elems int, k bool) {
	xs, out := floatsAt(x, nb*elems), floatsAt(dst, nb*elems)
	for b := range nb {
		id, d := q8Scales(xs[b*elems:(b+1)*elems], k)
		for j := b * elems; j < (b+1)*elems; j++ {
			out[j] = d * float32(q8Round(xs[j], id))
		}
	}
}

// wsumQ sets o to the sum of the nrows rows of nb blocks of type t,
// vstride bytes apart, times their weights w.
func wsumQ(t ggml.DType, o, w *float32, v *byte, vstride, nrows, nb int) {
	os := floatsAt(o, nb*qk)
	clear(os)
	var row [qk]float32
	for j, wj := range floatsAt(w, nrows) {
		vr := bytesAt((*byte)(unsafe.Add(unsafe.Pointer(v), j*vstride)), nb*t.TypeSize())
		for b := range nb {
			_ = ggml.DequantizeRow(t, vr[b*t.TypeSize():(b+1)*t.TypeSize()], row[:])
			axpy(os[b*qk:(b+1)*qk], wj, row[:])
		}
	}
}
