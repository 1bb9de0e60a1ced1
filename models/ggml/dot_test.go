package ggml

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allTypes are the types Dequantize and Dot support.
var allTypes = []DType{F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K,
	IQ4_NL, IQ4_XS, MXFP4}

// randomBlocks returns random bytes for n elements of typ with sane scales
// (random scale bytes could be NaN or huge f16 values).
func randomBlocks(t *testing.T, rng *rand.Rand, typ DType, n int) []byte {
	t.Helper()
	size, err := typ.RowSize(n)
	require.NoError(t, err)
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	scale := func(off int) {
		h := F32ToF16(float32(rng.Float64()*0.1 - 0.05))
		b[off], b[off+1] = byte(h), byte(h>>8)
	}
	bs := typ.TypeSize()
	for blk := 0; blk < size/bs; blk++ {
		o := blk * bs
		switch typ {
		case F32:
			v := math.Float32bits(float32(rng.NormFloat64()))
			b[o], b[o+1], b[o+2], b[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		case F16:
			scale(o)
		case BF16:
			v := F32ToBF16(float32(rng.NormFloat64()))
			b[o], b[o+1] = byte(v), byte(v>>8)
		case Q4_0, Q5_0, Q8_0, IQ4_NL, IQ4_XS:
			scale(o)
		case Q6_K:
			scale(o + offQ6KD)
		case Q3_K:
			scale(o + offQ3KD)
		case Q2_K:
			scale(o + offQ2KD)
			scale(o + offQ2KDmin)
		case MXFP4:
			b[o] = byte(118 + rng.IntN(16)) // 2^-10 … 2^5
		case Q4_1, Q5_1, Q8_1, Q4_K, Q5_K:
			scale(o)
			scale(o + 2)
		case Q8_K:
			v := math.Float32bits(float32(rng.Float64() * 0.01))
			b[o], b[o+1], b[o+2], b[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	}
	return b
}

func TestDotMatchesDequantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, typ := range allTypes {
		for _, n := range []int{256, 512, 4096} {
			row := randomBlocks(t, rng, typ, n)
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			w := make([]float32, n)
			require.NoError(t, Dequantize(typ, row, w))
			var want, mag float64
			for i := range x {
				want += float64(w[i]) * float64(x[i])
				mag += math.Abs(float64(w[i]) * float64(x[i]))
			}
			got := Dot(typ, row, x)
			assert.InDelta(t, want, float64(got), 1e-5*mag+1e-6, "%s n=%d", typ, n)
			// Trailing bytes after the row are ignored.
			assert.Equal(t, got, Dot(typ, append(append([]byte{}, row...), 1, 2, 3), x), "%s", typ)
		}
	}
}

func TestDequantizeRowMatchesDequantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, typ := range allTypes {
		const rows, cols = 3, 512
		data := randomBlocks(t, rng, typ, rows*cols)
		all := make([]float32, rows*cols)
		require.NoError(t, Dequantize(typ, data, all))
		rs, err := typ.RowSize(cols)
		require.NoError(t, err)
		row := make([]float32, cols)
		for r := 0; r < rows; r++ {
			require.NoError(t, DequantizeRow(typ, data[r*rs:], row))
			require.Equal(t, all[r*cols:(r+1)*cols], row, "%s row %d", typ, r)
		}
		allocs := testing.AllocsPerRun(10, func() { _ = DequantizeRow(typ, data, row) })
		assert.Zero(t, allocs, "%s DequantizeRow allocates", typ)
		x := make([]float32, cols)
		allocs = testing.AllocsPerRun(10, func() { _ = Dot(typ, data, x) })
		assert.Zero(t, allocs, "%s Dot allocates", typ)

		out := make([]float32, rows)
		require.NoError(t, MatVec(typ, data, row, out))
		for r := 0; r < rows; r++ {
			assert.Equal(t, Dot(typ, data[r*rs:], row), out[r])
		}
	}
}

// TestDequantizeKnownBlocks decodes hand-built blocks whose values are known.
func TestDequantizeKnownBlocks(t *testing.T) {
	one, half := F32ToF16(1), F32ToF16(0.5)
	// Q8_0 with d = 0.5 and quants -16..15.
	q8 := make([]byte, sizeQ8_0)
	q8[0], q8[1] = byte(half), byte(half>>8)
	for j := 0; j < QK; j++ {
		q8[2+j] = byte(int8(j - 16))
	}
	y := make([]float32, QK)
	require.NoError(t, Dequantize(Q8_0, q8, y))
	for j := range y {
		require.Equal(t, float32(j-16)*0.5, y[j])
	}
	// Q4_0 with d = 1: byte j holds element j (low) and j+16 (high).
	q4 := make([]byte, sizeQ4_0)
	q4[0], q4[1] = byte(one), byte(one>>8)
	for j := 0; j < 16; j++ {
		q4[2+j] = byte(j) | byte(15-j)<<4
	}
	require.NoError(t, Dequantize(Q4_0, q4, y))
	for j := 0; j < 16; j++ {
		require.Equal(t, float32(j-8), y[j])
		require.Equal(t, float32(7-j), y[j+16])
	}
	// Q5_0 with d = 1: the fifth bit of element j is bit j of qh.
	q5 := make([]byte, sizeQ5_0)
	q5[0], q5[1] = byte(one), byte(one>>8)
	q5[2] = 0x01 // element 0 gets +16
	q5[5] = 0x80 // bit 31: element 31 gets +16
	require.NoError(t, Dequantize(Q5_0, q5, y))
	assert.Equal(t, float32(0), y[0])
	assert.Equal(t, float32(-16), y[1])
	assert.Equal(t, float32(0), y[31])
	// Q4_K: d = 1, dmin = 0.5; sub-block 5 has scale 3 and min 2, all quants 7.
	q4k := make([]byte, sizeQ4_K)
	q4k[0], q4k[1] = byte(one), byte(one>>8)
	q4k[2], q4k[3] = byte(half), byte(half>>8)
	sc := (*[kScaleSize]byte)(q4k[4:])
	packScalesK4(5, 3, 2, sc)
	s, m := ScaleMinK4(5, sc)
	require.Equal(t, [2]uint8{3, 2}, [2]uint8{s, m})
	for j := offQ4KQs; j < sizeQ4_K; j++ {
		q4k[j] = 0x77
	}
	yk := make([]float32, QKK)
	require.NoError(t, Dequantize(Q4_K, q4k, yk))
	for j := 160; j < 192; j++ {
		require.Equal(t, float32(3*7-0.5*2), yk[j])
	}
	require.Equal(t, float32(0), yk[0])
	// Q6_K: d = 1, scale[3] = -2, quant 40 (stored 40 = 8 | 2<<4) → -2*(40-32).
	q6 := make([]byte, sizeQ6_K)
	q6[offQ6KD], q6[offQ6KD+1] = byte(one), byte(one>>8)
	q6[offQ6KScales+3] = 0xFE // int8(-2)
	// Element 48 is l=16 of the first 32-row group, quadrant 2 (l+32):
	// low nibble in ql[16+32], high bits in qh[16] bits 2..3.
	q6[48] = 8
	q6[offQ6KQh+16] = 2 << 2
	require.NoError(t, Dequantize(Q6_K, q6, yk))
	require.Equal(t, float32(-2*8), yk[48])
}

func TestDequantizeErrors(t *testing.T) {
	y := make([]float32, 64)
	require.ErrorContains(t, Dequantize(Q8_0, make([]byte, 10), y), "Q8_0: 64 elements take 68 bytes, got 10")
	require.ErrorContains(t, Dequantize(Q4_K, make([]byte, 144), y), "not a multiple of the block size 256")
	require.ErrorContains(t, Dequantize(IQ2_XXS, make([]byte, 66), make([]float32, 256)), "converting type IQ2_XXS is not supported")
	require.ErrorContains(t, Dequantize(DType(99), nil, nil), "DType(99)")
	require.ErrorContains(t, DequantizeRow(Q8_0, make([]byte, 67), y), "Q8_0: 64 elements need 68 bytes, got 67")
	require.NoError(t, DequantizeRow(Q8_0, make([]byte, 100), y))
	assert.True(t, math.IsNaN(float64(Dot(Q8_0, make([]byte, 10), y))))
	assert.True(t, math.IsNaN(float64(Dot(IQ2_XXS, make([]byte, 66), make([]float32, 256)))))
	require.ErrorContains(t, MatVec(Q8_0, make([]byte, 68), y, make([]float32, 2)), "2 rows of 64 elements take 136 bytes, got 68")
}

func TestBlockSizesMatchLayouts(t *testing.T) {
	for typ, size := range map[DType]int{
		Q4_0: sizeQ4_0, Q4_1: sizeQ4_1, Q5_0: sizeQ5_0, Q5_1: sizeQ5_1, Q8_0: sizeQ8_0, Q8_1: sizeQ8_1,
		Q4_K: sizeQ4_K, Q5_K: sizeQ5_K, Q6_K: sizeQ6_K, Q8_K: sizeQ8_K,
		Q2_K: sizeQ2_K, Q3_K: sizeQ3_K, IQ4_NL: sizeIQ4_NL, IQ4_XS: sizeIQ4_XS, MXFP4: sizeMXFP4,
	} {
		assert.Equal(t, typ.TypeSize(), size, "%s", typ)
	}
	for _, typ := range allTypes {
		assert.True(t, CanDequantize(typ))
	}
}
