package native

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
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

// BenchmarkSSM times the DeltaNet scan and the causal convolution of one
// Qwen3.5-0.8B DeltaNet layer (16 heads of 128, conv over 6144 channels,
// 4 taps) for decode (1 token) and a 64-token prefill, on the pure-Go
// backend and the C kernels when built, all cores (LITERT_BENCH_THREADS
// to change). tok/s is tokens of that layer per second.
func BenchmarkSSM(b *testing.B) {
	threads := runtime.NumCPU()
	if n, err := strconv.Atoi(os.Getenv("LITERT_BENCH_THREADS")); err == nil && n > 0 {
		threads = n
	}
	backends := []Backend{NewGo(threads)}
	if c, err := LoadCPU(threads); err == nil {
		backends = append(backends, c)
	}
	defer func() {
		for _, be := range backends {
			be.Close()
		}
	}()
	r := rand.New(rand.NewPCG(31, 32))
	d := DeltaNet{NKHeads: 16, NVHeads: 16, HeadDim: 128, Eps: 1e-6}
	const channels, kernel = 2*16*128 + 16*128, 4
	for _, n := range []int{1, 64} {
		q, k, v, gate, beta := deltaInputs(r, d, n)
		x, w := randFloats(r, n*channels, 1), randFloats(r, channels*kernel, 1)
		out, cout := make([]float32, len(v)), make([]float32, len(x))
		state, cstate := make([]float32, d.StateSize()), make([]float32, (kernel-1)*channels)
		for _, be := range backends {
			b.Run(fmt.Sprintf("DeltaNet/%s/%d", be.Name(), n), func(b *testing.B) {
				for range b.N {
					be.DeltaNet(out, q, k, v, gate, beta, state, d, n)
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tok/s")
			})
			b.Run(fmt.Sprintf("CausalConv/%s/%d", be.Name(), n), func(b *testing.B) {
				for range b.N {
					be.CausalConv(cout, x, cstate, w, channels, kernel, n)
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}
