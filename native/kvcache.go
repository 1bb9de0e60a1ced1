package native

import (
	"fmt"

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
			return fmt.Errorf("native: a %s KV cache needs heads of a multiple of %d elements, not %d", t, t.BlockSize(), headDim)
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
