package native

import (
	"fmt"

	"github.com/litert-go/litert-go/models/ggml"
)

// KVCache holds one layer's keys and values for every position of a
// context: row p is the keys (or values) of position p, nKVHeads heads of
// headDim elements, stored as F32 or F16.
type KVCache struct {
	typ      ggml.DType
	ctxLen   int
	width    int
	k32, v32 []float32
	k16, v16 []uint16
}

// NewKVCache allocates a cache of ctxLen positions of width elements in
// type t (ggml.F32 or ggml.F16).
func NewKVCache(t ggml.DType, ctxLen, width int) (*KVCache, error) {
	if ctxLen <= 0 || width <= 0 {
		return nil, fmt.Errorf("native: KV cache of %d positions × %d elements", ctxLen, width)
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
		return nil, fmt.Errorf("native: KV cache type %s is not supported (want F32 or F16)", t)
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
	if c.typ == ggml.F16 {
		return 2 * 2 * c.ctxLen * c.width
	}
	return 2 * 4 * c.ctxLen * c.width
}

// CopyFrom copies the first n positions of src, which must have the same
// type and width and at least n positions, into c.
func (c *KVCache) CopyFrom(src *KVCache, n int) {
	if src.typ != c.typ || src.width != c.width || n > src.ctxLen || n > c.ctxLen {
		panic(fmt.Sprintf("native: KVCache.CopyFrom: %s×%d (%d) into %s×%d (%d), %d positions",
			src.typ, src.width, src.ctxLen, c.typ, c.width, c.ctxLen, n))
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
