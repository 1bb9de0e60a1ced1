package models

import (
	"math"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Qwen3.5 (Qwen3.5-0.8B … 27B, dense) interleaves gated DeltaNet
// linear-attention layers with gated full-attention layers: layer i has
// full attention when (i+1) % qwen35.full_attention_interval == 0. Every
// block is attn_norm → mixer → residual, post_attention_norm → SwiGLU MLP
// → residual.
//
// A DeltaNet layer projects x to q, k, v (blk.N.attn_qkv.weight
// [2·K·S + V·S][Dim], K = ssm.group_count key heads and V =
// ssm.time_step_rank value heads of S = ssm.state_size), runs them
// through a causal depthwise convolution of ssm.conv_kernel taps
// (blk.N.ssm_conv1d.weight) and SiLU, then through the gated delta rule
// (native.DeltaNet) with write strength β = σ(ssm_beta·x) and log decay
// g = softplus(ssm_alpha·x + ssm_dt.bias)·ssm_a per head; the output is
// RMS-normed per head (ssm_norm) and gated by silu(attn_gate·x) before
// ssm_out.
//
// A full-attention layer's attn_q gives, per head, the query and then an
// output gate: the query is RMS-normed per head (attn_q_norm) as the key
// (attn_k_norm), both rotate by RoPE on rope.dimension_count elements
// (M-RoPE with rope.dimension_sections, which for text, every section at
// the same position, is NeoX RoPE), and the attention output is
// multiplied by σ(gate) before attn_output.
//
// See llama.cpp src/models/qwen35.cpp and delta-net-base.cpp; we run the
// delta rule as one sequential scan, which llama.cpp's chunked (prefill)
// and autoregressive (decode) forms compute the same numbers as.
type Qwen35 struct {
	decoder
	lin   []*GatedDeltaNet  // per layer; nil for full-attention layers
	gated []*GatedAttention // per layer; nil for DeltaNet layers
}

// GatedDeltaNet is Qwen3.5's linear-attention mixer.
type GatedDeltaNet struct {
	QKV   Linear    // attn_qkv [2·K·S + V·S][Dim]
	Z     Linear    // attn_gate [V·S][Dim]: the output gate
	Beta  Linear    // ssm_beta [V][Dim]
	Alpha Linear    // ssm_alpha [V][Dim]
	DtB   []float32 // ssm_dt.bias [V]
	A     []float32 // ssm_a [V]: -exp(A_log)
	Conv  []float32 // ssm_conv1d [2·K·S + V·S][Taps]
	Taps  int
	Norm  RMSNorm // ssm_norm [S]
	Out   Linear  // ssm_out [Dim][V·S]
	Rule  native.DeltaNet
}

// GatedAttention is Qwen3.5's full attention with an output gate.
type GatedAttention struct {
	Q            Linear // attn_q [NHeads·2·HeadDim][Dim]: per head, query then gate
	K, V         Linear // [NKVHeads·HeadDim][Dim]
	O            Linear // [Dim][NHeads·HeadDim]
	QNorm, KNorm RMSNorm
	Rope         native.RoPE
	Attn         native.Attention
}

// Scratch buffers of the Qwen3.5 forward pass (State.Buffer ids).
const (
	q35BufMixed = 110 + iota // attn_qkv output [n][convDim]
	q35BufConv               // its convolution [n][convDim]
	q35BufQ                  // queries [n][K·S] or [n][NHeads·HeadDim]
	q35BufK                  // keys [n][K·S] or [n][NKVHeads·HeadDim]
	q35BufV                  // values [n][V·S] or [n][NKVHeads·HeadDim]
	q35BufZ                  // output gate [n][V·S] or [n][NHeads·HeadDim]
	q35BufBeta               // β [n][V]
	q35BufGate               // log decay [n][V]
	q35BufOut                // mixer output before its projection
	q35BufQG                 // attn_q output [n][NHeads·2·HeadDim]
)

func init() {
	Register("qwen35", loadQwen35)
}

// loadQwen35 reads the hyper-parameters and tensors of a Qwen3.5 file.
func loadQwen35(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "qwen35"}
	p := l.params()
	taps := l.int("ssm.conv_kernel")
	inner := l.int("ssm.inner_size")
	sd := l.int("ssm.state_size")
	nv := l.int("ssm.time_step_rank")
	nk := l.int("ssm.group_count")
	interval := l.intOr("full_attention_interval", 4)
	if l.err != nil {
		return nil, l.err
	}
	switch {
	case taps < 2 || taps > 64:
		l.fail("key %q is %d, want 2 to 64 taps", l.key("ssm.conv_kernel"), taps)
	case nv%nk != 0:
		l.fail("%d value heads (key %q) are not a multiple of %d key heads (key %q)", nv, l.key("ssm.time_step_rank"), nk, l.key("ssm.group_count"))
	case inner != nv*sd:
		// llama.cpp sizes the state by ssm.state_size and the value heads by inner_size / time_step_rank
		l.fail("key %q is %d, want %d value heads × state size %d", l.key("ssm.inner_size"), inner, nv, sd)
	case l.f.Has(l.key("attention.recurrent_layers")):
		l.fail("key %q: an explicit layer list (MTP layers) is not supported", l.key("attention.recurrent_layers"))
	}
	if l.err != nil {
		return nil, l.err
	}
	if yarn(p) { // rope's YaRN magnitude has no place in this forward pass
		l.fail("key %q is %q, which %s does not support", l.key("rope.scaling.type"), p.RopeScaling, l.arch)
	}
	rope, _ := l.rope(p, nil, true)
	attn := native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim,
		Scale: float32(l.positiveFloatOr("attention.scale", float64(invSqrt(p.HeadDim))))}
	m := &Qwen35{lin: make([]*GatedDeltaNet, p.NLayers), gated: make([]*GatedAttention, p.NLayers)}
	m.decoder = l.decoder(p)
	spec := blockSpec{act: SiLU}
	rule := native.DeltaNet{NKHeads: nk, NVHeads: nv, HeadDim: sd, Eps: p.NormEps}
	kd, vd := nk*sd, nv*sd
	qd, kvd := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	for i := range m.Layers {
		blk := blockName(i)
		ly := &m.Layers[i]
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps) // the MLP's pre-norm
		ly.FFN = l.mlp(blk, p, spec)
		if (i+1)%interval == 0 {
			g := &GatedAttention{O: l.linear(blk+"attn_output", p.Dim, qd), Rope: rope, Attn: attn,
				QNorm: l.norm(blk+"attn_q_norm", p.HeadDim, p.NormEps),
				KNorm: l.norm(blk+"attn_k_norm", p.HeadDim, p.NormEps)}
			if l.has(blk + "attn_qkv.weight") {
				qkv := l.split(blk+"attn_qkv", p.Dim, 2*qd, kvd, kvd)
				g.Q, g.K, g.V = qkv[0], qkv[1], qkv[2]
			} else {
				g.Q = l.linear(blk+"attn_q", 2*qd, p.Dim)
				g.K = l.linear(blk+"attn_k", kvd, p.Dim)
				g.V = l.linear(blk+"attn_v", kvd, p.Dim)
			}
			m.gated[i] = g
			continue
		}
		m.lin[i] = &GatedDeltaNet{
			QKV:   l.linear(blk+"attn_qkv", 2*kd+vd, p.Dim),
			Z:     l.linear(blk+"attn_gate", vd, p.Dim),
			Beta:  l.linear(blk+"ssm_beta", nv, p.Dim),
			Alpha: l.linear(blk+"ssm_alpha", nv, p.Dim),
			DtB:   l.vector(blk+"ssm_dt.bias", nv),
			A:     l.vector(blk+"ssm_a", nv),
			Conv:  l.convKernel(blk+"ssm_conv1d.weight", 2*kd+vd, taps),
			Taps:  taps,
			Norm:  l.norm(blk+"ssm_norm", sd, p.NormEps),
			Out:   l.linear(blk+"ssm_out", p.Dim, vd),
			Rule:  rule,
		}
		if l.err != nil {
			return nil, l.err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return m, nil
}

// Caches declares a KV cache for the full-attention layers and, for the
// DeltaNet layers, a conv state of taps-1 rows of q, k and v and the
// value heads' S×S matrices.
func (m *Qwen35) Caches() []LayerCache {
	cs := make([]LayerCache, len(m.Layers))
	for i := range cs {
		cs[i].SharedKV = -1
		if d := m.lin[i]; d != nil {
			cs[i].Conv = (d.Taps - 1) * d.QKV.W.Rows
			cs[i].Recurrent = d.Rule.StateSize()
		} else {
			cs[i].KVWidth = m.p.NKVHeads * m.p.HeadDim
		}
	}
	return cs
}

// Forward runs a batch through the model (see Model.Forward).
func (m *Qwen35) Forward(s *State, in Input, logits []float32) { m.forwardHybrid(s, in, logits, m) }

// mix is layer i's token mixer: gated DeltaNet or gated attention.
func (m *Qwen35) mix(b native.Backend, s *State, i int, out, x []float32, pos0, n int) {
	if d := m.lin[i]; d != nil {
		d.Forward(b, s, i, out, x, n)
	} else {
		m.gated[i].Forward(b, s, i, out, x, pos0, n)
	}
}

// Forward writes the DeltaNet mixer of the nTokens rows of x into out,
// continuing from and updating layer's conv and recurrent states in s.
func (d *GatedDeltaNet) Forward(b native.Backend, s *State, layer int, out, x []float32, nTokens int) {
	r := d.Rule
	kd, vd, cd := r.NKHeads*r.HeadDim, r.NVHeads*r.HeadDim, d.QKV.W.Rows
	mixed := s.Buffer(q35BufMixed, nTokens*cd)
	conv := s.Buffer(q35BufConv, nTokens*cd)
	q, k, v := s.Buffer(q35BufQ, nTokens*kd), s.Buffer(q35BufK, nTokens*kd), s.Buffer(q35BufV, nTokens*vd)
	z, o := s.Buffer(q35BufZ, nTokens*vd), s.Buffer(q35BufOut, nTokens*vd)
	beta, gate := s.Buffer(q35BufBeta, nTokens*r.NVHeads), s.Buffer(q35BufGate, nTokens*r.NVHeads)

	forwardShared(b, s, x, nTokens, []Linear{d.QKV, d.Z, d.Beta, d.Alpha}, [][]float32{mixed, z, beta, gate})
	for t := range nTokens {
		bt, gt := beta[t*r.NVHeads:(t+1)*r.NVHeads], gate[t*r.NVHeads:(t+1)*r.NVHeads]
		for h := range bt {
			bt[h] = sigmoid(bt[h])
			gt[h] = softplus(gt[h]+d.DtB[h]) * d.A[h]
		}
	}
	b.CausalConv(conv, mixed, s.Conv(layer), d.Conv, cd, d.Taps, nTokens)
	silu(conv)
	for t := range nTokens {
		row := conv[t*cd : (t+1)*cd]
		copy(q[t*kd:(t+1)*kd], row[:kd])
		copy(k[t*kd:(t+1)*kd], row[kd:2*kd])
		copy(v[t*vd:(t+1)*vd], row[2*kd:])
	}
	b.DeltaNet(o, q, k, v, gate, beta, s.Recurrent(layer), r, nTokens)
	b.GatedRMSNorm(o, o, z, d.Norm.W, d.Norm.Eps)
	d.Out.Forward(b, out, o, nTokens)
}

// Forward runs gated attention for the nTokens rows of x at positions
// pos0, … into out, storing keys and values in layer's cache.
func (g *GatedAttention) Forward(b native.Backend, s *State, layer int, out, x []float32, pos0, nTokens int) {
	hd, nh, nkv := g.Attn.HeadDim, g.Attn.NHeads, g.Attn.NKVHeads
	qg := s.Buffer(q35BufQG, nTokens*2*nh*hd)
	q, gate := s.Buffer(q35BufQ, nTokens*nh*hd), s.Buffer(q35BufZ, nTokens*nh*hd)
	k, v := s.Buffer(q35BufK, nTokens*nkv*hd), s.Buffer(q35BufV, nTokens*nkv*hd)
	att := s.Buffer(q35BufOut, nTokens*nh*hd)
	forwardShared(b, s, x, nTokens, []Linear{g.Q, g.K, g.V}, [][]float32{qg, k, v})
	for i := range nTokens * nh { // head i: hd of query, then hd of gate
		copy(q[i*hd:(i+1)*hd], qg[2*i*hd:(2*i+1)*hd])
		copy(gate[i*hd:(i+1)*hd], qg[(2*i+1)*hd:(2*i+2)*hd])
	}
	g.QNorm.Forward(b, q, q)
	g.KNorm.Forward(b, k, k)
	b.RoPE(q, nh, hd, pos0, nTokens, g.Rope)
	b.RoPE(k, nkv, hd, pos0, nTokens, g.Rope)
	rotV := kvRotate(s.KV(layer), hd, q, k, v) // a quantized cache's rotation (kvrot.go)
	b.StoreKV(s.KV(layer), pos0, k, v, nTokens)
	b.Attend(att, q, s.KV(layer), pos0, nTokens, s.attention(g.Attn))
	kvUnrotate(att, rotV)
	for i, e := range gate {
		att[i] *= sigmoid(e)
	}
	g.O.Forward(b, out, att, nTokens)
}

// sigmoid is 1/(1+e^-x).
func sigmoid(x float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x)))) }

// softplus is ln(1+e^x), x above 20, as ggml computes it.
func softplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log(float64(1 + float32(math.Exp(float64(x))))))
}

// silu sets x[i] = x[i]·σ(x[i]), ggml_silu_f32.
func silu(x []float32) {
	for i, e := range x {
		x[i] = e / (1 + float32(math.Exp(float64(-e))))
	}
}
