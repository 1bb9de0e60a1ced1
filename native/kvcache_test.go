package native

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestKVCacheTypes checks the memory of each KV type (ggml's block sizes:
// 34 bytes per 32 elements for Q8_0, 18 for Q4_0), the clear errors for a
// type or a head size a cache cannot hold, and CopyFrom of blocks.
func TestKVCacheTypes(t *testing.T) {
	const ctxLen, width = 10, 128
	for typ, perRow := range map[ggml.DType]int{ggml.F32: 512, ggml.F16: 256, ggml.Q8_0: 4 * 34, ggml.Q4_0: 4 * 18} {
		c, err := NewKVCache(typ, ctxLen, width)
		require.NoError(t, err)
		assert.Equal(t, 2*ctxLen*perRow, c.Bytes(), "%s", typ)
		assert.Equal(t, typ, c.Type())
	}
	_, err := NewKVCache(ggml.Q8_0, ctxLen, 48)
	assert.EqualError(t, err, "native: a Q8_0 KV cache needs heads of a multiple of 32 elements, not 48")
	_, err = NewKVCache(ggml.Q4_K, ctxLen, width)
	assert.EqualError(t, err, "native: KV cache type Q4_K is not supported (want f32, f16, q8_0 or q4_0)")
	assert.Error(t, CheckKVType(ggml.Q4_0, 80))
	assert.NoError(t, CheckKVType(ggml.Q4_0, 64))

	g := NewGo(1)
	defer g.Close()
	src, err := NewKVCache(ggml.Q4_0, ctxLen, width)
	require.NoError(t, err)
	k, v := randVec(rand.New(rand.NewPCG(1, 2)), 3*width), randVec(rand.New(rand.NewPCG(3, 4)), 3*width)
	g.StoreKV(src, 0, k, v, 3)
	dst, err := NewKVCache(ggml.Q4_0, ctxLen, width)
	require.NoError(t, err)
	dst.CopyFrom(src, 3)
	assert.Equal(t, src.kq[:3*src.rowBytes], dst.kq[:3*dst.rowBytes])
	assert.Equal(t, src.vq[:3*src.rowBytes], dst.vq[:3*dst.rowBytes])
	// the rows are ggml's blocks of k and v
	row := make([]byte, src.rowBytes)
	require.NoError(t, ggml.Quantize(ggml.Q4_0, v[2*width:], row))
	assert.Equal(t, row, src.vq[2*src.rowBytes:3*src.rowBytes])
}
