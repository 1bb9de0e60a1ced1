package ggml

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lowbitTypes are the types whose references testdata/llamacpp holds,
// written by testdata/gen/quantref.c from llama.cpp's ggml_quantize_chunk
// and dequantize (see testdata/gen/gen.sh).
var lowbitTypes = []DType{Q2_K, Q3_K, IQ4_NL, IQ4_XS, MXFP4}

func readF32s(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Zero(t, len(b)%4, "%s: not a float32 file", path)
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

// TestDequantizeMatchesLlamaCpp: our dequantize of llama.cpp's own blocks
// is bit-identical to ggml's, and our quantize of the same input writes the
// same blocks.
func TestDequantizeMatchesLlamaCpp(t *testing.T) {
	dir := filepath.Join("testdata", "llamacpp")
	input := readF32s(t, filepath.Join(dir, "input.f32"))
	for _, typ := range lowbitTypes {
		name := map[DType]string{Q2_K: "q2_K", Q3_K: "q3_K", IQ4_NL: "iq4_nl", IQ4_XS: "iq4_xs", MXFP4: "mxfp4"}[typ]
		q, err := os.ReadFile(filepath.Join(dir, name+".q"))
		require.NoError(t, err)
		want := readF32s(t, filepath.Join(dir, name+".deq.f32"))
		require.Len(t, want, len(input))
		got := make([]float32, len(want))
		require.NoError(t, Dequantize(typ, q, got), "%s", typ)
		// Quantizing the input gives llama.cpp's very bytes.
		mine := make([]byte, len(q))
		require.NoError(t, Quantize(typ, input, mine), "%s", typ)
		if !assert.Equal(t, q, mine, "%s: Quantize differs from ggml_quantize_chunk", typ) {
			for i := range q {
				if q[i] != mine[i] {
					t.Logf("%s: first difference at byte %d (block %d)", typ, i, i/typ.TypeSize())
					break
				}
			}
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				require.Failf(t, "dequantize differs from ggml", "%s element %d: got %g, ggml %g", typ, i, got[i], want[i])
			}
		}
		// The quantization is a real one: within a few steps of the input.
		var se, sx float64
		for i := range input {
			d := float64(input[i] - got[i])
			se += d * d
			sx += float64(input[i]) * float64(input[i])
		}
		assert.Less(t, math.Sqrt(se/sx), 0.5, "%s: relative RMS error of llama.cpp's quantization", typ)
	}
}

// TestE8M0Half checks the MXFP4 scale against its definition 2^(e-128),
// subnormals included.
func TestE8M0Half(t *testing.T) {
	for e := 0; e < 256; e++ {
		assert.Equal(t, float32(math.Ldexp(1, e-128)), e8m0Half(byte(e)), "e=%d", e)
	}
}

// TestMXFP4Range: the largest code (±12, doubled ±6) under exponent 252 is
// finite, under 253 it overflows float32, as in ggml (the bound
// FuzzDequantize relies on).
func TestMXFP4Range(t *testing.T) {
	b := make([]byte, sizeMXFP4)
	b[1] = 0x7F // element 0: code 15 (-12), element 16: code 7 (+12)
	y := make([]float32, QK)
	b[0] = 252
	require.NoError(t, Dequantize(MXFP4, b, y))
	assert.Equal(t, float32(-1.5*math.Ldexp(1, 127)), y[0])
	assert.Equal(t, float32(1.5*math.Ldexp(1, 127)), y[16])
	b[0] = 253
	require.NoError(t, Dequantize(MXFP4, b, y))
	assert.True(t, math.IsInf(float64(y[16]), 1))
}
