package native

import (
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestCPUMatMulGroupedTwin checks csrc/moe.c against the loop of MatMul
// calls it replaces (bit for bit: each group is multiplied by the same
// kernels on the same prepared activations) and against the Go
// specification within the matmul tolerance, for every kernel set and
// native weight type.
func TestCPUMatMulGroupedTwin(t *testing.T) {
	cpus := cpuKernelSets(t, 2)
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(16, 3))
	for _, c := range cpus {
		require.NotZero(t, c.groupedSym(), "%s: library lacks lrt_matmul_grouped", c.ISA())
	}
	for _, typ := range nativeTypes {
		for _, groups := range groupedShapes {
			ws, x := groupedCase(t, r, typ, 37, 2*ggml.QKK, groups)
			want := perGroup(ref, ws, x, groups)
			for _, c := range cpus {
				loop := perGroup(c, ws, x, groups)
				got := make([]float32, len(loop))
				c.MatMulGrouped(got, ws, x, groups)
				require.Equal(t, loop, got, "%s %s groups %v", c.ISA(), typ, groups)
				if len(got) > 0 {
					require.LessOrEqual(t, nmse(got, want), matmulTol(typ), "%s %s groups %v", c.ISA(), typ, groups)
				}
			}
		}
	}
}

// TestCPUMatMulGroupedLarge splits 128 experts' row chunks over threads.
func TestCPUMatMulGroupedLarge(t *testing.T) {
	c := cpuKernelSets(t, 2)[0]
	r := rand.New(rand.NewPCG(16, 4))
	groups := make([]int, 128)
	for i := range 40 {
		groups[r.IntN(128)] += 1 + i%6
	}
	ws, x := groupedCase(t, r, ggml.Q8_0, 200, 512, groups)
	loop := perGroup(c, ws, x, groups)
	got := make([]float32, len(loop))
	c.MatMulGrouped(got, ws, x, groups)
	require.Equal(t, loop, got)
}

func TestCPUMatMulGroupedFallback(t *testing.T) {
	c := cpuKernelSets(t, 2)[0]
	r := rand.New(rand.NewPCG(16, 5))
	groups := []int{2, 0, 1}
	ws, x := groupedCase(t, r, ggml.Q8_K, 7, 256, groups) // pure-Go only
	want := perGroup(NewGo(1), ws, x, groups)
	got := make([]float32, len(want))
	c.MatMulGrouped(got, ws, x, groups)
	require.Equal(t, want, got)
}
