package native

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The C kernels of csrc/ssm.c against their Go twins (go_ssm.go), on
// shapes of the tiny and real LFM2 and Qwen3.5 layers, on one and several
// threads.

func TestCPUCausalConvMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range cpuKernelSets(t, 2) {
		for _, sh := range []struct{ channels, kernel, n int }{{1, 2, 1}, {7, 3, 5}, {128, 3, 40}, {640, 4, 1}, {640, 4, 33}, {6144, 4, 9}} {
			x := randFloats(r, sh.n*sh.channels, 1)
			w := randFloats(r, sh.channels*sh.kernel, 1)
			s0 := randFloats(r, (sh.kernel-1)*sh.channels, 1)
			want, got := make([]float32, len(x)), make([]float32, len(x))
			ws, gs := slices.Clone(s0), slices.Clone(s0)
			ref.CausalConv(want, x, ws, w, sh.channels, sh.kernel, sh.n)
			c.CausalConv(got, x, gs, w, sh.channels, sh.kernel, sh.n)
			require.LessOrEqual(t, nmse(got, want), 1e-12, "%s %+v", c.ISA(), sh)
			require.Equal(t, ws, gs, "%s %+v: state", c.ISA(), sh)
		}
	}
}

func TestCPUDeltaNetMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range cpuKernelSets(t, 2) {
		for _, sh := range []struct {
			d DeltaNet
			n int
		}{
			{DeltaNet{NKHeads: 1, NVHeads: 1, HeadDim: 5, Eps: 1e-6}, 3},
			{DeltaNet{NKHeads: 2, NVHeads: 4, HeadDim: 32, Eps: 1e-6}, 40},
			{DeltaNet{NKHeads: 16, NVHeads: 16, HeadDim: 128, Eps: 1e-6}, 1},
			{DeltaNet{NKHeads: 16, NVHeads: 16, HeadDim: 128, Eps: 1e-6}, 7},
		} {
			d := sh.d
			q, k, v, gate, beta := deltaInputs(r, d, sh.n)
			s0 := randFloats(r, d.StateSize(), 0.1)
			want, got := make([]float32, len(v)), make([]float32, len(v))
			ws, gs := slices.Clone(s0), slices.Clone(s0)
			qw, kw := slices.Clone(q), slices.Clone(k)
			ref.DeltaNet(want, qw, kw, v, gate, beta, ws, d, sh.n)
			c.DeltaNet(got, q, k, v, gate, beta, gs, d, sh.n)
			require.LessOrEqual(t, nmse(got, want), 1e-10, "%s %+v: output", c.ISA(), sh)
			require.LessOrEqual(t, nmse(gs, ws), 1e-10, "%s %+v: state", c.ISA(), sh)
			require.LessOrEqual(t, nmse(q, qw), 1e-12, "%s %+v: normalized q", c.ISA(), sh)
		}
	}
}

func TestCPUGatedRMSNormMatchesGo(t *testing.T) {
	ref := NewGo(1)
	defer ref.Close()
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range cpuKernelSets(t, 2) {
		for _, sh := range []struct{ n, rows int }{{1, 1}, {16, 3}, {128, 16 * 40}} {
			x, z, w := randFloats(r, sh.n*sh.rows, 2), randFloats(r, sh.n*sh.rows, 4), randFloats(r, sh.n, 1)
			want, got := make([]float32, len(x)), make([]float32, len(x))
			ref.GatedRMSNorm(want, x, z, w, 1e-6)
			c.GatedRMSNorm(got, x, z, w, 1e-6)
			require.LessOrEqual(t, nmse(got, want), tolAct, "%s %+v", c.ISA(), sh)
		}
	}
}
