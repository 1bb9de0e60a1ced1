package ggml

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testData returns n values of several shapes: Gaussian, uniform, heavy
// tailed with outliers, all-positive, constant and zero blocks.
func testData(seed uint64, n int) map[string][]float32 {
	rng := rand.New(rand.NewPCG(seed, 99))
	gen := func(f func(i int) float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(f(i))
		}
		return x
	}
	return map[string][]float32{
		"gauss":    gen(func(int) float64 { return rng.NormFloat64() * 0.02 }),
		"uniform":  gen(func(int) float64 { return rng.Float64()*8 - 3 }),
		"outliers": gen(func(int) float64 { v := rng.NormFloat64(); return v * v * v }),
		"positive": gen(func(int) float64 { return 1 + rng.Float64() }),
		"negative": gen(func(int) float64 { return -1 - rng.ExpFloat64() }),
		"cos":      gen(func(i int) float64 { return 0.1 + 2*math.Cos(float64(i)) }),
		"constant": gen(func(int) float64 { return 0.75 }),
		"zero":     gen(func(int) float64 { return 0 }),
		"mixed": gen(func(i int) float64 {
			if (i/256)%2 == 0 {
				return 0
			}
			return rng.NormFloat64()
		}),
	}
}

func roundTrip(t *testing.T, typ DType, x []float32) []float32 {
	t.Helper()
	size, err := typ.RowSize(len(x))
	require.NoError(t, err)
	q := make([]byte, size)
	require.NoError(t, Quantize(typ, x, q))
	y := make([]float32, len(x))
	require.NoError(t, Dequantize(typ, q, y))
	return y
}

// f16Eps is the relative rounding error of storing a scale as f16.
const f16Eps = 1.0 / 2048

// TestRoundTripLegacyBounds checks the per-element error bounds that follow
// from each legacy format's construction.
func TestRoundTripLegacyBounds(t *testing.T) {
	const n = 4096
	for name, x := range testData(1, n) {
		for _, typ := range []DType{Q8_0, Q4_0, Q4_1, Q5_0, Q5_1} {
			y := roundTrip(t, typ, x)
			for b := 0; b < n/QK; b++ {
				xb, yb := x[b*QK:(b+1)*QK], y[b*QK:(b+1)*QK]
				amax, mx := absMax(xb)
				lo, hi := minMax(xb)
				for j := range xb {
					err := math.Abs(float64(xb[j] - yb[j]))
					var bound float64
					switch typ {
					case Q8_0: // step amax/127, rounding half a step
						d := float64(amax) / 127
						bound = d/2 + 127*d*f16Eps
					case Q4_0, Q5_0: // step |max|/8 (/16); -max clamps one step short
						levels := 8.0
						if typ == Q5_0 {
							levels = 16
						}
						d := math.Abs(float64(mx)) / levels
						bound = d/2 + levels*d*f16Eps
						if float64(xb[j])*float64(mx) < 0 && math.Abs(float64(xb[j])) > (levels-0.5)*d {
							bound = d + levels*d*f16Eps
						}
					case Q4_1, Q5_1: // step (max-min)/15 (/31) from min
						levels := 15.0
						if typ == Q5_1 {
							levels = 31
						}
						d := float64(hi-lo) / levels
						bound = d/2 + levels*d*f16Eps + math.Abs(float64(lo))*f16Eps
					}
					if err > bound*1.0001+1e-30 {
						require.Failf(t, "error above bound", "%s %s block %d elem %d: x=%g y=%g err %g > %g",
							typ, name, b, j, xb[j], yb[j], err, bound)
					}
				}
			}
		}
	}
}

// TestRoundTripQ8KBound: Q8_K keeps a float32 scale, so the error is at most
// half a step of max/127.
func TestRoundTripQ8KBound(t *testing.T) {
	const n = 4096
	for name, x := range testData(2, n) {
		y := roundTrip(t, Q8_K, x)
		for b := 0; b < n/QKK; b++ {
			amax, _ := absMax(x[b*QKK : (b+1)*QKK])
			d := float64(amax) / 127
			for j := b * QKK; j < (b+1)*QKK; j++ {
				if math.Abs(float64(x[j]-y[j])) > d/2*1.0001 {
					require.Failf(t, "error above half a step", "%s elem %d: x=%g y=%g", name, j, x[j], y[j])
				}
			}
		}
	}
}

// kquantLevels decodes, for each element of K-quant data q, the step d·sc
// of its sub-block and whether its quant sits at an end of the range
// (clamped), from the block bytes.
func kquantLevels(typ DType, q []byte, n int) (step []float64, atEnd []bool) {
	step, atEnd = make([]float64, n), make([]bool, n)
	for b := 0; b < n/QKK; b++ {
		for e := 0; e < QKK; e++ {
			i := b*QKK + e
			switch typ {
			case Q4_K, Q5_K:
				size, nmax := sizeQ4_K, 15
				if typ == Q5_K {
					size, nmax = sizeQ5_K, 31
				}
				blk := q[b*size:]
				sc, _ := ScaleMinK4(e/32, (*[kScaleSize]byte)(blk[4:]))
				step[i] = float64(f16At(blk)) * float64(sc)
				g, l := e/64, e%32
				hi := e%64 >= 32
				var v int
				if typ == Q4_K {
					v = int(blk[offQ4KQs+32*g+l] & 0xF)
					if hi {
						v = int(blk[offQ4KQs+32*g+l] >> 4)
					}
				} else {
					v = int(blk[offQ5KQs+32*g+l] & 0xF)
					shift := uint(2 * g)
					if hi {
						v = int(blk[offQ5KQs+32*g+l] >> 4)
						shift++
					}
					v |= int(blk[offQ5KQh+l]>>shift&1) << 4
				}
				atEnd[i] = v == 0 || v == nmax
			case Q6_K:
				blk := q[b*sizeQ6_K:]
				step[i] = math.Abs(float64(f16At(blk[offQ6KD:])) * float64(int8(blk[offQ6KScales+e/16])))
				var y [QKK]float32
				dequantQ6_K(blk[:sizeQ6_K], y[:])
				v := math.Round(float64(y[e]) / float64(f16At(blk[offQ6KD:])*float32(int8(blk[offQ6KScales+e/16]))))
				atEnd[i] = v <= -32 || v >= 31
			}
		}
	}
	return step, atEnd
}

// TestRoundTripKQuants bounds the K-quant errors: every element whose quant
// is not clamped at an end of the range lies within half a step of its
// sub-block scale (proving the re-quantization against the stored scales),
// and the RMS error relative to the data's RMS stays below a per-type limit.
func TestRoundTripKQuants(t *testing.T) {
	const n = 8192
	relLimit := map[DType]float64{Q4_K: 0.09, Q5_K: 0.045, Q6_K: 0.025}
	for name, x := range testData(3, n) {
		for typ, lim := range relLimit {
			size, err := typ.RowSize(n)
			require.NoError(t, err)
			q := make([]byte, size)
			require.NoError(t, Quantize(typ, x, q))
			y := make([]float32, n)
			require.NoError(t, Dequantize(typ, q, y))
			step, atEnd := kquantLevels(typ, q, n)
			var se, sx float64
			clamped := 0
			for i := range x {
				e := float64(x[i] - y[i])
				se += e * e
				sx += float64(x[i]) * float64(x[i])
				if atEnd[i] {
					clamped++
					continue
				}
				if bound := step[i]/2*1.0001 + 1e-7*math.Abs(float64(x[i])); math.Abs(e) > bound {
					require.Failf(t, "error above half a step", "%s %s elem %d: x=%g y=%g step %g",
						typ, name, i, x[i], y[i], step[i])
				}
			}
			if sx > 0 && (name == "gauss" || name == "uniform" || name == "cos") {
				rel := math.Sqrt(se / sx)
				assert.Less(t, rel, lim, "%s %s relative RMS error", typ, name)
				t.Logf("%s %-8s relative RMS error %.4f (%d of %d at a range end)", typ, name, rel, clamped, n)
			}
			if name == "zero" {
				for _, v := range y {
					require.Zero(t, v)
				}
			}
		}
	}
}

// TestLlamaCppQuantizeFns reproduces llama.cpp's test-quantize-fns checks:
// on 0.1 + 2cos(i + offset) the total error sqrt(Σe²)/n stays under 0.002,
// and the dot product with other such data is within 0.02·n of the exact one.
func TestLlamaCppQuantizeFns(t *testing.T) {
	const n = 4 * 1024
	x := make([]float32, n)
	other := make([]float32, n)
	var exact float64
	for i := range x {
		x[i] = float32(0.1 + 2*math.Cos(float64(i)))
		other[i] = float32(0.1 + 2*math.Cos(float64(i)+1))
		exact += float64(x[i]) * float64(other[i])
	}
	for _, typ := range []DType{F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, Q8_K} {
		size, err := typ.RowSize(n)
		require.NoError(t, err)
		q := make([]byte, size)
		require.NoError(t, Quantize(typ, x, q))
		y := make([]float32, n)
		require.NoError(t, Dequantize(typ, q, y))
		var se float64
		for i := range x {
			e := float64(x[i] - y[i])
			se += e * e
		}
		total := math.Sqrt(se) / n
		assert.Less(t, total, 0.002, "%s total quantization error", typ)
		dot := float64(Dot(typ, q, other))
		assert.Less(t, math.Abs(dot-exact)/n, 0.02, "%s dot product error", typ)
	}
}

func TestQuantizeZeroAndConstantBlocks(t *testing.T) {
	for _, typ := range []DType{Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, Q8_K} {
		x := make([]float32, 256)
		y := roundTrip(t, typ, x)
		assert.Equal(t, x, y, "%s zeros", typ)
		for i := range x {
			x[i] = -2.5
		}
		y = roundTrip(t, typ, x)
		for i := range y {
			assert.InDelta(t, -2.5, y[i], 2.5*0.002, "%s constant elem %d", typ, i)
		}
	}
}

func TestQuantizeF16BF16Exact(t *testing.T) {
	x := []float32{0, 1, -1, 0.5, 65504, 0x1p-24, -3.140625, 1e-8}
	y := roundTrip(t, F16, x)
	assert.Equal(t, []float32{0, 1, -1, 0.5, 65504, 0x1p-24, -3.140625, 0}, y)
	x = []float32{0, 1, -1, 0.5, 3.140625, -1e30, 1.5e-40}
	y = roundTrip(t, BF16, x)
	for i := range x {
		assert.Equal(t, BF16ToF32(F32ToBF16(x[i])), y[i])
	}
	assert.Equal(t, x[:5], y[:5])
	y = roundTrip(t, F32, x)
	assert.Equal(t, x, y)
}

func TestNearestInt(t *testing.T) {
	for _, c := range []struct {
		f float32
		i int
	}{{0, 0}, {0.5, 0}, {1.5, 2}, {2.5, 2}, {-0.5, 0}, {-1.5, -2}, {-2.4, -2}, {3.6, 4}, {4194303, 4194303}, {-4194303, -4194303}} {
		assert.Equal(t, c.i, nearestInt(c.f), "nearestInt(%g)", c.f)
	}
}

func TestQuantizeErrors(t *testing.T) {
	x := make([]float32, 64)
	err := Quantize(Q4_K, x, make([]byte, 100))
	require.ErrorContains(t, err, "Q4_K: row of 64 elements is not a multiple of the block size 256")
	err = Quantize(Q8_0, x, make([]byte, 60))
	require.ErrorContains(t, err, "Q8_0: 64 elements take 68 bytes, got 60")
	err = Quantize(IQ2_XS, make([]float32, 256), make([]byte, 74))
	require.ErrorContains(t, err, "quantizing to IQ2_XS is not supported")
}
