package native

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// q8Types are the weight types with 8-bit activation kernels.
var q8Types = []ggml.DType{ggml.Q8_0, ggml.Q4_0, ggml.Q5_0, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K}

// quantizeQ8Scalar is the specification of quantizeQ8, written as the C
// library's generic quant_q8a and quant_q8K (float32 arithmetic, rounding
// to nearest with ties to even as lrintf does).
func quantizeQ8Scalar(elems, size int, x []float32) []byte {
	out := make([]byte, len(x)/elems*size)
	for b := range len(x) / elems {
		xb := x[b*elems : (b+1)*elems]
		y := out[b*size : (b+1)*size]
		var amax float32
		for _, v := range xb {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		var id, d float32
		if amax != 0 {
			id = 127 / amax
			d = amax / 127
			if size == sizeQ8K {
				d = 1 / id
			}
		}
		qs := y[8:]
		if size == sizeQ8K {
			qs = y[4:]
		}
		sum := 0
		for j, v := range xb {
			q := int(math.RoundToEven(float64(v * id)))
			q = max(-128, min(127, q))
			qs[j] = byte(int8(q))
			sum += q
			if size == sizeQ8K && j%16 == 15 {
				var s int
				for _, c := range qs[j-15 : j+1] {
					s += int(int8(c))
				}
				binary.LittleEndian.PutUint16(y[260+2*(j/16):], uint16(int16(s)))
			}
		}
		binary.LittleEndian.PutUint32(y, math.Float32bits(d))
		if size == sizeQ8a {
			binary.LittleEndian.PutUint32(y[4:], math.Float32bits(d*float32(sum)))
		}
	}
	return out
}

// dequantizeQ8 returns the values d*q that 8-bit activation blocks hold.
func dequantizeQ8(elems, size int, xq []byte) []float32 {
	var out []float32
	for b := 0; b+size <= len(xq); b += size {
		d := math.Float32frombits(binary.LittleEndian.Uint32(xq[b:]))
		qs := xq[b+8 : b+8+elems]
		if size == sizeQ8K {
			qs = xq[b+4 : b+4+elems]
		}
		for _, q := range qs {
			out = append(out, d*float32(int8(q)))
		}
	}
	return out
}

// TestQuantizeQ8MatchesScalar checks the activation quantizers bit for bit
// against their scalar specification, all-zero blocks included, and the
// q8a quants flipped by 0x80 for the gemm kernels.
func TestQuantizeQ8MatchesScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_K} {
		elems, size, ok := q8Layout(typ)
		if !ok {
			t.Skip("no 8-bit activation kernels on this CPU")
		}
		for _, nb := range []int{1, 2, 3, 5, 17} {
			x := randFloats(r, nb*elems, 3)
			for i := range elems { // one all-zero block
				x[i] = 0
			}
			if nb > 1 {
				x[elems] = -7.5 // a negative maximum
			}
			got := make([]byte, nb*size)
			quantizeQ8(typ, got, misalignF(x))
			want := quantizeQ8Scalar(elems, size, x)
			require.Equal(t, want, got, "%s, %d blocks", typ, nb)
			if typ == ggml.Q8_0 { // and flipped: each quant XORed with 0x80, d and s as they were
				quantQ8aSIMD(&got[0], &misalignF(x)[0], nb, 0x80)
				for i := range want {
					if i%sizeQ8a >= 8 {
						want[i] ^= 0x80
					}
				}
				require.Equal(t, want, got, "flipped, %d blocks", nb)
			}
		}
	}
}

// TestDotRowQ8MatchesGgml checks the 8-bit activation kernels against
// ggml.Dot (the pure-Go reference) of the weight row and the dequantized
// activations (ggml's vec_dot_q8 semantics: exact integer products of
// the quants, one float scale per block) over lengths and misaligned
// rows, and the quantization error against the float product.
func TestDotRowQ8MatchesGgml(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, typ := range q8Types {
		elems, size, ok := q8Layout(typ)
		if !ok {
			t.Skip("no 8-bit activation kernels on this CPU")
		}
		for _, n := range kernelLens(typ) {
			w := randWeight(t, r, typ, 1, n)
			x := randFloats(r, n, 2)
			xq := make([]byte, n/elems*size)
			quantizeQ8(typ, xq, x)
			xd := dequantizeQ8(elems, size, xq)
			deq := make([]float32, n)
			require.NoError(t, ggml.DequantizeRow(typ, w.Data, deq))
			var mag float64
			for i := range xd {
				mag += math.Abs(float64(deq[i]) * float64(xd[i]))
			}
			want := ggml.Dot(typ, w.Data, xd)
			for off := range 3 {
				got := dotRowQ8(typ, misalign(w.Data, off), misalign(xq, off), n/elems)
				require.InDelta(t, want, got, 1e-6*mag+1e-7, "%s n=%d offset %d", typ, n, off)
			}
			got := []float32{dotRowQ8(typ, w.Data, xq, n/elems)}
			e := dotErr(t, got, []float32{ggml.Dot(typ, w.Data, x)}, w, x, 1)
			require.LessOrEqual(t, e, matmulTol(typ), "%s n=%d: quantization error", typ, n)
		}
	}
}

// TestDotRowQ8Extremes checks that the int16 pair sums of the kernels do
// not saturate at the extreme quants a file may hold: Q8_0 weights of -128
// (ggml never writes them, a file may) against activations at ±max.
func TestDotRowQ8Extremes(t *testing.T) {
	elems, size, ok := q8Layout(ggml.Q8_0)
	if !ok {
		t.Skip("no 8-bit activation kernels on this CPU")
	}
	const nb = 3
	row := make([]byte, nb*sizeQ8_0)
	for b := range nb {
		binary.LittleEndian.PutUint16(row[b*sizeQ8_0:], ggml.F32ToF16(1))
		for j := range 32 {
			row[b*sizeQ8_0+2+j] = 0x80 // -128
		}
	}
	for _, v := range []float32{-1, 1} {
		x := make([]float32, nb*elems)
		for i := range x {
			x[i] = v
		}
		xq := make([]byte, nb*size)
		quantizeQ8(ggml.Q8_0, xq, x)
		// every activation is ±127 times d = 1/127: the sum is exactly ∓128 per element
		require.InEpsilon(t, -128*v*float32(nb*elems), dotRowQ8(ggml.Q8_0, row, xq, nb), 1e-6, "activations %v", v)
	}
}

// TestGoFloatMatMul checks that NewGoFloat's matrix-vector products
// multiply the float32 activations: ggml.Dot's results up to summation
// order, where NewGo's are off by the 8-bit rounding.
func TestGoFloatMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	g := NewGoFloat(2)
	defer g.Close()
	for _, typ := range q8Types {
		const rows, cols = 9, 512
		w := randWeight(t, r, typ, rows, cols)
		x := randFloats(r, 2*cols, 2)
		got := make([]float32, 2*rows)
		g.MatMul(got, w, x, 2)
		deq := make([]float32, rows*cols)
		require.NoError(t, ggml.Dequantize(typ, w.Data, deq))
		rs := w.RowBytes()
		for tk := range 2 {
			xt := x[tk*cols : (tk+1)*cols]
			for i := range rows {
				var mag float64
				for k, v := range deq[i*cols : (i+1)*cols] {
					mag += math.Abs(float64(v) * float64(xt[k]))
				}
				require.InDelta(t, ggml.Dot(typ, w.Data[i*rs:(i+1)*rs], xt), got[tk*rows+i], 1e-6*mag+1e-6, "%s token %d row %d", typ, tk, i)
			}
		}
	}
}

// TestRoundQ8MatchesQuantize checks that roundQ8 gives bit for bit the
// values of the blocks quantizeQ8 makes.
func TestRoundQ8MatchesQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, typ := range []ggml.DType{ggml.Q8_0, ggml.Q4_K} {
		elems, size, ok := q8Layout(typ)
		if !ok {
			t.Skip("no 8-bit activation kernels on this CPU")
		}
		for _, nb := range []int{1, 2, 5} {
			x := randFloats(r, nb*elems, 3)
			for i := range elems { // one all-zero block
				x[i] = 0
			}
			xq := make([]byte, nb*size)
			quantizeQ8(typ, xq, x)
			got := make([]float32, len(x))
			roundQ8(typ, got, misalignF(x))
			require.Equal(t, dequantizeQ8(elems, size, xq), got, "%s, %d blocks", typ, nb)
		}
	}
}
