package native

import (
	"fmt"
	"math"
)

// This file holds the operations of recurrent and convolutional layers
// (LFM2's short convolutions, Qwen3.5's gated DeltaNet): the Go
// specification the C kernels of csrc/ssm.c are tested against.

// DeltaNet describes a gated delta-rule layer (llama.cpp's
// ggml_gated_delta_net as Qwen3-Next and Qwen3.5 use it): NVHeads value
// heads, each reading key head h mod NKHeads, all HeadDim wide.
type DeltaNet struct {
	NKHeads int     // query/key heads (ssm.group_count)
	NVHeads int     // value heads (ssm.time_step_rank); a multiple of NKHeads
	HeadDim int     // elements of each query, key and value head (ssm.state_size)
	Eps     float32 // ε of the L2 norm of queries and keys
}

// StateSize is the number of float32 elements of the recurrent state of
// one layer: an HeadDim×HeadDim matrix per value head.
func (d DeltaNet) StateSize() int { return d.NVHeads * d.HeadDim * d.HeadDim }

// check panics unless the buffers hold nTokens rows for d.
func (d DeltaNet) check(out, q, k, v, gate, beta, state []float32, nTokens int) {
	kw, vw := d.NKHeads*d.HeadDim, d.NVHeads*d.HeadDim
	if d.NKHeads <= 0 || d.HeadDim <= 0 || d.NVHeads%d.NKHeads != 0 || nTokens < 0 ||
		len(q) < nTokens*kw || len(k) < nTokens*kw || len(v) < nTokens*vw || len(out) < nTokens*vw ||
		len(gate) < nTokens*d.NVHeads || len(beta) < nTokens*d.NVHeads || len(state) != d.StateSize() {
		panic(fmt.Sprintf("native: DeltaNet of %d tokens, %d key / %d value heads × %d: q %d, k %d, v %d, out %d, gate %d, beta %d, state %d floats",
			nTokens, d.NKHeads, d.NVHeads, d.HeadDim, len(q), len(k), len(v), len(out), len(gate), len(beta), len(state)))
	}
}

// checkConv panics unless the buffers of a CausalConv are consistent.
func checkConv(out, x, state, w []float32, channels, kernel, nTokens int) {
	if channels <= 0 || kernel < 2 || nTokens < 0 || len(x) < nTokens*channels || len(out) < nTokens*channels ||
		len(state) != (kernel-1)*channels || len(w) != channels*kernel {
		panic(fmt.Sprintf("native: CausalConv of %d tokens × %d channels, kernel %d: x %d, out %d, state %d, weight %d floats",
			nTokens, channels, kernel, len(x), len(out), len(state), len(w)))
	}
}

// ssmTask is the body of the parallel loops of this file: the channels of
// a convolution or the value heads of a delta-rule scan.
type ssmTask struct {
	conv bool

	out, x, state, w       []float32
	channels, kernel, nTok int
	q, k, v, gate, beta    []float32
	d                      DeltaNet
}

func (t *ssmTask) run(lo, hi int) {
	if t.conv {
		convChannels(t.out, t.x, t.state, t.w, t.channels, t.kernel, t.nTok, lo, hi)
		return
	}
	for h := lo; h < hi; h++ {
		deltaHead(t.out, t.q, t.k, t.v, t.gate, t.beta, t.state, t.d, t.nTok, h)
	}
}

func (g *Go) ssmTask() *ssmTask {
	if t, ok := g.ssm.Get().(*ssmTask); ok {
		return t
	}
	return new(ssmTask)
}

// CausalConv runs a causal depthwise convolution of kernel taps over the
// nTokens rows of x (channels wide) into out, as ggml_ssm_conv over the
// state followed by x: out[t][c] = Σ_j w[c·kernel+j]·x'[t+j][c], where x'
// is the kernel-1 rows of state then the rows of x. state (kernel-1 rows
// of channels, oldest first) then holds the last kernel-1 rows of x'. w is
// the channels×kernel tensor ggml_ssm_conv takes. out must not alias x.
func (g *Go) CausalConv(out, x, state, w []float32, channels, kernel, nTokens int) {
	checkConv(out, x, state, w, channels, kernel, nTokens)
	if nTokens == 0 {
		return
	}
	t := g.ssmTask()
	*t = ssmTask{conv: true, out: out, x: x, state: state, w: w, channels: channels, kernel: kernel, nTok: nTokens}
	g.pool.run(channels, max(1, minWork/max(1, kernel*nTokens)), t)
	*t = ssmTask{}
	g.ssm.Put(t)
}

// convChannels convolves channels [lo, hi) and moves their state on.
func convChannels(out, x, state, w []float32, channels, kernel, nTokens, lo, hi int) {
	hist := kernel - 1
	// row r of x', channels [lo, hi)
	row := func(r int) []float32 {
		if r < hist {
			return state[r*channels+lo : r*channels+hi]
		}
		return x[(r-hist)*channels+lo : (r-hist)*channels+hi]
	}
	for t := range nTokens {
		o := out[t*channels+lo : t*channels+hi]
		clear(o)
		for j := range kernel {
			xr := row(t + j)
			for c := range o {
				o[c] += xr[c] * w[(lo+c)*kernel+j]
			}
		}
	}
	// the last hist rows of x' (rows nTokens … nTokens+hist-1), each read
	// before it is overwritten: the source row is never before the
	// destination
	for r := range hist {
		copy(state[r*channels+lo:r*channels+hi], row(nTokens+r))
	}
}

// DeltaNet runs the gated delta rule over nTokens rows, token by token as
// ggml_gated_delta_net (up to rounding: see deltaHead). q and k hold nTokens
// rows of d.NKHeads heads, v and out rows of d.NVHeads heads, gate and beta
// rows of d.NVHeads values: the log decay g ≤ 0 and the write strength β
// of each head. q and k are normalized in place first: each head becomes
// x/√(Σx²+Eps) as llama.cpp's build_gdn_l2_norm, and q is then scaled by
// 1/√HeadDim. For value head h, key head h mod NKHeads, and each token:
//
//	S ← e^g·S;  δ = β·(v − Sᵀk);  S ← S + k·δᵀ;  out = Sᵀq
//
// where S is the head's HeadDim×HeadDim state, stored as ggml stores it:
// state[h·D² + j·D + i] = S[i][j] (i indexes keys, j values).
func (g *Go) DeltaNet(out, q, k, v, gate, beta, state []float32, d DeltaNet, nTokens int) {
	d.check(out, q, k, v, gate, beta, state, nTokens)
	if nTokens == 0 {
		return
	}
	l2Normalize(q[:nTokens*d.NKHeads*d.HeadDim], d.HeadDim, d.Eps, float32(1/math.Sqrt(float64(d.HeadDim))))
	l2Normalize(k[:nTokens*d.NKHeads*d.HeadDim], d.HeadDim, d.Eps, 1)
	t := g.ssmTask()
	*t = ssmTask{out: out, q: q, k: k, v: v, gate: gate, beta: beta, state: state, d: d, nTok: nTokens}
	g.pool.run(d.NVHeads, 1, t)
	*t = ssmTask{}
	g.ssm.Put(t)
}

// l2Normalize sets each row of n elements of x to x/√(Σx²+eps)·c, as
// ggml_rms_norm(x, eps/n) scaled by 1/√n (and by c) computes it.
func l2Normalize(x []float32, n int, eps, c float32) {
	inv := float32(1 / math.Sqrt(float64(n)))
	for r := 0; r < len(x); r += n {
		row := x[r : r+n]
		var sum float64
		for _, v := range row {
			sum += float64(v * v)
		}
		s := float32(1/math.Sqrt(float64(float32(sum/float64(n))+eps/float32(n)))) * inv
		for i := range row {
			row[i] = row[i] * s * c
		}
	}
}

// deltaHead scans value head h over the tokens. Row j of the state (column
// j of S) is all that value element j reads and writes, and the decay
// factors out of the products: with a = e^g, δ[j] = β(v[j] − a·S[:,j]·k)
// and out[j] = a·S[:,j]·q + δ[j]·(k·q), both from the row before the
// update, which then is one pass S[:,j] = a·S[:,j] + δ[j]·k. The result is
// ggml's up to rounding (llama.cpp's fused, chunked and autoregressive
// forms differ from each other the same way).
func deltaHead(out, q, k, v, gate, beta, state []float32, d DeltaNet, nTokens, h int) {
	n, hk := d.HeadDim, h%d.NKHeads
	s := state[h*n*n : (h+1)*n*n]
	kw, vw := d.NKHeads*n, d.NVHeads*n
	for t := range nTokens {
		qh := q[t*kw+hk*n : t*kw+(hk+1)*n]
		kh := k[t*kw+hk*n : t*kw+(hk+1)*n]
		vh := v[t*vw+h*n : t*vw+(h+1)*n]
		oh := out[t*vw+h*n : t*vw+(h+1)*n]
		a := float32(math.Exp(float64(gate[t*d.NVHeads+h])))
		b := beta[t*d.NVHeads+h]
		kq := dotF32s(kh, qh)
		for j := range n {
			row := s[j*n : (j+1)*n]
			delta := (vh[j] - a*dotF32s(row, kh)) * b
			oh[j] = a*dotF32s(row, qh) + delta*kq
			for i, ki := range kh[:len(row)] {
				row[i] = a*row[i] + delta*ki
			}
		}
	}
}

// GatedRMSNorm sets each row of len(weight) elements of out to
// RMSNorm(x)·weight·silu(gate), as Qwen3.5's build_norm_gated: the norm of
// RMSNorm, then the product with x/(1+e^-x) of the gate row. out may alias
// x.
func (g *Go) GatedRMSNorm(out, x, gate, weight []float32, eps float32) {
	n := len(weight)
	if n == 0 || len(x)%n != 0 || len(out) < len(x) || len(gate) < len(x) {
		panic(fmt.Sprintf("native: GatedRMSNorm of %d floats in rows of %d into %d, gate %d", len(x), n, len(out), len(gate)))
	}
	g.RMSNorm(out, x, weight, n, eps)
	for i := range x {
		z := gate[i]
		out[i] *= z / (1 + float32(math.Exp(float64(-z))))
	}
}
