package native

import (
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models/ggml"
)

// KVCache holds one layer's keys and values for every position of a
// context: row p is the keys (or values) of position p, nKVHeads heads of
// headDim elements, stored as F32, F16, or ggml's Q8_0 or Q4_0 blocks of
// 32 elements (llama.cpp's -ctk/-ctv q8_0, q4_0: each row quantized as
// quantize_row_q8_0_ref / quantize_row_q4_0_ref do).
type KVCache struct {
	typ      ggml.DType
	ctxLen   int
	width    int
	rowBytes int // bytes of one position's keys (or values) in kq, vq
	k32, v32 []float32
	k16, v16 []uint16
	kq, vq   []byte // Q8_0 or Q4_0 rows
}

// KVTypes are the element types a KVCache can hold.
var KVTypes = []ggml.DType{ggml.F32, ggml.F16, ggml.Q8_0, ggml.Q4_0}

// CheckKVType reports whether a KV cache of type t can hold rows of heads
// of headDim elements: t one of KVTypes, and for the block types headDim
// a multiple of their 32-element block (a head's keys are whole blocks).
func CheckKVType(t ggml.DType, headDim int) error {
	switch t {
	case ggml.F32, ggml.F16:
		return nil
	case ggml.Q8_0, ggml.Q4_0:
		if headDim%t.BlockSize() != 0 {
			return fmt.Errorf("native: a %s KV cache needs heads of a multiple of %d elements, not %d (use an F16 or F32 cache for this model)", t, t.BlockSize(), headDim)
		}
		return nil
	}
	return fmt.Errorf("native: KV cache type %s is not supported (want f32, f16, q8_0 or q4_0)", t)
}

// NewKVCache allocates a cache of ctxLen positions of width elements in
// type t (one of KVTypes; width a whole number of blocks).
func NewKVCache(t ggml.DType, ctxLen, width int) (*KVCache, error) {
	if ctxLen <= 0 || width <= 0 {
		return nil, fmt.Errorf("native: KV cache of %d positions × %d elements", ctxLen, width)
	}
	if err := CheckKVType(t, width); err != nil {
		return nil, err
	}
	c := &KVCache{typ: t, ctxLen: ctxLen, width: width}
	switch t {
	case ggml.F32:
		c.k32 = make([]float32, ctxLen*width)
		c.v32 = make([]float32, ctxLen*width)
	case ggml.F16:
		c.k16 = make([]uint16, ctxLen*width)
		c.v16 = make([]uint16, ctxLen*width)
	default:
		c.rowBytes = width / t.BlockSize() * t.TypeSize()
		c.kq = make([]byte, ctxLen*c.rowBytes)
		c.vq = make([]byte, ctxLen*c.rowBytes)
	}
	return c, nil
}

// Type is the element type of the cache.
func (c *KVCache) Type() ggml.DType { return c.typ }

// Len is the number of positions the cache holds.
func (c *KVCache) Len() int { return c.ctxLen }

// Width is the number of elements of one position's keys (or values).
func (c *KVCache) Width() int { return c.width }

// Bytes is the memory the cache takes.
func (c *KVCache) Bytes() int {
	switch c.typ {
	case ggml.F16:
		return 2 * 2 * c.ctxLen * c.width
	case ggml.F32:
		return 2 * 4 * c.ctxLen * c.width
	}
	return 2 * c.ctxLen * c.rowBytes
}

// quantized reports whether c holds blocks (Q8_0, Q4_0).
func (c *KVCache) quantized() bool { return c.rowBytes > 0 }

// storeRows writes the rows [lo, hi) of k and v at positions pos0+lo …
// pos0+hi-1 of a quantized or F16 cache: quantized as ggml's reference
// quantizers do, or rounded to F16 (by F16C where the CPU has it, as
// ggml's CPU backend rounds).
func (c *KVCache) storeRows(pos0 int, k, v []float32, lo, hi int) {
	w := c.width
	if c.quantized() {
		rb := c.rowBytes
		for t := lo; t < hi; t++ {
			dst := (pos0 + t) * rb
			// the rows are whole blocks (NewKVCache): Quantize cannot fail
			_ = ggml.Quantize(c.typ, k[t*w:(t+1)*w], c.kq[dst:dst+rb])
			_ = ggml.Quantize(c.typ, v[t*w:(t+1)*w], c.vq[dst:dst+rb])
		}
		return
	}
	off := pos0 * w
	i := lo * w
	if n := (hi - lo) * w &^ 7; haveX86SIMD && n > 0 {
		_, _ = c.k16[off+i+n-1], c.v16[off+i+n-1]
		_, _ = k[i+n-1], v[i+n-1]
		f16FromF32SIMD(&c.k16[off+i], &k[i], n)
		f16FromF32SIMD(&c.v16[off+i], &v[i], n)
		i += n
	}
	for ; i < hi*w; i++ {
		c.k16[off+i] = ggml.F32ToF16(k[i])
		c.v16[off+i] = ggml.F32ToF16(v[i])
	}
}

// CopyFrom copies the first n positions of src, which must have the same
// type and width and at least n positions, into c.
func (c *KVCache) CopyFrom(src *KVCache, n int) {
	if src.typ != c.typ || src.width != c.width || n > src.ctxLen || n > c.ctxLen {
		panic(fmt.Sprintf("native: KVCache.CopyFrom: %s×%d (%d) into %s×%d (%d), %d positions",
			src.typ, src.width, src.ctxLen, c.typ, c.width, c.ctxLen, n))
	}
	if c.quantized() {
		copy(c.kq[:n*c.rowBytes], src.kq[:n*c.rowBytes])
		copy(c.vq[:n*c.rowBytes], src.vq[:n*c.rowBytes])
		return
	}
	m := n * c.width
	if c.typ == ggml.F16 {
		copy(c.k16[:m], src.k16[:m])
		copy(c.v16[:m], src.v16[:m])
		return
	}
	copy(c.k32[:m], src.k32[:m])
	copy(c.v32[:m], src.v32[:m])
}

// KVRotation returns the sizes of the Walsh-Hadamard rotations llama.cpp
// applies around a KV cache of type t for heads of headDim elements
// (llama_kv_cache's attn_rot_k / attn_rot_v, on unless
// LLAMA_ATTN_ROT_DISABLE is set): for a quantized cache and a headDim that
// is a multiple of 64, queries and keys are rotated in chunks of rotK (the
// largest power of two dividing headDim), values and the attention output
// in chunks of rotV = 64. The rotation is orthonormal and its own inverse,
// so attention is unchanged but for the rounding, which it spreads evenly
// over a block. 0 means no rotation.
func KVRotation(t ggml.DType, headDim int) (rotK, rotV int) {
	if !ggml.IsQuantized(t) || headDim <= 0 || headDim%64 != 0 {
		return 0, 0
	}
	rotK = 64
	for headDim%(2*rotK) == 0 {
		rotK *= 2
	}
	return rotK, 64
}

// Hadamard multiplies each chunk of n elements of x (n a power of two,
// len(x) a multiple of n) in place by the orthonormal Walsh-Hadamard
// matrix of size n in Sylvester's order, as ggml_gen_hadamard makes it:
// the fast transform, then a scale by 1/√n.
func Hadamard(x []float32, n int) {
	if n <= 0 || n&(n-1) != 0 || len(x)%n != 0 {
		panic(fmt.Sprintf("native: Hadamard of %d elements in chunks of %d", len(x), n))
	}
	scale := float32(1 / math.Sqrt(float64(n)))
	for c := 0; c < len(x); c += n {
		v := x[c : c+n]
		for h := 1; h < n; h *= 2 {
			for i := 0; i < n; i += 2 * h {
				for j := i; j < i+h; j++ {
					a, b := v[j], v[j+h]
					v[j], v[j+h] = a+b, a-b
				}
			}
		}
		for i := range v {
			v[i] *= scale
		}
	}
}
