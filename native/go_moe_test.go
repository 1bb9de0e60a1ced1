package native

import (
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupedCase is the experts of a mixture and the rows routed to each:
// empty groups, decode's single rows and prefill batches past the 4-row
// tile and batch-kernel thresholds.
func groupedCase(t *testing.T, r *rand.Rand, typ ggml.DType, rows, cols int, groups []int) ([]Weight, []float32) {
	t.Helper()
	ws := make([]Weight, len(groups))
	n := 0
	for e := range ws {
		ws[e] = randWeight(t, r, typ, rows, cols)
		n += groups[e]
	}
	return ws, randFloats(r, n*cols, 2)
}

// perGroup is the loop MatMulGrouped replaces: b.MatMul for each weight on
// its rows.
func perGroup(b Backend, ws []Weight, x []float32, groups []int) []float32 {
	rows, cols, o := ws[0].Rows, ws[0].Cols, 0
	n := 0
	for _, g := range groups {
		n += g
	}
	out := make([]float32, n*rows)
	for e, g := range groups {
		b.MatMul(out[o*rows:(o+g)*rows], ws[e], x[o*cols:(o+g)*cols], g)
		o += g
	}
	return out
}

var groupedShapes = [][]int{
	{1, 0, 1, 1, 0, 0, 1}, // decode: a row for each chosen expert
	{0, 3, 5, 0, 1, 9, 2, 0},
	{0, 0, 0},
}

func TestGoMatMulGrouped(t *testing.T) {
	g := NewGo(2)
	defer g.Close()
	r := rand.New(rand.NewPCG(16, 1))
	for _, typ := range []ggml.DType{ggml.F32, ggml.Q8_0, ggml.Q4_K} {
		for _, groups := range groupedShapes {
			ws, x := groupedCase(t, r, typ, 19, 256, groups)
			want := perGroup(g, ws, x, groups)
			got := make([]float32, len(want))
			g.MatMulGrouped(got, ws, x, groups)
			require.Equal(t, want, got, "%s groups %v", typ, groups)
		}
	}
}

func TestMatMulGroupedShapes(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(16, 2))
	a, b := randWeight(t, r, ggml.Q8_0, 4, 64), randWeight(t, r, ggml.Q8_0, 5, 64)
	x, out := make([]float32, 3*64), make([]float32, 3*5)
	assert.Panics(t, func() { g.MatMulGrouped(out, []Weight{a, b}, x, []int{1, 2}) }, "weights of two shapes")
	assert.Panics(t, func() { g.MatMulGrouped(out, []Weight{a}, x, []int{1, 2}) }, "a count per weight")
	assert.Panics(t, func() { g.MatMulGrouped(out, []Weight{a, a}, x, []int{-1, 2}) }, "a negative count")
	assert.Panics(t, func() { g.MatMulGrouped(out, []Weight{a, a}, x, []int{3, 2}) }, "more rows than x holds")
	g.MatMulGrouped(nil, nil, nil, nil) // no groups, nothing to do
}
