package ggml_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

const modelDir = "../../../shared/testdata/models"

// openModel opens a stories260K fixture or skips the test if it is absent.
func openModel(t *testing.T, name string) *gguf.File {
	t.Helper()
	path := filepath.Join(modelDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("test model %s absent (%v); it lives in shared/testdata/models", path, err)
	}
	f, err := gguf.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// f32Tensor returns the named tensor of the F32 reference model as floats.
func f32Tensor(t *testing.T, f *gguf.File, name string) []float32 {
	t.Helper()
	ti, ok := f.Tensor(name)
	require.True(t, ok, "tensor %s missing from the F32 model", name)
	require.Equal(t, ggml.F32, ti.Type, "%s", name)
	out := make([]float32, ti.Elements())
	require.NoError(t, ggml.Dequantize(ggml.F32, f.TensorData(ti), out))
	return out
}

// TestRealModelsMatchF32 dequantizes every tensor of the llama.cpp-made
// F16, Q8_0 and Q4_0 copies of stories260K and compares it with the F32
// original within the error bound of its block format.
func TestRealModelsMatchF32(t *testing.T) {
	ref := openModel(t, "stories260K.gguf")
	for _, name := range []string{"stories260K-F16.gguf", "stories260K-Q8_0.gguf", "stories260K-Q4_0.gguf"} {
		t.Run(name, func(t *testing.T) {
			f := openModel(t, name)
			require.Len(t, f.Tensors, len(ref.Tensors))
			seen := map[ggml.DType]int{}
			for _, ti := range f.Tensors {
				want := f32Tensor(t, ref, ti.Name)
				got := make([]float32, ti.Elements())
				require.NoError(t, ggml.Dequantize(ti.Type, f.TensorData(ti), got), "%s", ti.Name)
				seen[ti.Type]++
				bs := ti.Type.BlockSize()
				for b := 0; b < len(want)/bs; b++ {
					w, g := want[b*bs:(b+1)*bs], got[b*bs:(b+1)*bs]
					var amax float64
					for _, v := range w {
						amax = math.Max(amax, math.Abs(float64(v)))
					}
					for j := range w {
						var bound float64
						switch ti.Type {
						case ggml.F32:
							bound = 0
						case ggml.F16: // half an ulp of 11 bits, or of the smallest subnormal
							bound = math.Max(math.Abs(float64(w[j]))/2048, 0x1p-25)
						case ggml.Q8_0: // half a step of amax/127 plus the f16 scale error
							bound = amax/127/2 + amax/2048
						case ggml.Q4_0: // one step of amax/8 at the clamped end
							bound = amax/8 + amax/2048
						default:
							t.Fatalf("%s: unexpected type %s", ti.Name, ti.Type)
						}
						if diff := math.Abs(float64(w[j] - g[j])); diff > bound {
							require.Failf(t, "error above the format's bound", "%s %s element %d: want %g got %g (|diff| %g > %g)",
								name, ti.Name, b*bs+j, w[j], g[j], diff, bound)
						}
					}
				}
			}
			t.Logf("%s: tensors per type %v", name, seen)
		})
	}
}

// TestQuantizeReproducesLlamaCpp quantizes the F32 tensors with Quantize and
// requires the very bytes llama-quantize wrote, for every tensor of the F16,
// Q8_0 and Q4_0 copies (whatever type llama.cpp chose for it).
func TestQuantizeReproducesLlamaCpp(t *testing.T) {
	ref := openModel(t, "stories260K.gguf")
	for _, name := range []string{"stories260K-F16.gguf", "stories260K-Q8_0.gguf", "stories260K-Q4_0.gguf"} {
		f := openModel(t, name)
		counts := map[ggml.DType]int{}
		for _, ti := range f.Tensors {
			src := f32Tensor(t, ref, ti.Name)
			want := f.TensorData(ti)
			got := make([]byte, len(want))
			require.NoError(t, ggml.Quantize(ti.Type, src, got), "%s %s", name, ti.Name)
			if !assert.Equal(t, want, got, "%s: %s (%s) differs from llama.cpp's bytes", name, ti.Name, ti.Type) {
				continue
			}
			counts[ti.Type]++
		}
		t.Logf("%s: identical tensors per type %v", name, counts)
		if name == "stories260K-Q8_0.gguf" {
			assert.Equal(t, 32, counts[ggml.Q8_0], "Q8_0 tensors reproduced")
		}
		if name == "stories260K-Q4_0.gguf" {
			assert.Equal(t, 31, counts[ggml.Q4_0], "Q4_0 tensors reproduced")
		}
	}
}

// TestDotOnRealWeights checks Dot on the Q8_0 model's weights against the
// float64 dot product of the dequantized rows.
func TestDotOnRealWeights(t *testing.T) {
	f := openModel(t, "stories260K-Q8_0.gguf")
	ti, ok := f.Tensor("blk.0.attn_q.weight")
	require.True(t, ok)
	cols := int(ti.Dims[0])
	x := make([]float32, cols)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	data := f.TensorData(ti)
	out := make([]float32, ti.Rows())
	require.NoError(t, ggml.MatVec(ti.Type, data, x, out))
	rs, err := ti.Type.RowSize(cols)
	require.NoError(t, err)
	w := make([]float32, cols)
	for r := range out {
		require.NoError(t, ggml.DequantizeRow(ti.Type, data[r*rs:], w))
		var want float64
		for i := range w {
			want += float64(w[i]) * float64(x[i])
		}
		assert.InDelta(t, want, float64(out[r]), 1e-5, "row %d", r)
	}
}
