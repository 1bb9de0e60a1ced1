package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestGoPanels covers the panel path's edges on float weights: row counts
// around the 16-row panel, columns that are not a multiple of the 8-column
// transpose, and batches that leave a partial 6-token tile (and, with
// AVX-512, whole and partial 12-token tiles and an odd last panel); each product
// against ggml.Dot within its rounding.
func TestGoPanels(t *testing.T) {
	if !havePanels {
		t.Skip("no panel kernels on this CPU (they need AVX2)")
	}
	r := rand.New(rand.NewPCG(31, 32))
	g := NewGo(2)
	defer g.Close()
	for _, avx2 := range []bool{false, true} {
		if avx2 && !havePanels512 {
			break // the AVX2 kernel was the only one
		}
		g.noPanels512 = avx2
		testGoPanels(t, r, g)
	}
}

func testGoPanels(t *testing.T, r *rand.Rand, g *Go) {
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16} {
		for _, rows := range []int{1, 15, 16, 17, 35} {
			for _, cols := range []int{5, 8, 13, 40} {
				w := randWeight(t, r, typ, rows, cols)
				rs := w.RowBytes()
				for _, ntok := range []int{panelMinTokens, 9, 14, 25} {
					x := randFloats(r, ntok*cols, 2)
					got := make([]float32, ntok*rows)
					g.MatMul(got, w, x, ntok)
					for tk := range ntok {
						xt := x[tk*cols : (tk+1)*cols]
						for i := range rows {
							row := w.Data[i*rs : (i+1)*rs]
							deq := make([]float32, cols)
							require.NoError(t, ggml.DequantizeRow(typ, row, deq))
							var mag float64
							for k, v := range deq {
								mag += math.Abs(float64(v) * float64(xt[k]))
							}
							require.InDelta(t, ggml.Dot(typ, row, xt), got[tk*rows+i], 1e-6*mag+1e-6,
								fmt.Sprintf("%s %d×%d, %d tokens (AVX2 only: %v): token %d row %d", typ, rows, cols, ntok, g.noPanels512, tk, i))
						}
					}
				}
			}
		}
	}
}

// TestTranspose8 checks the panel transpose against its definition.
func TestTranspose8(t *testing.T) {
	if !havePanels {
		t.Skip("no panel kernels on this CPU (they need AVX2)")
	}
	const cols, n = 27, 24
	src := make([]float32, 8*cols)
	for i := range src {
		src[i] = float32(i)
	}
	dst := make([]float32, panelRows*n)
	transpose8SIMD(&dst[0], &src[0], 4*cols, n)
	for k := range n {
		for r := range 8 {
			require.Equal(t, src[r*cols+k], dst[k*panelRows+r], "column %d row %d", k, r)
		}
		for r := 8; r < panelRows; r++ {
			require.Zero(t, dst[k*panelRows+r], "column %d row %d is the other half's", k, r)
		}
	}
}
