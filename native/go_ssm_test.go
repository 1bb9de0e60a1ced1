package native

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveConv is the textbook causal convolution of a whole sequence seq
// (rows of channels) with zero history: out[t][c] = Σ_j w[c][j]·seq[t-K+1+j][c].
func naiveConv(seq, w []float32, channels, kernel int) []float32 {
	n := len(seq) / channels
	out := make([]float32, len(seq))
	for t := range n {
		for c := range channels {
			var s float32
			for j := range kernel {
				if r := t - kernel + 1 + j; r >= 0 {
					s += seq[r*channels+c] * w[c*kernel+j]
				}
			}
			out[t*channels+c] = s
		}
	}
	return out
}

// TestCausalConvSplits checks the convolution against the textbook formula
// when the sequence arrives in one call, token by token, or in uneven
// pieces (the state carries the history across calls), and that the state
// ends as the last kernel-1 rows of the sequence.
func TestCausalConvSplits(t *testing.T) {
	g := NewGo(3)
	defer g.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for _, kernel := range []int{2, 3, 4} {
		for _, channels := range []int{1, 5, 96} {
			const n = 13
			seq := randFloats(r, n*channels, 1)
			w := randFloats(r, channels*kernel, 1)
			want := naiveConv(seq, w, channels, kernel)
			for _, pieces := range [][]int{{13}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {2, 1, 7, 3}, {5, 8}} {
				state := make([]float32, (kernel-1)*channels)
				got := make([]float32, n*channels)
				t0 := 0
				for _, m := range pieces {
					g.CausalConv(got[t0*channels:], seq[t0*channels:(t0+m)*channels], state, w, channels, kernel, m)
					t0 += m
				}
				require.InDeltaSlice(t, want, got, 1e-6, "kernel %d, %d channels, pieces %v", kernel, channels, pieces)
				require.Equal(t, seq[(n-kernel+1)*channels:], state, "state after pieces %v", pieces)
			}
		}
	}
}

// deltaInputs draws q, k, v, gate (log decay ≤ 0) and beta ∈ (0, 1) for n
// tokens of d.
func deltaInputs(r *rand.Rand, d DeltaNet, n int) (q, k, v, gate, beta []float32) {
	q = randFloats(r, n*d.NKHeads*d.HeadDim, 1)
	k = randFloats(r, n*d.NKHeads*d.HeadDim, 1)
	v = randFloats(r, n*d.NVHeads*d.HeadDim, 1)
	gate, beta = make([]float32, n*d.NVHeads), make([]float32, n*d.NVHeads)
	for i := range gate {
		gate[i] = -2 * r.Float32()
		beta[i] = r.Float32()
	}
	return
}

// TestDeltaNetOneToken checks the first token from a zero state against
// the closed form: S = β·k̂vᵀ, so out = β·v·(k̂·q̂)/√D whatever the decay,
// with k̂, q̂ the L2-normalized key and query.
func TestDeltaNetOneToken(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(3, 4))
	d := DeltaNet{NKHeads: 2, NVHeads: 4, HeadDim: 16, Eps: 1e-6}
	q, k, v, gate, beta := deltaInputs(r, d, 1)
	q0, k0 := slices.Clone(q), slices.Clone(k)
	out := make([]float32, d.NVHeads*d.HeadDim)
	state := make([]float32, d.StateSize())
	g.DeltaNet(out, q, k, v, gate, beta, state, d, 1)
	n := d.HeadDim
	for h := range d.NVHeads {
		hk := h % d.NKHeads // Qwen3.5's tiling of key heads over value heads
		qh, kh := q0[hk*n:(hk+1)*n], k0[hk*n:(hk+1)*n]
		var qq, kk, qk float64
		for i := range n {
			qq += float64(qh[i]) * float64(qh[i])
			kk += float64(kh[i]) * float64(kh[i])
			qk += float64(qh[i]) * float64(kh[i])
		}
		cos := qk / math.Sqrt(qq+float64(d.Eps)) / math.Sqrt(kk+float64(d.Eps))
		for j := range n {
			want := float64(beta[h]) * float64(v[h*n+j]) * cos / math.Sqrt(float64(n))
			require.InDelta(t, want, out[h*n+j], 1e-6, "head %d, element %d", h, j)
		}
	}
}

// TestDeltaNetTwoTokens checks the second token against the rule written
// out with matrices: S₁ = β₁k₁v₁ᵀ, S₂ = e^g₂S₁ + β₂k₂(v₂ − e^g₂S₁ᵀk₂)ᵀ,
// out₂ = S₂ᵀq₂/√D.
func TestDeltaNetTwoTokens(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(5, 6))
	d := DeltaNet{NKHeads: 1, NVHeads: 1, HeadDim: 8, Eps: 1e-6}
	q, k, v, gate, beta := deltaInputs(r, d, 2)
	n := d.HeadDim
	norm := func(x []float32) []float64 {
		var s float64
		for _, e := range x {
			s += float64(e) * float64(e)
		}
		y := make([]float64, len(x))
		for i, e := range x {
			y[i] = float64(e) / math.Sqrt(s+float64(d.Eps))
		}
		return y
	}
	k1, k2, q2 := norm(k[:n]), norm(k[n:]), norm(q[n:])
	S := make([]float64, n*n) // S[i*n+j], i key, j value
	for i := range n {
		for j := range n {
			S[i*n+j] = float64(beta[0]) * k1[i] * float64(v[j])
		}
	}
	a := math.Exp(float64(gate[1]))
	for i := range S {
		S[i] *= a
	}
	delta := make([]float64, n)
	for j := range n {
		var sk float64
		for i := range n {
			sk += S[i*n+j] * k2[i]
		}
		delta[j] = float64(beta[1]) * (float64(v[n+j]) - sk)
	}
	for i := range n {
		for j := range n {
			S[i*n+j] += k2[i] * delta[j]
		}
	}
	out := make([]float32, 2*n)
	state := make([]float32, d.StateSize())
	g.DeltaNet(out, q, k, v, gate, beta, state, d, 2)
	for j := range n {
		var o float64
		for i := range n {
			o += S[i*n+j] * q2[i]
		}
		require.InDelta(t, o/math.Sqrt(float64(n)), out[n+j], 1e-6, "element %d", j)
		for i := range n {
			require.InDelta(t, S[i*n+j], state[j*n+i], 1e-6, "state S[%d][%d]", i, j)
		}
	}
}

// TestDeltaNetSplits checks that a sequence gives the same outputs and
// final state in one call, token by token and in uneven pieces.
func TestDeltaNetSplits(t *testing.T) {
	g := NewGo(3)
	defer g.Close()
	r := rand.New(rand.NewPCG(7, 8))
	d := DeltaNet{NKHeads: 2, NVHeads: 6, HeadDim: 32, Eps: 1e-6}
	const n = 11
	q, k, v, gate, beta := deltaInputs(r, d, n)
	run := func(pieces []int) (out, state []float32) {
		qc, kc := slices.Clone(q), slices.Clone(k)
		out, state = make([]float32, n*d.NVHeads*d.HeadDim), make([]float32, d.StateSize())
		kw, vw, t0 := d.NKHeads*d.HeadDim, d.NVHeads*d.HeadDim, 0
		for _, m := range pieces {
			g.DeltaNet(out[t0*vw:], qc[t0*kw:(t0+m)*kw], kc[t0*kw:(t0+m)*kw], v[t0*vw:(t0+m)*vw],
				gate[t0*d.NVHeads:], beta[t0*d.NVHeads:], state, d, m)
			t0 += m
		}
		return out, state
	}
	wantOut, wantState := run([]int{n})
	for _, pieces := range [][]int{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {4, 7}, {1, 9, 1}} {
		out, state := run(pieces)
		require.Equal(t, wantOut, out, "pieces %v", pieces)
		require.Equal(t, wantState, state, "pieces %v", pieces)
	}
}

// TestGatedRMSNorm checks RMSNorm(x)·w·silu(z) element by element.
func TestGatedRMSNorm(t *testing.T) {
	g := NewGo(1)
	defer g.Close()
	r := rand.New(rand.NewPCG(9, 10))
	const n, rows = 24, 3
	x, z, w := randFloats(r, rows*n, 2), randFloats(r, rows*n, 4), randFloats(r, n, 1)
	out := make([]float32, rows*n)
	g.GatedRMSNorm(out, x, z, w, 1e-6)
	for row := range rows {
		var ss float64
		for _, e := range x[row*n : (row+1)*n] {
			ss += float64(e) * float64(e)
		}
		rms := math.Sqrt(ss/n + 1e-6)
		for i := range n {
			zi := float64(z[row*n+i])
			want := float64(x[row*n+i]) / rms * float64(w[i]) * zi / (1 + math.Exp(-zi))
			require.InDelta(t, want, out[row*n+i], 1e-5, "row %d, element %d", row, i)
		}
	}
	// in place
	in := slices.Clone(x)
	g.GatedRMSNorm(in, in, z, w, 1e-6)
	require.Equal(t, out, in)
}
