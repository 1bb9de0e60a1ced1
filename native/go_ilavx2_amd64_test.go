//go:build amd64 && !purego

package native

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestILRowsQ4_0AVX2 checks the AVX2 interleaved Q4_0 decode kernel (the
// Go backend's on CPUs without AVX-512 VNNI) against the row-major row
// kernel over the same q8a activations, and against the VNNI one where
// the CPU has it: sums of the same products in another order.
func TestILRowsQ4_0AVX2(t *testing.T) {
	if !haveLowBitRows {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, shape := range [][2]int{{16, 32}, {32, 64}, {48, 576}, {16, 2048}} {
		rows, cols := shape[0], shape[1]
		nb := cols / qk
		w := randWeight(t, r, ggml.Q4_0, rows, cols)
		il, err := Interleave16(Weight{Type: ggml.Q4_0, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
		require.NoError(t, err)
		x := randFloats(r, cols, 3)
		xq := make([]byte, nb*sizeQ8a)
		quantizeQ8(ggml.Q4_0, xq, x)
		want := make([]float32, rows)
		dotRowsQ4_0Q8SIMD(&w.Data[0], w.RowBytes(), rows, &xq[0], nb, &want[0])
		got := make([]float32, rows)
		ilRowsQ4_0AVX2(&il.Data[0], rows/ilRows, nb, &xq[0], &got[0])
		name := fmt.Sprintf("%d×%d", rows, cols)
		assertClose(t, want, got, 1e-5, name)
		if haveVNNI {
			vnni := make([]float32, rows)
			ilRowsQ4_0(&il.Data[0], rows/ilRows, nb, &xq[0], &vnni[0])
			assertClose(t, vnni, got, 1e-5, name+" against VNNI")
		}
	}
}

// TestGemmPlainAVX2 checks the AVX2 batch kernel of interleaved Q4_0 (Go
// packs, gemmPlainAVX2) against the decode kernel token by token over the
// same activations, and against the VNNI packer and kernel where the CPU
// has them.
func TestGemmPlainAVX2(t *testing.T) {
	if !haveLowBitRows {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(23, 24))
	const tokens = 4
	for _, cols := range []int{32, 256, 2048} {
		rows, nb := ilRows, cols/qk
		w := randWeight(t, r, ggml.Q4_0, rows, cols)
		il, err := Interleave16(Weight{Type: ggml.Q4_0, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
		require.NoError(t, err)
		x := randFloats(r, tokens*cols, 2)
		xq := make([]byte, tokens*nb*sizeQ8a)
		xg := make([]byte, tokens*nb*sizeQ8a)
		want := make([]float32, tokens*rows)
		for tk := range tokens {
			quantizeQ8(ggml.Q4_0, xq[tk*nb*sizeQ8a:(tk+1)*nb*sizeQ8a], x[tk*cols:(tk+1)*cols])
			quantizeGemm(xg[tk*nb*sizeQ8a:(tk+1)*nb*sizeQ8a], x[tk*cols:(tk+1)*cols])
			ilRowsQ4_0AVX2(&il.Data[0], 1, nb, &xq[tk*nb*sizeQ8a], &want[tk*rows])
		}
		p := make([]byte, nb*gemmPackSize)
		packILQ4_0Go(&p[0], &il.Data[0], nb)
		got := make([]float32, tokens*rows)
		gemmPlainAVX2(&p[0], nb, &xg[0], nb*sizeQ8a, &got[0], 4*rows, 1<<rows-1)
		name := fmt.Sprintf("16×%d", cols)
		// (the decode kernel sums u·y and the -8 offset apart, which cancel:
		// its rounding is the looser one)
		assertClose(t, want, got, 1e-4, name)
		if haveVNNI {
			pv := make([]byte, nb*gemmPackSize)
			packILQ4_0(&pv[0], &il.Data[0], nb)
			require.Equal(t, pv, p, "%s: the Go packs equal the VNNI packer's", name)
			vnni := make([]float32, tokens*rows)
			gemmPlain(&pv[0], nb, &xg[0], nb*sizeQ8a, &vnni[0], 4*rows, 1<<rows-1)
			assertClose(t, vnni, got, 1e-5, name+" against VNNI")
		}
	}
}
