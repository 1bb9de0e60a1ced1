package native

import (
	"math"
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
	assert.EqualError(t, err, "native: a Q8_0 KV cache needs heads of a multiple of 32 elements, not 48 (use an F16 or F32 cache for this model)")
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

// TestHadamard checks the fast transform against the matrix that
// ggml_gen_hadamard builds (llama-kv-cache.cpp: Sylvester's construction,
// scaled by 1/√n) multiplied out, its being its own inverse, and the
// rotation sizes llama.cpp picks (build_input_k_rot / build_input_v_rot).
func TestHadamard(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 64, 256} {
		m := make([]float32, n*n) // as ggml_gen_hadamard fills it
		m[0] = float32(1 / math.Sqrt(float64(n)))
		for s := 1; s < n; s *= 2 {
			for i := range s {
				for j := range s {
					v := m[i*n+j]
					m[(i+s)*n+j], m[i*n+j+s], m[(i+s)*n+j+s] = v, v, -v
				}
			}
		}
		x := randVec(r, 3*n)
		got := append([]float32(nil), x...)
		Hadamard(got, n)
		for c := range 3 {
			for i := range n {
				var want float64
				for j := range n {
					want += float64(m[i*n+j]) * float64(x[c*n+j])
				}
				require.InDelta(t, want, got[c*n+i], 1e-5, "n=%d chunk %d element %d", n, c, i)
			}
		}
		Hadamard(got, n)
		assertClose(t, x, got, 1e-5, "H·H = I")
	}
	assert.Panics(t, func() { Hadamard(make([]float32, 12), 12) })
	for _, c := range []struct {
		t          ggml.DType
		hd, rk, rv int
	}{{ggml.Q8_0, 64, 64, 64}, {ggml.Q4_0, 128, 128, 64}, {ggml.Q8_0, 256, 256, 64}, {ggml.Q8_0, 192, 64, 64},
		{ggml.Q8_0, 32, 0, 0}, {ggml.F16, 128, 0, 0}, {ggml.F32, 64, 0, 0}} {
		rk, rv := KVRotation(c.t, c.hd)
		assert.Equal(t, [2]int{c.rk, c.rv}, [2]int{rk, rv}, "%s head %d", c.t, c.hd)
	}
}
