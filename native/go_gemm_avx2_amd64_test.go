//go:build amd64 && !purego

package native

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestILRowsAVX2 checks the AVX2 interleaved decode kernels (the Go
// backend's on CPUs without AVX-512 VNNI) against the row-major row
// kernels over the same q8a or q8K activations, and against the VNNI ones
// where the CPU has them: sums of the same products in another order.
func TestILRowsAVX2(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	// the row-major row kernel and the VNNI one of each type
	others := map[ggml.DType][2]any{
		ggml.Q4_0:   {dotRowsQ4_0Q8SIMD, ilRowsQ4_0},
		ggml.Q5_0:   {dotRowsQ5_0Q8SIMD, ilRowsQ5_0},
		ggml.Q8_0:   {dotRowsQ8_0Q8SIMD, ilRowsQ8_0},
		ggml.Q4_K:   {dotRowsQ4KQ8KSIMD, ilRowsQ4K},
		ggml.Q5_K:   {dotRowsQ5KQ8KSIMD, ilRowsQ5K},
		ggml.IQ4_XS: {dotRowsIQ4XSQ8KSIMD, ilRowsIQ4XS},
		ggml.Q3_K:   {dotRowsQ3KQ8KSIMD, ilRowsQ3K},
		ggml.Q6_K:   {dotRowsQ6KQ8KSIMD, ilRowsQ6K},
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q5_0, ggml.Q8_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS} {
		k, ok := avx2ILKernel(typ)
		require.True(t, ok, typ.String())
		il := k.rows
		rowsK := others[typ][0].(func(w *byte, rs, nrows int, y *byte, nb int, out *float32))
		vnniK := others[typ][1].(func(w *byte, ng, nb int, y *byte, out *float32))
		elems, size, _ := q8Layout(typ)
		for _, shape := range [][2]int{{16, 256}, {32, 512}, {48, 2304}, {16, 2048}} {
			rows, cols := shape[0], shape[1]
			nb := cols / elems
			w := randWeight(t, r, typ, rows, cols)
			if typ == ggml.Q8_0 {
				q8Extremes(w)
			}
			iw, err := Interleave16(Weight{Type: typ, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
			require.NoError(t, err)
			x := randFloats(r, cols, 3)
			xq := make([]byte, nb*size)
			quantizeQ8(typ, xq, x)
			want := make([]float32, rows)
			rowsK(&w.Data[0], w.RowBytes(), rows, &xq[0], nb, &want[0])
			got := make([]float32, rows)
			il(&iw.Data[0], rows/ilRows, nb, &xq[0], &got[0])
			name := fmt.Sprintf("%s %d×%d", typ, rows, cols)
			// (each kernel sums d·Σu·y and the offset's d·s_y apart, which
			// cancel, in its own order: 1e-4 of a result is their rounding)
			assertClose(t, want, got, 1e-4, name)
			if haveVNNI {
				vnni := make([]float32, rows)
				vnniK(&iw.Data[0], rows/ilRows, nb, &xq[0], &vnni[0])
				assertClose(t, vnni, got, 1e-4, name+" against VNNI")
			}
		}
	}
}

// TestGemmILAVX2 checks the AVX2 batch path of interleaved weights: the
// packs of a group (avx2ILKernel's packers) byte for byte
// against the packs of the same rows row-major (packRowsGo, which
// TestGemmAVX2 holds to the float64 product), and for the q8a types the
// gemm kernel against the decode kernel token by token over the same
// activations, and the packs against the VNNI packer's where the CPU has
// it (for Q8_0 the quants and scales: the signed kernel reads nothing
// else).
func TestGemmILAVX2(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(23, 24))
	const tokens = 4
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q5_0, ggml.Q8_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS} {
		k, _ := avx2ILKernel(typ)
		avx2Pack := k.pack
		signed := signedQuants(typ) // the signed kernel's activations are not flipped
		for _, cols := range []int{256, 2048} {
			rows, nb, per := ilRows, cols/qk, typ.BlockSize()/qk
			w := randWeight(t, r, typ, rows, cols)
			if typ == ggml.Q8_0 {
				q8Extremes(w)
			}
			il, err := Interleave16(Weight{Type: typ, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
			require.NoError(t, err)
			name := fmt.Sprintf("%s 16×%d", typ, cols)
			p := make([]byte, nb*gemmPackSize)
			avx2Pack(&p[0], &il.Data[0], nb/per)
			// (a prefill packs every group of every weight: no garbage)
			require.Zero(t, testing.AllocsPerRun(5, func() { avx2Pack(&p[0], &il.Data[0], nb/per) }), "%s: packing allocates", name)
			rowPacks := make([]byte, nb*gemmPackSize)
			packRowsGo(typ, rowPacks, w.Data, w.RowBytes(), rows, nb)
			for i := range nb {
				a, b := rowPacks[i*gemmPackSize:(i+1)*gemmPackSize], p[i*gemmPackSize:(i+1)*gemmPackSize]
				if signed {
					a, b = a[:576], b[:576] // quants and d
				}
				require.True(t, bytes.Equal(a, b), "%s: block column %d: the interleaved group's packs differ from its rows'", name, i)
			}
			if typ.BlockSize() != qk {
				continue // (K-quant decode takes q8K blocks, the gemm q8a)
			}
			x := randFloats(r, tokens*cols, 2)
			xq := make([]byte, tokens*nb*sizeQ8a)
			xg := make([]byte, tokens*nb*sizeQ8a)
			want := make([]float32, tokens*rows)
			for tk := range tokens {
				quantizeQ8(typ, xq[tk*nb*sizeQ8a:(tk+1)*nb*sizeQ8a], x[tk*cols:(tk+1)*cols])
				quantizeGemm(xg[tk*nb*sizeQ8a:(tk+1)*nb*sizeQ8a], x[tk*cols:(tk+1)*cols], !signed)
				k.rows(&il.Data[0], 1, nb, &xq[tk*nb*sizeQ8a], &want[tk*rows])
			}
			got := make([]float32, tokens*rows)
			avx2GemmOf(typ).kernel(&p[0], nb, &xg[0], nb*sizeQ8a, &got[0], 4*rows, 1<<rows-1)
			// (the decode kernels sum u·y and the offset apart, which cancel:
			// their rounding is the looser one)
			assertClose(t, want, got, 1e-4, name)
			if haveVNNI {
				vnniPack := map[ggml.DType]func(dst, w *byte, nb int){ggml.Q4_0: packILQ4_0, ggml.Q5_0: packILQ5_0, ggml.Q8_0: packILQ8_0}[typ]
				pv := make([]byte, nb*gemmPackSize)
				vnniPack(&pv[0], &il.Data[0], nb)
				for i := range nb {
					a, b := pv[i*gemmPackSize:(i+1)*gemmPackSize], p[i*gemmPackSize:(i+1)*gemmPackSize]
					if signed {
						a, b = a[:576], b[:576] // quants and d
					}
					require.True(t, bytes.Equal(a, b), "%s: block column %d: the AVX2 packs differ from the VNNI packer's", name, i)
				}
			}
		}
	}
}

// TestGemmAVX2 checks the AVX2 gemm of row-major weights: the Go packs
// (packRowsGo) byte for byte against the VNNI packers where the CPU has
// them, and each AVX2 kernel against the float64 product of the packed
// values (the weights' dequantized values, as the packs hold them) with the
// q8a-rounded activations.
func TestGemmAVX2(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	vnniPack := map[ggml.DType]func(dst, w *byte, rs, nr, nb int){
		ggml.Q4_0: packQ4_0, ggml.Q5_0: packQ5_0, ggml.Q4_K: packQ4K, ggml.Q5_K: packQ5K, ggml.Q6_K: packQ6K, ggml.Q3_K: packQ3K,
	}
	kernels := map[ggml.DType]gemmKernel{
		ggml.Q4_0: gemmPlainAVX2, ggml.Q5_0: gemmPlain4AVX2, ggml.Q4_K: gemmBias4AVX2, ggml.Q5_K: gemmBias4AVX2,
		ggml.Q6_K: gemmSplit2AVX2, ggml.Q3_K: gemmSplit4AVX2, ggml.Q8_0: gemmSignedAVX2, ggml.IQ4_NL: gemmSignedAVX2, ggml.IQ4_XS: gemmSignedAVX2,
	}
	r := rand.New(rand.NewPCG(25, 26))
	const tokens = 4
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q5_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_0, ggml.IQ4_NL, ggml.IQ4_XS} {
		signed := signedQuants(typ) // the signed kernel's activations are not flipped
		for _, shape := range [][3]int{{16, 256, 0}, {11, 512, 0}, {16, 256, 1}} {
			rows, cols, extreme := shape[0], shape[1], shape[2] == 1
			nb := cols / qk
			w := randWeight(t, r, typ, rows, cols)
			name := fmt.Sprintf("%s %d×%d", typ, rows, cols)
			if extreme {
				// the largest packed quants against activations of 127
				// (flipped: 255): one more chunk's products summed as
				// int16 than the kernel's bound would wrap
				w = extremeWeight(typ, rows, cols)
				name += " (extreme quants)"
			}
			p := make([]byte, nb*gemmPackSize)
			packRowsGo(typ, p, w.Data, w.RowBytes(), rows, nb)
			if rows == gemmRows && typ != ggml.Q4_0 && typ != ggml.Q5_0 {
				// the assembly packers (and Go scales) against the
				// scalar one, in the bytes their kernel reads: the
				// signed kernel quants and d; the others all (d2 and b
				// where the scalar packer has 0 for them)
				ps := make([]byte, nb*gemmPackSize)
				packRowsScalar(typ, ps, w.Data, w.RowBytes(), rows, nb)
				for i := range nb {
					at, n := i*gemmPackSize, gemmPackSize
					if signed {
						n = 576
					}
					require.Equal(t, ps[at:at+n], p[at:at+n], "%s: block column %d", name, i)
				}
			}
			if vnniPack[typ] != nil && haveVNNI && typ != ggml.Q5_K { // (Q5_K's AVX2 packs are offset by -16)
				pv := make([]byte, nb*gemmPackSize)
				vnniPack[typ](&pv[0], &w.Data[0], w.RowBytes(), rows, cols/typ.BlockSize())
				require.True(t, bytes.Equal(pv, p), "%s: the Go packs differ from the VNNI packer's", name)
			}
			x := randFloats(r, tokens*cols, 2)
			if extreme {
				for i := range x {
					x[i] = 1
				}
			}
			xg := make([]byte, tokens*nb*sizeQ8a)
			for tk := range tokens {
				quantizeGemm(xg[tk*nb*sizeQ8a:(tk+1)*nb*sizeQ8a], x[tk*cols:(tk+1)*cols], !signed)
			}
			got := make([]float32, tokens*ilRows)
			kernels[typ](&p[0], nb, &xg[0], nb*sizeQ8a, &got[0], 4*ilRows, 1<<ilRows-1)
			want := q8aProduct(t, w, x, tokens)
			for tk := range tokens {
				assertClose(t, want[tk*rows:(tk+1)*rows], got[tk*ilRows:tk*ilRows+rows], 1e-4, fmt.Sprintf("%s token %d", name, tk))
			}
		}
	}
}

// q8Extremes sets the quants of the first block of every row of the Q8_0
// weight w to -128, their largest magnitude, keeping its scale.
func q8Extremes(w Weight) {
	rs := w.RowBytes()
	for r := range w.Rows {
		for i := 2; i < 2+qk; i++ {
			w.Data[r*rs+i] = 0x80
		}
	}
}

// extremeWeight returns rows×cols weights of type t whose packed quants all
// have the type's largest magnitude (Q4_0 -8, Q5_0 -16, Q3_K -4, Q4_K 15,
// Q5_K -16, Q6_K -32, Q8_0 -128, IQ4_NL and IQ4_XS the level -127), scales
// 1 (IQ4_XS: ls-32 = 31; Q3_K: 31) and no mins.
func extremeWeight(t ggml.DType, rows, cols int) Weight {
	rs, _ := t.RowSize(cols)
	data := make([]byte, rows*rs)
	one := []byte{0x00, 0x3c} // F16 1.0
	bs := t.TypeSize()
	for b := 0; b < len(data); b += bs {
		blk := data[b : b+bs]
		switch t {
		case ggml.Q4_0, ggml.Q5_0: // zero quants (and qh): u = 0
			copy(blk, one)
		case ggml.Q4_K, ggml.Q5_K: // d 1, dmin 0, scales 1; Q4_K's quants all ones, Q5_K's zero (u-16 = -16)
			copy(blk, one)
			for i := 4; i < 12; i++ {
				blk[i] = 1
			}
			for i := 16; i < bs && t == ggml.Q4_K; i++ {
				blk[i] = 0xff
			}
		case ggml.Q3_K: // zero qs and hmask: u = 0 (-4); scales 63 (sc-32 = 31), d 1
			for i := 96; i < 108; i++ {
				blk[i] = 0xff
			}
			copy(blk[108:], one)
		case ggml.Q6_K: // zero quants: u = 0; scales 1, d 1
			for i := 192; i < 208; i++ {
				blk[i] = 1
			}
			copy(blk[208:], one)
		case ggml.Q8_0: // quants -128
			copy(blk, one)
			for i := 2; i < bs; i++ {
				blk[i] = 0x80
			}
		case ggml.IQ4_NL: // zero nibbles: the level -127
			copy(blk, one)
		case ggml.IQ4_XS: // zero nibbles; scales 63 (scales_l 0xff, scales_h all ones)
			copy(blk, one)
			blk[2], blk[3] = 0xff, 0xff
			for i := 4; i < 8; i++ {
				blk[i] = 0xff
			}
		}
	}
	return Weight{Type: t, Rows: rows, Cols: cols, Data: data}
}

// BenchmarkPackRowsGo times packRowsGo, the AVX2 gemm's per-call packing
// of 16 row-major rows, per type (llama3.2-1b's 2048-element rows).
func BenchmarkPackRowsGo(b *testing.B) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q5_0, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_0, ggml.IQ4_NL, ggml.IQ4_XS} {
		const rows, cols = gemmRows, 2048
		w := randWeight(b, r, typ, rows, cols)
		nb := cols / qk
		p := make([]byte, nb*gemmPackSize)
		b.Run(typ.String(), func(b *testing.B) {
			for b.Loop() {
				packRowsGo(typ, p, w.Data, w.RowBytes(), rows, nb)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nb), "ns/column")
		})
	}
}

// TestILFloatAVX2 checks the AVX2 kernels of interleaved F16 groups: the
// decode rows against the float64 products of the dequantized rows, and
// the float panels against their definition (element k of row r at
// 16k+r, exactly the F16 values), for column-pair counts even and odd.
func TestILFloatAVX2(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(27, 28))
	for _, shape := range [][2]int{{16, 2}, {16, 6}, {32, 64}, {48, 576}, {16, 2050}} {
		rows, cols := shape[0], shape[1]
		w := randWeight(t, r, ggml.F16, rows, cols)
		il, err := Interleave16(Weight{Type: ggml.F16, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
		require.NoError(t, err)
		x := randFloats(r, cols, 2)
		got := make([]float32, rows)
		ilRowsF16AVX2(&il.Data[0], rows/ilRows, cols/2, &x[0], &got[0])
		deq := make([]float32, cols)
		for i := range rows {
			require.NoError(t, ggml.DequantizeRow(ggml.F16, w.Data[i*2*cols:(i+1)*2*cols], deq))
			var want, mag float64
			for k, v := range deq {
				want += float64(v) * float64(x[k])
				mag += math.Abs(float64(v) * float64(x[k]))
			}
			require.InDelta(t, want, got[i], 1e-6*mag+1e-6, "F16 %d×%d row %d", rows, cols, i)
		}
		p := make([]float32, ilRows*cols)
		ilPanelF16AVX2(&p[0], &il.Data[0], cols/2)
		for i := range ilRows {
			require.NoError(t, ggml.DequantizeRow(ggml.F16, w.Data[i*2*cols:(i+1)*2*cols], deq))
			for k := range cols {
				require.Equal(t, deq[k], p[k*ilRows+i], "F16 panel %d×%d: row %d element %d", rows, cols, i, k)
			}
		}
	}
}
