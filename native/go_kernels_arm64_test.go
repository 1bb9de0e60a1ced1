//go:build arm64 && !purego

package native

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// The NEON kernels are checked through dispatch by the twin tests of
// go_kernels_test.go, go_q8_test.go and go_attend_test.go; the tests
// below add what those do not reach: quants at the extremes a file may
// hold (int16 partial sums must not wrap), rounding ties of the
// quantizers, the weighted sums called directly, and the float tiles'
// agreement bit for bit.

// q8Ref returns the dot product, in float64, of nb blocks of weight type
// t (dequantized by ggml) with nb 8-bit activation blocks as their values
// d*q, and Σ|w*x|.
func q8Ref(t *testing.T, typ ggml.DType, w, y []byte, nb int) (dot, mag float64) {
	elems, size, ok := q8Layout(typ)
	require.True(t, ok)
	deq := make([]float32, nb*elems)
	require.NoError(t, ggml.DequantizeRow(typ, w, deq))
	xd := dequantizeQ8(elems, size, y)
	for i := range deq {
		p := float64(deq[i]) * float64(xd[i])
		dot += p
		mag += math.Abs(p)
	}
	return dot, mag
}

// TestNEONQ8Extremes fills weight blocks with their largest and smallest
// quants (and scales) against activations of +127, -127 and -128 (which
// quantizeQ8 never writes, a crafted block may): the int16 steps of the
// 8-bit dots must hold them exactly.
func TestNEONQ8Extremes(t *testing.T) {
	forDotPaths(t, testQ8Extremes)
}

// forDotPaths runs test on the ARMv8.0 path of the 8-bit dots and, where
// the CPU has them, on the SDOT one.
func forDotPaths(t *testing.T, test func(t *testing.T)) {
	has := haveDotProd
	defer func() { haveDotProd = has }()
	haveDotProd = false
	t.Run("neon", test)
	if has {
		haveDotProd = true
		t.Run("sdot", test)
	} else {
		t.Log("CPU without the dot product extension: the SDOT path is not tested")
	}
}

func testQ8Extremes(t *testing.T) {
	const nb = 3
	for _, typ := range q8Types {
		elems, size, _ := q8Layout(typ)
		bs := typ.TypeSize()
		for _, fill := range []byte{0x00, 0xff, 0x80, 0x7f} {
			w := make([]byte, nb*bs)
			for i := range w {
				w[i] = fill
			}
			for b := range nb { // d (and dmin) of 1, the largest sub-block scales
				blk := w[b*bs:]
				switch typ {
				case ggml.Q6_K:
					binary.LittleEndian.PutUint16(blk[208:], ggml.F32ToF16(1))
					for j := 192; j < 208; j++ {
						blk[j] = 0x80 // -128
					}
				case ggml.Q4_K, ggml.Q5_K:
					binary.LittleEndian.PutUint16(blk, ggml.F32ToF16(1))
					binary.LittleEndian.PutUint16(blk[2:], ggml.F32ToF16(0.5))
					for j := 4; j < 16; j++ {
						blk[j] = 0xff // scales and mins of 63
					}
				default:
					binary.LittleEndian.PutUint16(blk, ggml.F32ToF16(1))
				}
			}
			for _, q := range []int8{127, -127, -128} {
				y := make([]byte, nb*size)
				for b := range nb {
					blk := y[b*size:]
					binary.LittleEndian.PutUint32(blk, math.Float32bits(1.0/128))
					qs := blk[8 : 8+elems]
					if size == sizeQ8K {
						qs = blk[4 : 4+elems]
						for j := range 16 {
							binary.LittleEndian.PutUint16(blk[260+2*j:], uint16(int16(16*int(q))))
						}
					} else {
						binary.LittleEndian.PutUint32(blk[4:], math.Float32bits(float32(elems*int(q))/128))
					}
					for j := range qs {
						qs[j] = byte(q)
					}
				}
				want, mag := q8Ref(t, typ, w, y, nb)
				got := dotRowQ8(typ, w, y, nb)
				require.InDelta(t, want, got, 1e-6*mag+1e-6, "%s fill %#x, activations %d", typ, fill, q)
			}
		}
	}
}

// TestNEONQ8Paths checks the 8-bit dots of both paths against the float64
// product of the blocks' values on random rows of 1 to 17 blocks; the
// K-quant kernels sum each super-block's integers exactly before any
// float, so their two paths agree bit for bit.
func TestNEONQ8Paths(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	type row struct {
		typ  ggml.DType
		w, y []byte
		nb   int
	}
	var rows []row
	for _, typ := range q8Types {
		elems, size, _ := q8Layout(typ)
		for _, nb := range []int{1, 2, 3, 17} {
			w := randWeight(t, r, typ, 1, nb*elems)
			y := make([]byte, nb*size)
			quantizeQ8(typ, y, randFloats(r, nb*elems, 3))
			rows = append(rows, row{typ, w.Data, y, nb})
		}
	}
	results := map[bool][]float32{}
	forDotPaths(t, func(t *testing.T) {
		for _, rw := range rows {
			want, mag := q8Ref(t, rw.typ, rw.w, rw.y, rw.nb)
			got := dotRowQ8(rw.typ, misalign(rw.w, 1), rw.y, rw.nb)
			require.InDelta(t, want, got, 1e-6*mag+1e-7, "%s, %d blocks", rw.typ, rw.nb)
			results[haveDotProd] = append(results[haveDotProd], got)
		}
	})
	if sd, ok := results[true]; ok {
		for i, rw := range rows {
			if rw.typ.BlockSize() == qkk {
				require.Equal(t, results[false][i], sd[i], "%s, %d blocks: paths differ", rw.typ, rw.nb)
			}
		}
	}
}

// TestNEONQ8Ties checks that the quantizers round x*127/max|x| half-way
// cases to even, as the scalar specification does, with -0, tiny values
// beside large ones and a block of tiny values. (Blocks whose max|x| is
// below 127/MaxFloat32 are left out: their 127/max|x| is +Inf, which the
// specification's int conversion and the amd64 kernels already treat
// differently.)
func TestNEONQ8Ties(t *testing.T) {
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_K} {
		elems, size, _ := q8Layout(typ)
		x := make([]float32, 2*elems)
		x[0] = 127 // the scale is then 1: x*127/127 = x
		ties := []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -126.5, float32(math.Copysign(0, -1)), 1e-30}
		for i, v := range ties {
			x[1+i] = v
		}
		for i := elems; i < 2*elems; i++ { // a block of tiny values
			x[i] = float32(i-elems-elems/2) * 1e-30
		}
		got := make([]byte, 2*size)
		quantizeQ8(typ, got, x)
		require.Equal(t, quantizeQ8Scalar(elems, size, x), got, "%s", typ)
		r := make([]float32, len(x))
		roundQ8(typ, r, x)
		require.Equal(t, dequantizeQ8(elems, size, got), r, "%s: roundQ8", typ)
	}
}

// TestNEONTilesAgree checks that the 1-row and 2-row float tiles give a
// row the same sums bit for bit (MatMul's results must not depend on how
// rows are grouped), and that the float dot of a row matches them up to
// rounding.
func TestNEONTilesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{8, 16, 24, 40, 256, 1000} {
		m := n &^ 7
		w := randFloats(r, 2*n, 1)
		x := randFloats(r, 4*n, 1)
		var pair [8]float32
		dotF32r2x4SIMD(&w[0], 4*n, &x[0], 4*n, m, &pair[0])
		for row := range 2 {
			var one [4]float32
			dotF32x4SIMD(&w[row*n], &x[0], 4*n, m, &one[0])
			require.Equal(t, pair[4*row:4*row+4], one[:], "n=%d row %d", n, row)
			for tk := range 4 {
				d := dotF32SIMD(&w[row*n], &x[tk*n], m)
				require.InDelta(t, one[tk], d, 1e-5*float64(n), "n=%d row %d token %d", n, row, tk)
			}
		}
	}
}

// TestNEONHalfConversions checks the binary16 and bfloat16 conversions on
// every bit pattern (subnormals, infinities, NaNs included) against
// ggml's.
func TestNEONHalfConversions(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 2*len(src))
	got := make([]float32, len(src))
	cvtF16SIMD(&got[0], &b[0], len(src))
	for i, h := range src {
		want := ggml.F16ToF32(h)
		if want != want { // NaN: any NaN
			require.True(t, got[i] != got[i], "f16 %#04x", h)
			continue
		}
		require.Equal(t, math.Float32bits(want), math.Float32bits(got[i]), "f16 %#04x", h)
	}
	cvtBF16SIMD(&got[0], &b[0], len(src))
	for i, h := range src {
		require.Equal(t, math.Float32bits(ggml.BF16ToF32(h)), math.Float32bits(got[i]), "bf16 %#04x", h)
	}
}
