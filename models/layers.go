package models

import (
	"fmt"
	"math"
	"slices"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// This file is the layer vocabulary the architectures are written in:
// small structs whose fields are GGUF tensors, each with a Forward method
// that calls the backend.

// Linear is a projection y = W·x (+ B).
type Linear struct {
	W native.Weight // [Rows out][Cols in], stored type
	B []float32     // optional bias [Rows]
}

// Forward sets out (nTokens rows of W.Rows) to W·x (+ B) for the nTokens
// rows of x.
func (l Linear) Forward(b native.Backend, out, x []float32, nTokens int) {
	b.MatMul(out, l.W, x, nTokens)
	if l.B != nil {
		b.AddRows(out[:nTokens*l.W.Rows], l.B)
	}
}

// forwardShared is Linear.Forward of each ls[i] into outs[i] (at most
// len(s.products)) for projections of the same input x: the products in
// one Backend.MatMuls call (for decode the threads share their rows), then
// the biases.
func forwardShared(b native.Backend, s *State, x []float32, nTokens int, ls []Linear, outs [][]float32) {
	ps := s.products[:len(ls)] // in the State: a slice passed to an interface method escapes
	for i, l := range ls {
		ps[i] = native.Product{Out: outs[i], W: l.W}
	}
	b.MatMuls(ps, x, nTokens)
	for i, l := range ls {
		if l.B != nil {
			b.AddRows(outs[i][:nTokens*l.W.Rows], l.B)
		}
	}
}

// RMSNorm is x/√(mean(x²)+Eps)·W over rows of len(W). GGUF files store the
// final multiplier: Gemma's (1+w) was folded in by the converter.
type RMSNorm struct {
	W   []float32
	Eps float32
}

// Forward normalizes each row of len(n.W) elements of x into out.
func (n RMSNorm) Forward(b native.Backend, out, x []float32) {
	b.RMSNorm(out, x, n.W, len(n.W), n.Eps)
}

// Activation selects the gate nonlinearity of an MLP.
type Activation int

const (
	// SiLU gives SwiGLU: down(silu(gate(x)) * up(x)).
	SiLU Activation = iota
	// GELU gives GeGLU with tanh-approximated GELU (Gemma).
	GELU
	// SwiGLUClamp is gpt-oss's gate: with g = min(gate, 7) and u =
	// clamp(up, -7, 7), g·σ(1.702·g)·(u+1) (ggml_swiglu_oai).
	SwiGLUClamp
)

// MLP is the gated feed-forward network down(act(gate(x)) * up(x)).
type MLP struct {
	Gate, Up Linear // [HiddenDim][Dim]
	Down     Linear // [Dim][HiddenDim]
	Act      Activation
}

// Forward writes the MLP of the nTokens rows of x into out, using s's hb
// and hb2 (nTokens rows of HiddenDim) as scratch.
func (m MLP) Forward(b native.Backend, s *State, out, x []float32, nTokens int) {
	h := m.Gate.W.Rows
	hb, hb2 := s.hb[:nTokens*h], s.hb2[:nTokens*h]
	forwardShared(b, s, x, nTokens, []Linear{m.Gate, m.Up}, [][]float32{hb, hb2})
	m.Act.glu(b, hb, hb2)
	m.Down.Forward(b, out, hb, nTokens)
}

// glu sets gate[i] = act(gate[i]) * up[i] for a's nonlinearity.
func (a Activation) glu(b native.Backend, gate, up []float32) {
	switch a {
	case GELU:
		b.GeGLU(gate, up)
	case SwiGLUClamp:
		swigluClamp(gate, up)
	default:
		b.SwiGLU(gate, up)
	}
}

// MoE is a mixture of gated experts (llama.cpp build_moe_ffn): a router
// scores the experts of each token, the NUsed of highest score run, and
// their outputs are summed with weights: their softmax probabilities over
// all experts, renormalized to sum to one when NormTopK (Qwen3-MoE), or,
// when SoftmaxChosen, the softmax of the chosen experts' scores alone
// (gpt-oss).
//
// Forward groups the tokens by expert, so that prefill multiplies each
// expert's matrices once by all the rows routed to it (matrix-matrix) and
// decode reads the rows of the chosen experts only.
type MoE struct {
	Router   Linear          // ffn_gate_inp.weight [NExperts][Dim]
	Gate, Up []native.Weight // ffn_{gate,up}_exps.weight, per expert [ExpertHiddenDim][Dim]
	Down     []native.Weight // ffn_down_exps.weight, per expert [Dim][ExpertHiddenDim]
	// optional biases (gpt-oss), per expert: ffn_{gate,up}_exps.bias
	// [NExperts][ExpertHiddenDim], ffn_down_exps.bias [NExperts][Dim]
	GateB, UpB, DownB [][]float32
	Act               Activation // the experts' gate nonlinearity
	NUsed             int        // experts per token (expert_used_count)
	DownScale         []float32  // optional ffn_down_exps.scale [NExperts]: multiplies each expert's output (Gemma 4)
	NormTopK          bool       // renormalize the chosen probabilities to sum to 1
	SoftmaxChosen     bool       // weights are the softmax of the chosen experts' scores
}

// minWeightSum is the floor of the sum that NormTopK divides by: ggml's
// clamp to the smallest normal float16.
const minWeightSum = 6.103515625e-5

// Forward writes the experts' output for the nTokens rows of x into out,
// using s's routing and expert buffers.
func (m *MoE) Forward(b native.Backend, s *State, out, x []float32, nTokens int) {
	route := s.route[:nTokens*len(m.Gate)]
	m.Router.Forward(b, route, x, nTokens)
	m.forwardRouted(b, s, out, x, route, nTokens)
}

// forwardRouted is Forward with the router's scores of each token given
// (route, nTokens rows of NExperts, overwritten): Gemma 4 routes on
// another input than the experts'.
func (m *MoE) forwardRouted(b native.Backend, s *State, out, x, route []float32, nTokens int) {
	nExp, k := len(m.Gate), m.NUsed
	picked, weight := s.picked[:nTokens*k], s.weight[:nTokens*k]
	var count [maxExperts + 1]int32 // count[e+1]: slots routed to expert e, then offsets
	for t := range nTokens {
		p := route[t*nExp : (t+1)*nExp]
		if !m.SoftmaxChosen {
			softmax(p)
		}
		topK(p, picked[t*k:(t+1)*k])
		w := weight[t*k : (t+1)*k]
		sum := float32(0)
		for j, e := range picked[t*k : (t+1)*k] {
			w[j] = p[e]
			sum += w[j]
			count[e+1]++
		}
		switch {
		case m.SoftmaxChosen:
			softmax(w)
		case m.NormTopK:
			scale(w, 1/max(sum, minWeightSum))
		}
	}
	// group the (token, slot) pairs by expert
	for e := range nExp {
		count[e+1] += count[e]
	}
	order := s.order[:nTokens*k]
	next := count
	for i, e := range picked {
		order[next[e]] = int32(i)
		next[e]++
	}
	// one grouped product per projection over every routed row (State
	// holds NExpertsUsed rows per token)
	groups := s.groups[:nExp]
	for e := range nExp {
		groups[e] = int(count[e+1] - count[e])
	}
	clear(out)
	m.forwardPass(b, s, out, x, order, groups, nTokens)
}

// forwardPass adds to out the experts' output for the routed slots of
// order (token·NUsed+slot, grouped by expert), groups[e] of them routed to
// expert e, with one grouped product per projection.
func (m *MoE) forwardPass(b native.Backend, s *State, out, x []float32, slots []int32, groups []int, nTokens int) {
	k, dim, h, n := m.NUsed, len(out)/nTokens, m.Gate[0].Rows, len(slots)
	if n == 0 {
		return
	}
	xe, ye, hb, hb2 := s.xe[:n*dim], s.ye[:n*dim], s.hb[:n*h], s.hb2[:n*h]
	for r, i := range slots {
		t := int(i) / k
		copy(xe[r*dim:(r+1)*dim], x[t*dim:(t+1)*dim])
	}
	b.MatMulGrouped(hb, m.Gate, xe, groups)
	b.MatMulGrouped(hb2, m.Up, xe, groups)
	if m.GateB != nil {
		m.addBiases(b, hb, m.GateB, groups)
		m.addBiases(b, hb2, m.UpB, groups)
	}
	m.Act.glu(b, hb, hb2)
	b.MatMulGrouped(ye, m.Down, hb, groups)
	if m.DownB != nil {
		m.addBiases(b, ye, m.DownB, groups)
	}
	r := 0
	for e, g := range groups {
		c := float32(1)
		if m.DownScale != nil {
			c = m.DownScale[e]
		}
		for _, i := range slots[r : r+g] {
			t := int(i) / k
			axpy(out[t*dim:(t+1)*dim], ye[r*dim:(r+1)*dim], s.weight[i]*c)
			r++
		}
	}
}

// addBiases adds bias[e] to each of the groups[e] rows of y that expert e
// computed.
func (m *MoE) addBiases(b native.Backend, y []float32, bias [][]float32, groups []int) {
	o := 0
	for e, g := range groups {
		if g == 0 {
			continue
		}
		w := len(bias[e])
		b.AddRows(y[o*w:(o+g)*w], bias[e])
		o += g
	}
}

// maxExperts bounds expert_count: llama.cpp's LLAMA_MAX_EXPERTS.
const maxExperts = 512

// softmax sets x to exp(x-max)/Σ, as ggml_soft_max computes it (float32
// exponentials, a float64 sum).
func softmax(x []float32) {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	var sum float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - m)))
		x[i] = e
		sum += float64(e)
	}
	scale(x, float32(1/sum))
}

// topK writes the indices of the len(idx) largest elements of p into idx,
// largest first; among equal elements the lower index comes first.
func topK(p []float32, idx []int32) {
	for j := range idx {
		best := -1
		for e, v := range p {
			if slices.Contains(idx[:j], int32(e)) {
				continue
			}
			if best < 0 || v > p[best] {
				best = e
			}
		}
		idx[j] = int32(best)
	}
}

// axpy sets dst += a·src.
func axpy(dst, src []float32, a float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += a * src[i]
	}
}

// swigluClamp sets gate[i] to gpt-oss's clamped SwiGLU of gate[i] and
// up[i], as ggml_swiglu_oai computes it (alpha 1.702, limit 7).
func swigluClamp(gate, up []float32) {
	const alpha, limit = 1.702, 7
	up = up[:len(gate)]
	for i, g := range gate {
		g = min(g, limit)
		u := min(max(up[i], -limit), limit)
		gate[i] = g / (1 + float32(math.Exp(float64(-alpha*g)))) * (u + 1)
	}
}

// SelfAttention is causal grouped-query attention over a layer's KV cache.
type SelfAttention struct {
	Q, K, V Linear  // [NHeads*HeadDim][Dim], [NKVHeads*HeadDim][Dim] ×2
	O       Linear  // [Dim][NHeads*HeadDim]
	QNorm   RMSNorm // optional q norm, per head [HeadDim] (Qwen3, Gemma 3) or over the whole row (OLMo 2); W nil if absent
	KNorm   RMSNorm // optional k norm, the same way [HeadDim] or [NKVHeads*HeadDim]
	NoPE    bool    // no rotary embedding in this layer (SmolLM3's every fourth layer)
	Rope    native.RoPE
	Attn    native.Attention

	// LongRoPE (Phi-3): a State whose context exceeds LongAfter positions
	// rotates by LongRope instead of Rope (LongAfter 0: never), and
	// RopeMScale, if not 0 or 1, multiplies the rotated elements of q and k
	// (ggml_rope_ext's attn_factor).
	LongRope   native.RoPE
	LongAfter  int
	RopeMScale float32
}

// Forward runs attention for the nTokens rows of x at positions pos0, …
// and writes the output projection into out. It stores the keys and values
// in s's cache of the given layer.
func (a *SelfAttention) Forward(b native.Backend, s *State, layer int, out, x []float32, pos0, nTokens int) {
	hd, nh, nkv := a.Attn.HeadDim, a.Attn.NHeads, a.Attn.NKVHeads
	q, k, v := s.q[:nTokens*nh*hd], s.k[:nTokens*nkv*hd], s.v[:nTokens*nkv*hd]
	// q, k, v projections
	forwardShared(b, s, x, nTokens, []Linear{a.Q, a.K, a.V}, [][]float32{q, k, v})
	// per-head q/k rmsnorm
	if a.QNorm.W != nil {
		a.QNorm.Forward(b, q, q)
		a.KNorm.Forward(b, k, k)
	}
	// rotary position embedding
	if !a.NoPE {
		rope := a.Rope
		if a.LongAfter > 0 && s.ctxLen > a.LongAfter {
			rope = a.LongRope
		}
		b.RoPE(q, nh, hd, pos0, nTokens, rope)
		b.RoPE(k, nkv, hd, pos0, nTokens, rope)
		if a.RopeMScale != 0 && a.RopeMScale != 1 {
			scaleRotated(q, hd, rope.Dim, a.RopeMScale)
			scaleRotated(k, hd, rope.Dim, a.RopeMScale)
		}
	}
	// a quantized cache holds rotated keys and values, as llama.cpp's
	rotV := kvRotate(s.KV(layer), hd, q, k, v)
	// save k, v at pos to the cache
	b.StoreKV(s.KV(layer), pos0, k, v, nTokens)
	// attention of the queries over positions ≤ pos (the whole call's
	// if its Input is NonCausal)
	att := s.att[:nTokens*nh*hd]
	b.Attend(att, q, s.KV(layer), pos0, nTokens, s.attention(a.Attn))
	kvUnrotate(att, rotV)
	// output projection
	a.O.Forward(b, out, att, nTokens)
}

// scaleRotated multiplies the first rotDim elements of each head of hd
// elements in x by c.
func scaleRotated(x []float32, hd, rotDim int, c float32) {
	for h := 0; h+hd <= len(x); h += hd {
		scale(x[h:h+rotDim], c)
	}
}

// Block is the tensors of one transformer block. An architecture loads the
// ones its blocks have (blockSpec); a norm a block lacks has W nil.
type Block struct {
	AttnNorm     RMSNorm       // blk.N.attn_norm.weight [Dim]: pre-attention norm
	Attn         SelfAttention // blk.N.attn_{q,k,v,output}.weight (+ .bias), attn_{q,k}_norm.weight
	PostAttnNorm RMSNorm       // blk.N.post_attention_norm.weight [Dim]
	FFNNorm      RMSNorm       // blk.N.ffn_norm.weight [Dim]: pre-MLP norm
	FFN          MLP           // blk.N.ffn_{gate,up}.weight [HiddenDim][Dim], ffn_down.weight [Dim][HiddenDim]
	MoE          *MoE          // blk.N.ffn_gate_inp.weight, ffn_{gate,up,down}_exps.weight, instead of FFN (nil if dense)
	PostFFNNorm  RMSNorm       // blk.N.post_ffw_norm.weight [Dim]
}

// qkNorm says how a block normalizes its queries and keys before RoPE.
type qkNorm int

const (
	qkNone    qkNorm = iota
	qkPerHead        // attn_{q,k}_norm.weight [HeadDim], applied to each head (Qwen3, Gemma, EXAONE 4)
	qkWhole          // attn_q_norm.weight [NHeads*HeadDim], attn_k_norm.weight [NKVHeads*HeadDim] (OLMo 2)
)

// blockSpec is the declarative list of an architecture's block tensors.
type blockSpec struct {
	preNorms  bool       // attn_norm and ffn_norm before attention and MLP
	postNorms bool       // post_attention_norm and post_ffw_norm after them
	qkNorm    qkNorm     // query/key norms
	act       Activation // MLP gate nonlinearity
	gateUp    bool       // ffn_up.weight [2·HiddenDim][Dim] holds the gate rows, then the up rows (Phi-3)
	moe       bool       // routed experts instead of the MLP (Qwen3-MoE, gpt-oss)
	// softmaxChosen weighs the experts by the softmax of the chosen ones'
	// scores instead of the renormalized probabilities (gpt-oss)
	softmaxChosen bool
}

// block loads block i as spec lists it, with attention rope and attn.
// Biases of the projections are loaded when the file has them. The query,
// key and value projections are either attn_q, attn_k and attn_v or, as
// llama.cpp's create_tensor_qkv accepts for every architecture, one fused
// attn_qkv.weight [NHeads*HeadDim + 2*NKVHeads*HeadDim][Dim] (+ .bias)
// whose rows are the three back to back.
func (l *loader) block(i int, p Params, spec blockSpec, rope native.RoPE, attn native.Attention) Block {
	blk := blockName(i)
	qDim, kvDim := p.NHeads*p.HeadDim, p.NKVHeads*p.HeadDim
	var ly Block
	if spec.preNorms {
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
	}
	ly.Attn = SelfAttention{O: l.linear(blk+"attn_output", p.Dim, qDim), Rope: rope, Attn: attn}
	if l.has(blk + "attn_qkv.weight") {
		qkv := l.split(blk+"attn_qkv", p.Dim, qDim, kvDim, kvDim)
		ly.Attn.Q, ly.Attn.K, ly.Attn.V = qkv[0], qkv[1], qkv[2]
	} else {
		ly.Attn.Q = l.linear(blk+"attn_q", qDim, p.Dim)
		ly.Attn.K = l.linear(blk+"attn_k", kvDim, p.Dim)
		ly.Attn.V = l.linear(blk+"attn_v", kvDim, p.Dim)
	}
	switch spec.qkNorm {
	case qkPerHead:
		ly.Attn.QNorm = l.norm(blk+"attn_q_norm", p.HeadDim, p.NormEps)
		ly.Attn.KNorm = l.norm(blk+"attn_k_norm", p.HeadDim, p.NormEps)
	case qkWhole:
		ly.Attn.QNorm = l.norm(blk+"attn_q_norm", qDim, p.NormEps)
		ly.Attn.KNorm = l.norm(blk+"attn_k_norm", kvDim, p.NormEps)
	}
	if spec.moe {
		e, h := p.NExperts, p.ExpertHiddenDim
		ly.MoE = &MoE{
			Router:   l.linear(blk+"ffn_gate_inp", e, p.Dim),
			Gate:     l.experts(blk+"ffn_gate_exps.weight", e, h, p.Dim),
			Up:       l.experts(blk+"ffn_up_exps.weight", e, h, p.Dim),
			Down:     l.experts(blk+"ffn_down_exps.weight", e, p.Dim, h),
			Act:      spec.act,
			NUsed:    p.NExpertsUsed,
			NormTopK: !spec.softmaxChosen,

			SoftmaxChosen: spec.softmaxChosen,
		}
		if l.has(blk + "ffn_gate_exps.bias") {
			ly.MoE.GateB = l.rows(blk+"ffn_gate_exps.bias", e, h)
			ly.MoE.UpB = l.rows(blk+"ffn_up_exps.bias", e, h)
			ly.MoE.DownB = l.rows(blk+"ffn_down_exps.bias", e, p.Dim)
		}
	} else {
		ly.FFN = l.mlp(blk, p, spec)
	}
	if spec.postNorms {
		ly.PostAttnNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps)
		ly.PostFFNNorm = l.norm(blk+"post_ffw_norm", p.Dim, p.NormEps)
	}
	return ly
}

// mlp loads the dense MLP of block prefix blk.
func (l *loader) mlp(blk string, p Params, spec blockSpec) MLP {
	var m MLP
	m.Act = spec.act
	if spec.gateUp {
		gu := l.split(blk+"ffn_up", p.Dim, p.HiddenDim, p.HiddenDim)
		m.Gate, m.Up = gu[0], gu[1]
	} else {
		m.Gate = l.linear(blk+"ffn_gate", p.HiddenDim, p.Dim)
		m.Up = l.linear(blk+"ffn_up", p.HiddenDim, p.Dim)
	}
	m.Down = l.linear(blk+"ffn_down", p.Dim, p.HiddenDim)
	return m
}

// decoder is what every architecture has around its blocks: the token
// embedding, the blocks, the final norm and the output projection.
type decoder struct {
	p Params
	b native.Backend

	TokEmbd native.Weight // token_embd.weight [VocabSize][Dim]
	Layers  []Block
	OutNorm RMSNorm // output_norm.weight [Dim]
	Output  Linear  // output.weight [VocabSize][Dim], or token_embd.weight when tied
}

// decoder loads the tensors outside the blocks and allocates p.NLayers
// blocks for the architecture to load.
func (l *loader) decoder(p Params) decoder {
	d := decoder{p: p, b: l.b, Layers: make([]Block, p.NLayers)}
	d.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	d.OutNorm = l.norm("output_norm", p.Dim, p.NormEps)
	d.Output = l.output(p)
	return d
}

// Params returns the hyper-parameters.
func (d *decoder) Params() Params { return d.p }

// Backend returns the backend the model runs on.
func (d *decoder) Backend() native.Backend { return d.b }

// embedding returns the token embedding, token_embd.weight.
func (d *decoder) embedding() native.Weight { return d.TokEmbd }

// embedInput writes the rows of in into the residual stream x (rows of
// w.Cols): the rows of w of in's tokens, scaled by tokenScale (1 for
// none), or in's embeddings as they are. Every architecture's forward
// pass begins with it.
func embedInput(b native.Backend, w native.Weight, in Input, x []float32, tokenScale float32) {
	if in.Tokens == nil {
		copy(x, in.Embeddings)
		return
	}
	x = x[:len(in.Tokens)*w.Cols]
	b.Embed(x, w, in.Tokens)
	if tokenScale != 1 {
		b.Scale(x, tokenScale)
	}
}

// addScaled sets dst += c·src (Granite's residual multiplier), scaling src
// in place.
func addScaled(b native.Backend, dst, src []float32, c float32) {
	if c != 1 {
		b.Scale(src, c)
	}
	b.Add(dst, src)
}

// scale sets x *= c, for the small host-side vectors of routing and
// RoPE scaling; activations are scaled by Backend.Scale.
func scale(x []float32, c float32) {
	for i := range x {
		x[i] *= c
	}
}

// softCap sets each x to c·tanh(x/c), Gemma 2's logit soft-capping.
func softCap(x []float32, c float32) {
	inv := 1 / c
	for i, v := range x {
		x[i] = c * float32(math.Tanh(float64(v*inv)))
	}
}

// head computes the logits of the last of nTokens rows of x (positions
// pos0, …): final norm, then the output projection.
func head(b native.Backend, s *State, norm RMSNorm, out Linear, x, scratch []float32, pos0, nTokens int, logits []float32) {
	dim := len(norm.W)
	last := x[(nTokens-1)*dim : nTokens*dim]
	norm.Forward(b, scratch[:dim], last)
	s.traced("output_norm", -1, scratch[:dim], dim, pos0+nTokens-1)
	out.Forward(b, logits[:out.W.Rows], scratch[:dim], 1)
	s.traced("output", -1, logits[:out.W.Rows], out.W.Rows, pos0+nTokens-1)
}

// loader reads tensors and keys of one architecture, remembering the first
// error so a loader can list its tensors without checking each one.
type loader struct {
	f    *gguf.File
	b    native.Backend
	arch string
	err  error
	// prepared holds the weights prepare interleaved, by their data's
	// address: a tensor loaded twice (a tied output) is rewritten once.
	prepared map[*byte]native.Weight
	// perLayer is set by architectures that read per-layer head counts,
	// head sizes and MLP widths themselves (gemma4): params then takes the
	// largest of a per-layer array and leaves the per-layer checks to them.
	perLayer bool
}

func (l *loader) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf(format, args...)
	}
}

// has reports whether the file holds tensor name.
func (l *loader) has(name string) bool {
	_, ok := l.f.Tensor(name)
	return ok
}

// weight returns tensor name as a rows×cols matrix (GGUF dims [cols, rows]),
// prepared for the backend.
func (l *loader) weight(name string, rows, cols int) native.Weight {
	return l.prepare(l.tensor(name, rows, cols))
}

// prepare lays w out as the backend multiplies it fastest: interleaved
// (native.Interleave16) where the backend is a native.Interleaver with
// kernels for w's type and the file's memory is private to this load.
func (l *loader) prepare(w native.Weight) native.Weight {
	ib, ok := l.b.(native.Interleaver)
	if !ok || l.err != nil || !l.f.Private() || !ib.Interleaves(w.Type) || !native.CanInterleave(w) {
		return w
	}
	key := &w.Data[0]
	if p, ok := l.prepared[key]; ok {
		if p.Rows != w.Rows || p.Cols != w.Cols {
			// its bytes are interleaved as the other shape: reading them
			// as this one would be wrong
			l.fail("tensor data at the same place loaded as %d×%d and as %d×%d: the loader cannot interleave it for both (map the file instead: Settings.Load = LoadMmap, --load mmap)",
				p.Rows, p.Cols, w.Rows, w.Cols)
		}
		return p
	}
	p, err := native.Interleave16(w)
	if err != nil {
		l.fail("%v", err)
		return w
	}
	if l.prepared == nil {
		l.prepared = map[*byte]native.Weight{}
	}
	l.prepared[key] = p
	l.f.MarkRewritten()
	return p
}

// tensor returns tensor name as a rows×cols matrix as stored.
func (l *loader) tensor(name string, rows, cols int) native.Weight {
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.fail("required tensor %q is missing", name)
		return native.Weight{}
	}
	if len(ti.Dims) > 2 || ti.Dims[0] != uint64(cols) || ti.Rows() != rows {
		l.fail("tensor %q has shape %v, want [%d %d]", name, ti.Dims, cols, rows)
		return native.Weight{}
	}
	if !l.b.Supports(ti.Type) {
		l.fail("tensor %q has type %s, which the %s backend cannot multiply", name, ti.Type, l.b.Name())
		return native.Weight{}
	}
	w := native.Weight{Type: ti.Type, Rows: rows, Cols: cols, Data: l.f.TensorData(ti)}
	if err := w.Check(); err != nil {
		l.fail("tensor %q: %v", name, err)
	}
	return w
}

// experts returns the 3-D tensor name (GGUF dims [cols, rows, n]) as n
// rows×cols matrices, each viewing its expert's part of the stored data.
func (l *loader) experts(name string, n, rows, cols int) []native.Weight {
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.fail("required tensor %q is missing", name)
		return nil
	}
	if len(ti.Dims) != 3 || ti.Dims[0] != uint64(cols) || ti.Dims[1] != uint64(rows) || ti.Dims[2] != uint64(n) {
		l.fail("tensor %q has shape %v, want [%d %d %d]", name, ti.Dims, cols, rows, n)
		return nil
	}
	if !l.b.Supports(ti.Type) {
		l.fail("tensor %q has type %s, which the %s backend cannot multiply", name, ti.Type, l.b.Name())
		return nil
	}
	whole := native.Weight{Type: ti.Type, Rows: n * rows, Cols: cols, Data: l.f.TensorData(ti)}
	if err := whole.Check(); err != nil {
		l.fail("tensor %q: %v", name, err)
		return nil
	}
	ws, size := make([]native.Weight, n), rows*whole.RowBytes()
	for e := range ws {
		ws[e] = native.Weight{Type: ti.Type, Rows: rows, Cols: cols, Data: whole.Data[e*size : (e+1)*size]}
	}
	return ws
}

// linear returns the projection name+".weight" with the bias
// name+".bias" if the file has one.
func (l *loader) linear(name string, rows, cols int) Linear {
	lin := l.linearAsStored(name, rows, cols)
	lin.W = l.prepare(lin.W)
	return lin
}

// linearAsStored is linear without prepare.
func (l *loader) linearAsStored(name string, rows, cols int) Linear {
	lin := Linear{W: l.tensor(name+".weight", rows, cols)}
	if l.has(name + ".bias") {
		lin.B = l.vector(name+".bias", rows)
	}
	return lin
}

// split returns the projection name+".weight" of sum(rows) rows of cols
// (with name+".bias" if present) as one Linear per part, each viewing its
// rows of the stored data.
func (l *loader) split(name string, cols int, rows ...int) []Linear {
	total := 0
	for _, r := range rows {
		total += r
	}
	whole := l.linearAsStored(name, total, cols)
	parts := make([]Linear, len(rows))
	if l.err != nil {
		return parts
	}
	rs, r0 := whole.W.RowBytes(), 0
	for i, r := range rows {
		parts[i].W = l.prepare(native.Weight{Type: whole.W.Type, Rows: r, Cols: cols, Data: whole.W.Data[r0*rs : (r0+r)*rs]})
		if whole.B != nil {
			parts[i].B = whole.B[r0 : r0+r]
		}
		r0 += r
	}
	return parts
}

// rows returns tensor name of n×size elements as n rows of size.
func (l *loader) rows(name string, n, size int) [][]float32 {
	v := l.vector(name, n*size)
	if v == nil {
		return nil
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = v[i*size : (i+1)*size]
	}
	return out
}

// vector returns the 1-D tensor name of n elements, converted to float32.
func (l *loader) vector(name string, n int) []float32 {
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.fail("required tensor %q is missing", name)
		return nil
	}
	if ti.Elements() != uint64(n) {
		l.fail("tensor %q has shape %v, want [%d]", name, ti.Dims, n)
		return nil
	}
	v := make([]float32, n)
	if err := ggml.Dequantize(ti.Type, l.f.TensorData(ti), v); err != nil {
		l.fail("tensor %q: %v", name, err)
		return nil
	}
	if i := firstNonFinite(v); i >= 0 {
		l.fail("tensor %q: element %d is %g", name, i, v[i])
		return nil
	}
	return v
}

// norm returns the RMSNorm of weight name+".weight" of n elements.
func (l *loader) norm(name string, n int, eps float32) RMSNorm {
	return RMSNorm{W: l.vector(name+".weight", n), Eps: eps}
}

// key returns the full name of an architecture key such as
// "attention.head_count".
func (l *loader) key(k string) string { return l.arch + "." + k }

// int returns the required integer key <arch>.k.
func (l *loader) int(k string) int {
	v, err := l.f.Int(l.key(k))
	if err != nil {
		l.fail("%w", err)
		return 0
	}
	if v <= 0 || v > 1<<31 {
		l.fail("key %q is %d, want a positive count", l.key(k), v)
		return 0
	}
	return int(v)
}

// intOr returns the integer key <arch>.k, or def if absent.
func (l *loader) intOr(k string, def int) int {
	if !l.f.Has(l.key(k)) {
		return def
	}
	return l.int(k)
}

// floatOr returns the number key <arch>.k, or def if absent.
func (l *loader) floatOr(k string, def float64) float64 {
	if !l.f.Has(l.key(k)) {
		return def
	}
	v, err := l.f.Float(l.key(k))
	if err != nil {
		l.fail("%w", err)
	}
	return v
}

// positiveFloat returns the required number key <arch>.k, which must be a
// finite number above zero.
func (l *loader) positiveFloat(k string) float64 {
	if !l.f.Has(l.key(k)) {
		l.fail("required key %q is missing", l.key(k))
		return 1
	}
	return l.positiveFloatOr(k, 1)
}

// boolOr returns the boolean key <arch>.k, or def if absent.
func (l *loader) boolOr(k string, def bool) bool {
	v, ok := l.f.Lookup(l.key(k))
	if !ok {
		return def
	}
	b, ok := v.Data.(bool)
	if !ok {
		l.fail("key %q is %v, want a bool", l.key(k), v.Data)
		return def
	}
	return b
}

// positiveFloatOr returns the number key <arch>.k, or def if absent. A
// value that is not a finite number above zero is refused: an epsilon of
// 0 or NaN, or a RoPE base of 0, would make every logit NaN.
func (l *loader) positiveFloatOr(k string, def float64) float64 {
	v := l.floatOr(k, def)
	if !(v > 0) || math.IsInf(v, 0) {
		l.fail("key %q is %.6g, want a finite number above 0", l.key(k), v)
		return def
	}
	return v
}

// stringOr returns the string key <arch>.k, or def if absent.
func (l *loader) stringOr(k, def string) string {
	if !l.f.Has(l.key(k)) {
		return def
	}
	v, err := l.f.String(l.key(k))
	if err != nil {
		l.fail("%w", err)
	}
	return v
}

// output returns the output projection, output.weight, or the token
// embedding when the model ties them.
func (l *loader) output(p Params) Linear {
	if l.has("output.weight") {
		return l.linear("output", p.VocabSize, p.Dim)
	}
	return Linear{W: l.weight("token_embd.weight", p.VocabSize, p.Dim)}
}
