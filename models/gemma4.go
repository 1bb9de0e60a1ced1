package models

import (
	"math"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Gemma4 is the text model of Google's Gemma 4 (dense: E2B, E4B, 31B):
// Gemma 3's block (q/k norms, RMSNorm before and after attention and
// MLP, GeGLU, sliding and global layers) with
//
//   - head sizes, KV head counts and MLP widths per layer: global layers
//     have wider heads (attention.key_length) than sliding ones
//     (key_length_swa), and may take their values from their keys (no
//     attn_v); E2B's shared-KV layers have a double-wide MLP;
//   - proportional RoPE on global layers: rope_freqs.weight parks the
//     pairs that do not rotate with a factor of 1e30;
//   - values RMS-normed, attention scale 1;
//   - optional per-layer embeddings (E2B, E4B), added after the MLP;
//   - KV sharing: the last attention.shared_kv_layers layers compute only
//     queries and attend over the cache of the last sliding or global
//     layer with one;
//   - an optional scalar per layer (layer_output_scale) and logits
//     soft-capped at final_logit_softcapping (30 when absent).
//
// The mixture-of-experts variant (26B-A4B) runs, in each layer with a
// router (ffn_gate_inp), the MLP as a shared expert beside NExpertsUsed of
// NExperts GeGLU experts: the router scores rms_norm(x)/√Dim ×
// ffn_gate_inp.scale, the chosen experts' softmax probabilities are
// renormalized to sum to 1 and each expert's output is scaled by
// ffn_down_exps.scale when present; the MLP's and the experts' outputs
// are normed (post_ffw_norm_1, post_ffw_norm_2) and summed before
// post_ffw_norm.
//
// It follows llama.cpp src/models/gemma4.cpp and its load_arch_hparams.
type Gemma4 struct {
	p Params
	b native.Backend

	TokEmbd  native.Weight // token_embd.weight [VocabSize][Dim]
	PerLayer *perLayerEmbedding
	Layers   []gemma4Block
	OutNorm  RMSNorm // output_norm.weight [Dim]
	Output   Linear  // output.weight or token_embd.weight
	finalCap float32 // final_logit_softcapping; 0 for none
}

// gemma4Block is one Gemma 4 block.
type gemma4Block struct {
	AttnNorm, PostAttnNorm RMSNorm // attn_norm, post_attention_norm [Dim]
	Attn                   gemmaAttention
	FFNNorm, PostFFNNorm   RMSNorm // ffn_norm, post_ffw_norm [Dim]
	FFN                    gemmaMLP
	PerLayer               perLayerBlock // Gate.W.Data nil without per-layer embeddings
	OutScale               float32       // layer_output_scale.weight, 1 when absent

	// Mixture of experts (nil for a dense layer) beside the MLP
	MoE                        *MoE
	RouterScale                []float32 // ffn_gate_inp.scale [Dim]
	PreMoENorm                 RMSNorm   // pre_ffw_norm_2 [Dim]: the experts' input
	PostFFNNorm1, PostMoENorm2 RMSNorm   // post_ffw_norm_1, post_ffw_norm_2 [Dim]
}

func init() { Register("gemma4", loadGemma4) }

// loadGemma4 reads hyper-parameters and tensors. Required: token_embd,
// output_norm, rope_freqs (if a layer is global), each block's attn_norm,
// attn_q, attn_output, attn_q_norm, post_attention_norm, ffn_norm,
// ffn_gate/up/down, post_ffw_norm, and attn_k and attn_k_norm in the
// layers with a cache; the per-layer embedding tensors when
// embedding_length_per_layer_input is above 0. Optional: output, attn_v
// (values are then the keys), layer_output_scale.
func loadGemma4(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "gemma4", perLayer: true}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	nl := p.NLayers
	p.Window = l.int("attention.sliding_window")
	if !l.f.Has(l.key("attention.sliding_window_pattern")) {
		l.fail("required key %q is missing", l.key("attention.sliding_window_pattern"))
	}
	local := l.localLayers(nl, 0)
	nHead := l.perLayerInts("attention.head_count", nl, 0)
	nKV := nHead
	if l.f.Has(l.key("attention.head_count_kv")) {
		nKV = l.perLayerInts("attention.head_count_kv", nl, 0)
	}
	ff := l.perLayerInts("feed_forward_length", nl, 0)
	shared := l.countOr("attention.shared_kv_layers", 0, nl-1)
	pl := l.countOr("embedding_length_per_layer_input", 0, 1<<16)
	hdSWA := l.int("attention.key_length_swa")
	if v := l.int("attention.value_length_swa"); v != hdSWA {
		l.fail("key length %d of sliding layers differs from their value length %d, which Gemma 4 does not allow", hdSWA, v)
	}
	ropeSWA := l.intOr("rope.dimension_count_swa", p.RopeDim)
	localBase := l.positiveFloatOr("rope.freq_base_swa", 10000)
	globalScale := l.ropeScale()
	finalCap := l.checkSoftCap("final_logit_softcapping", l.floatOr("final_logit_softcapping", 30))
	if l.has("blk.0.ffn_gate_inp.weight") {
		l.expertParams(&p)
	}
	for _, ti := range l.f.Tensors {
		// NVFP4's per-tensor scales (attn_q.scale, ffn_gate.scale, …)
		// multiply outputs this loader does not scale.
		if n := ti.Name; strings.HasSuffix(n, ".scale") && !strings.HasSuffix(n, "ffn_gate_inp.scale") && !strings.HasSuffix(n, "ffn_down_exps.scale") {
			l.fail("tensor %q (a per-tensor scale of NVFP4 weights) is not supported", n)
			break
		}
	}
	if ropeSWA > hdSWA || ropeSWA%2 != 0 {
		l.fail("rope dimension %d of sliding layers does not fit their heads of %d", ropeSWA, hdSWA)
	}
	if l.err != nil {
		return nil, l.err
	}
	var factors []float32
	for i := range nl {
		if !local[i] {
			if factors = l.vector("rope_freqs.weight", p.HeadDim/2); factors != nil {
				factors = factors[:p.RopeDim/2]
			}
			break
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	globalRope := native.NewRoPE(p.RopeDim, p.RopeBase, globalScale, factors, true)
	localRope := native.NewRoPE(ropeSWA, localBase, 1, nil, true)

	m := &Gemma4{p: p, b: b, Layers: make([]gemma4Block, nl), finalCap: finalCap}
	m.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	if pl > 0 {
		e := l.loadPerLayerEmbedding(p, pl)
		m.PerLayer = &e
	}
	m.OutNorm = l.norm("output_norm", p.Dim, p.NormEps)
	m.Output = l.output(p)
	kvLayers := nl - shared
	for i := range m.Layers {
		blk, ly := blockName(i), &m.Layers[i]
		hd, rope := p.HeadDim, globalRope
		if local[i] {
			hd, rope = hdSWA, localRope
		}
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.Attn = l.loadGemmaAttention(i, p.Dim, nHead[i], nKV[i], hd, p.NormEps, i < kvLayers, true)
		ly.Attn.Rope, ly.Attn.KVLayer = rope, l.sharedKVSource(i, kvLayers, local)
		ly.Attn.Attn = native.Attention{NHeads: nHead[i], NKVHeads: nKV[i], HeadDim: hd, Scale: 1}
		if local[i] {
			ly.Attn.Attn.Window = p.Window
		}
		switch src := ly.Attn.KVLayer; {
		case nHead[i]%nKV[i] != 0:
			l.fail("layer %d: %d heads are not a multiple of %d KV heads", i, nHead[i], nKV[i])
		case nKV[i] != nKV[src]:
			l.fail("layer %d has %d KV heads but reads the cache of layer %d, which has %d", i, nKV[i], src, nKV[src])
		}
		ly.PostAttnNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
		ly.FFN = gemmaMLP{
			Gate: l.linear(blk+"ffn_gate", ff[i], p.Dim),
			Up:   l.linear(blk+"ffn_up", ff[i], p.Dim),
			Down: l.linear(blk+"ffn_down", p.Dim, ff[i]),
		}
		ly.PostFFNNorm = l.norm(blk+"post_ffw_norm", p.Dim, p.NormEps)
		if l.has(blk + "ffn_gate_inp.weight") {
			l.loadGemma4MoE(blk, p, ly)
		}
		if pl > 0 {
			ly.PerLayer = l.loadPerLayerBlock(blk, p.Dim, pl, p.NormEps)
		}
		ly.OutScale = 1
		if l.has(blk + "layer_output_scale.weight") {
			if v := l.vector(blk+"layer_output_scale.weight", 1); v != nil {
				ly.OutScale = v[0]
			}
		}
		if l.err != nil {
			return nil, l.err
		}
	}
	return m, nil
}

// loadGemma4MoE loads block prefix blk's experts, router and norms.
func (l *loader) loadGemma4MoE(blk string, p Params, ly *gemma4Block) {
	if p.NExperts == 0 {
		l.fail("tensor %q: layer 0 has no router, so the file declares no experts", blk+"ffn_gate_inp.weight")
		return
	}
	if l.has(blk + "ffn_gate_up_exps.weight") {
		l.fail("tensor %q (gate and up experts fused) is not supported", blk+"ffn_gate_up_exps.weight")
		return
	}
	e, h := p.NExperts, p.ExpertHiddenDim
	ly.MoE = &MoE{
		Router:   l.linear(blk+"ffn_gate_inp", e, p.Dim),
		Gate:     l.experts(blk+"ffn_gate_exps.weight", e, h, p.Dim),
		Up:       l.experts(blk+"ffn_up_exps.weight", e, h, p.Dim),
		Down:     l.experts(blk+"ffn_down_exps.weight", e, p.Dim, h),
		Act:      GELU,
		NUsed:    p.NExpertsUsed,
		NormTopK: true,
	}
	if l.has(blk + "ffn_down_exps.scale") {
		ly.MoE.DownScale = l.vector(blk+"ffn_down_exps.scale", e)
	}
	ly.RouterScale = l.vector(blk+"ffn_gate_inp.scale", p.Dim)
	ly.PreMoENorm = l.norm(blk+"pre_ffw_norm_2", p.Dim, p.NormEps)
	ly.PostFFNNorm1 = l.norm(blk+"post_ffw_norm_1", p.Dim, p.NormEps)
	ly.PostMoENorm2 = l.norm(blk+"post_ffw_norm_2", p.Dim, p.NormEps)
}

// experts adds, to the MLP's output ffn, a MoE layer's experts run on
// attn (the attention block's output), both normed.
func (m *Gemma4) experts(s *State, ly *gemma4Block, ffn, attn []float32, n int) {
	b, dim := m.b, m.p.Dim
	ly.PostFFNNorm1.Forward(b, ffn, ffn)
	// the router's input: rms_norm(x)/√Dim × ffn_gate_inp.scale
	rin := s.Buffer(bufGemmaAux, n*dim)
	b.RMSNorm(rin, attn, ly.RouterScale, dim, m.p.NormEps)
	scale(rin, 1/float32(math.Sqrt(float64(dim))))
	route := s.Buffer(bufGemmaRoute, n*m.p.NExperts)
	ly.MoE.Router.Forward(b, route, rin, n)
	in := s.Buffer(bufGemmaPred, n*dim)
	ly.PreMoENorm.Forward(b, in, attn)
	out := s.Buffer(bufGemmaXB, n*dim)
	ly.MoE.forwardRouted(b, s, out, in, route, n)
	ly.PostMoENorm2.Forward(b, out, out)
	b.Add(ffn, out)
}

// countOr returns the count key <arch>.k, from 0 to most, or def if
// absent.
func (l *loader) countOr(k string, def, most int) int {
	if !l.f.Has(l.key(k)) {
		return def
	}
	v, err := l.f.Int(l.key(k))
	if err != nil {
		l.fail("%w", err)
		return def
	}
	if v < 0 || v > int64(most) {
		l.fail("key %q is %d, want 0 to %d", l.key(k), v, most)
		return def
	}
	return int(v)
}

// Params returns the hyper-parameters: HeadDim, NKVHeads and HiddenDim are
// the largest of any layer.
func (m *Gemma4) Params() Params { return m.p }

// Backend returns the backend the model runs on.
func (m *Gemma4) Backend() native.Backend { return m.b }

// embedding returns the token embedding, token_embd.weight.
func (m *Gemma4) embedding() native.Weight { return m.TokEmbd }

// Caches says which layers have a cache of their own, of which width, and
// which share one.
func (m *Gemma4) Caches() []LayerCache {
	attn := make([]*gemmaAttention, len(m.Layers))
	for i := range m.Layers {
		attn[i] = &m.Layers[i].Attn
	}
	return gemmaCaches(attn)
}

// Forward runs a batch through the model (see Model.Forward). Rows of
// input embeddings take token 0's per-layer embeddings, as llama.cpp's.
func (m *Gemma4) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	b, n, pos0, dim := m.b, in.Len(), s.Len(), m.p.Dim
	nd := n * dim
	x := s.Buffer(bufGemmaX, nd)
	// token embeddings scaled by √Dim (input embeddings as they are)
	embedInput(b, m.TokEmbd, in, x, float32(math.Sqrt(float64(dim))))
	s.traced("token_embd", -1, x, dim, pos0)
	var ple []float32
	if m.PerLayer != nil {
		pl := m.PerLayer.Size
		ple = s.Buffer(bufGemmaPLE, m.p.NLayers*n*pl)
		m.PerLayer.forward(b, s, ple, x, in.Tokens, n)
	}
	xb := s.Buffer(bufGemmaXB, nd)
	attn := s.Buffer(bufGemmaAttn, nd)
	ffn := s.Buffer(bufGemmaFFN, nd)
	for i := range m.Layers {
		ly := &m.Layers[i]
		// attention rmsnorm, self-attention (on an earlier layer's cache
		// in the last layers), post-attention rmsnorm, residual
		ly.AttnNorm.Forward(b, xb, x)
		ly.Attn.forward(b, s, i, attn, xb, pos0, n)
		ly.PostAttnNorm.Forward(b, attn, attn)
		b.Add(attn, x)
		s.traced("attention", i, attn, dim, pos0)
		// ffn rmsnorm, GeGLU MLP (beside the experts), post-ffn rmsnorm,
		// residual
		ly.FFNNorm.Forward(b, xb, attn)
		ly.FFN.forward(b, s, ffn, xb, n)
		if ly.MoE != nil {
			m.experts(s, ly, ffn, attn, n)
		}
		ly.PostFFNNorm.Forward(b, ffn, ffn)
		for j, v := range ffn {
			x[j] = v + attn[j]
		}
		s.traced("feed-forward", i, x, dim, pos0)
		// per-layer embedding, residual
		if ple != nil {
			pl := m.PerLayer.Size
			ly.PerLayer.forward(b, ffn, x, ple[i*n*pl:(i+1)*n*pl], s.Buffer(bufGemmaAux2, n*pl), n)
			b.Add(x, ffn)
		}
		if ly.OutScale != 1 {
			scale(x, ly.OutScale)
		}
	}
	s.advance(n)
	if logits != nil {
		// final rmsnorm and classifier, last token only, soft-capped
		head(b, s, m.OutNorm, m.Output, x, xb, pos0, n, logits)
		if m.finalCap > 0 {
			softCap(logits[:m.p.VocabSize], m.finalCap)
		}
	}
}
