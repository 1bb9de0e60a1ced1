package synth

import (
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models/gguf"
)

// GemmaN holds what Gemma 3n and Gemma 4 add to the Gemma 3 layout: per-layer
// token embeddings, layers that read an earlier layer's KV cache, and, for
// Gemma 3n, AltUp and LAuReL; for Gemma 4, head sizes that differ between
// sliding and global layers and a proportional RoPE on the global ones.
type GemmaN struct {
	// PerLayer is embedding_length_per_layer_input, the width of each
	// layer's slice of per_layer_token_embd (gemma3n: 256, which llama.cpp
	// fixes).
	PerLayer int
	// SharedKV is attention.shared_kv_layers: the last SharedKV layers have
	// no cache of their own (gemma3n: llama.cpp fixes the first 20 layers as
	// the ones with a cache).
	SharedKV int
	// AltUp selects Gemma 3n's four AltUp streams and LAuReL of rank 64.
	AltUp bool

	// Gemma 4:
	HeadDimSWA    int     // attention.key_length_swa of the sliding layers (HeadDim: the global ones)
	NHeadKVGlobal int     // KV heads of the global layers (attention.head_count_kv becomes an array); 0: NHeadKV
	RopePartial   float64 // fraction of a global head's pairs that rotate; rope_freqs.weight parks the rest
	WideShared    bool    // use_double_wide_mlp: the shared-KV layers have 2·NFF hidden units
	KEqV          bool    // the global layers have no attn_v: their values are the keys
	OutScale      bool    // blk.N.layer_output_scale.weight
}

// Gemma 3n's constants, as llama.cpp's llama_hparams fixes them.
const (
	gemma3nAltUp      = 4  // n_altup
	gemma3nLaurelRank = 64 // laurel_rank
	gemma3nKVLayers   = 20 // n_layer_kv_from_start
)

// gemmaNShapes returns the full-size Gemma 3n and Gemma 4 shapes.
func gemmaNShapes() []Shape {
	return []Shape{
		// gemma-3n-E2B (text model): 30 layers, the last 10 reading the
		// caches of layers 18 and 19; the vocabulary of 262400 that
		// convert_hf_to_gguf pads both embeddings to.
		{Name: "gemma3n-e2b", Arch: "gemma3n", NEmbd: 2048, NLayer: 30, NHead: 8, NHeadKV: 2, HeadDim: 256, NFF: 8192,
			NVocab: 262400, NCtx: 32768, NormEps: 1e-6, RopeBase: 1e6, RopeBaseSWA: 10000, SlidingWin: 512, SWAPeriod: 5,
			QKNorm: true, PostNorms: true, Tied: true, vocab: vocabGemma,
			GemmaN: &GemmaN{PerLayer: 256, SharedKV: 10, AltUp: true}},
		// gemma-4-E2B (text model), as its config.json describes it: 35
		// layers (llama.cpp's E2B), every fifth global with 512-wide heads
		// and proportional RoPE over a quarter of them, sliding layers of
		// 256-wide heads, the last 20 layers reading the caches of layers 13
		// and 14 and having a double-wide MLP.
		{Name: "gemma4-e2b", Arch: "gemma4", NEmbd: 1536, NLayer: 35, NHead: 8, NHeadKV: 1, HeadDim: 512, NFF: 6144,
			NVocab: 262144, NCtx: 131072, NormEps: 1e-6, RopeBase: 1e6, RopeBaseSWA: 10000, SlidingWin: 512, SWAPeriod: 5,
			QKNorm: true, PostNorms: true, Tied: true, FinalSoftcap: 30, vocab: vocabGemma,
			GemmaN: &GemmaN{PerLayer: 256, SharedKV: 20, HeadDimSWA: 256, RopePartial: 0.25, WideShared: true, OutScale: true}},
		// gemma-4-26B-A4B (text model), from the metadata of llama.cpp's
		// ggml-vocab-gemma-4.gguf: 30 layers, every sixth global, 128
		// experts of 704 (8 per token) beside a 2112-wide MLP in every
		// layer, global layers of 2 KV heads of 512, sliding ones of 8 of
		// 256, no per-layer embeddings or shared caches.
		{Name: "gemma4-26b-a4b", Arch: "gemma4", NEmbd: 2816, NLayer: 30, NHead: 16, NHeadKV: 8, HeadDim: 512, NFF: 2112,
			NVocab: 262144, NCtx: 262144, NormEps: 1e-6, RopeBase: 1e6, RopeBaseSWA: 10000, SlidingWin: 1024, SWAPeriod: 6,
			QKNorm: true, PostNorms: true, Tied: true, FinalSoftcap: 30, vocab: vocabGemma,
			NExpert: 128, NExpertUsed: 8, NFFExp: 704,
			GemmaN: &GemmaN{HeadDimSWA: 256, NHeadKVGlobal: 2, RopePartial: 0.25, KEqV: true, OutScale: true}},
	}
}

// tinyGemmaN shrinks a Gemma 3n or Gemma 4 shape. Tiny Gemma 3n keeps 25
// layers, because llama.cpp gives the first 20 their own cache whatever the
// file says: layers 20–24 share, layer 24 (global) reading layer 19's cache.
func tinyGemmaN(t *Shape) {
	t.NHead, t.NHeadKV, t.NEmbd, t.NFF, t.SlidingWin = 4, 1, 128, 256, 16
	g := *t.GemmaN
	switch t.Arch {
	case "gemma3n":
		t.NLayer, t.HeadDim = gemma3nKVLayers+5, 32
		g.SharedKV = 5
	case "gemma4":
		if t.NExpert > 0 {
			// 2:1 and 8:1 GQA; 4 experts of 64, every one used: the experts'
			// sum is normed (post_ffw_norm_2), so a near-tie in the choice
			// of fewer, which llama.cpp's activation rounding flips, moves
			// the tiny logits by 0.1 to 0.3 (measured with 2 of 8)
			t.NLayer, t.NHead, t.NHeadKV, t.HeadDim, t.NFF = 6, 8, 4, 64, 128
			t.NExpert, t.NExpertUsed, t.NFFExp = 4, 4, 64
			g.HeadDimSWA, g.NHeadKVGlobal = 32, 1
			t.FinalSoftcap = 2
			break
		}
		t.NLayer, t.NHead, t.HeadDim = 10, 8, 64
		// and the 31B's global layers: two KV heads, values equal to keys
		g.PerLayer, g.SharedKV, g.HeadDimSWA, g.NHeadKVGlobal, g.KEqV = 64, 5, 32, 2, true
		// a cap that bites at these widths, as tiny-gemma2's
		t.FinalSoftcap = 2
	}
	t.GemmaN = &g
}

// kvLayers is the number of layers with their own KV cache.
func (s Shape) kvLayers() int {
	if s.Arch == "gemma3n" {
		return min(s.NLayer, gemma3nKVLayers)
	}
	return s.NLayer - s.GemmaN.SharedKV
}

// headDim is the head size of layer il.
func (s Shape) headDim(il int) int {
	if g := s.GemmaN; g != nil && g.HeadDimSWA != 0 && s.isSWA(il) {
		return g.HeadDimSWA
	}
	return s.HeadDim
}

// headKV is the number of KV heads of layer il.
func (s Shape) headKV(il int) int {
	if g := s.GemmaN; g != nil && g.NHeadKVGlobal != 0 && !s.isSWA(il) {
		return g.NHeadKVGlobal
	}
	return s.NHeadKV
}

// ff is the MLP width of layer il.
func (s Shape) ff(il int) int {
	if g := s.GemmaN; g != nil && g.WideShared && il >= s.kvLayers() {
		return 2 * s.NFF
	}
	return s.NFF
}

// gemmaNKV adds the Gemma 3n / Gemma 4 keys to kv, the architecture
// metadata archKV wrote, replacing the scalars that become per-layer arrays.
func (s Shape) gemmaNKV(kv []gguf.KV) []gguf.KV {
	a, g := s.Arch+".", s.GemmaN
	set := func(k string, v gguf.Value) {
		for i := range kv {
			if kv[i].Key == a+k {
				kv[i].Value = v
				return
			}
		}
		kv = append(kv, gguf.KV{Key: a + k, Value: v})
	}
	set("attention.key_length", gguf.Uint32(uint32(s.HeadDim)))
	set("attention.value_length", gguf.Uint32(uint32(s.HeadDim)))
	swa := make([]bool, s.NLayer)
	for il := range swa {
		swa[il] = s.isSWA(il)
	}
	set("attention.sliding_window_pattern", gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool, Data: swa})
	if g.WideShared || s.Arch == "gemma3n" {
		// per layer, as convert_hf_to_gguf writes config.json's list
		// (gemma3n) or the double-wide shared layers (gemma4)
		ff := make([]int32, s.NLayer)
		for il := range ff {
			ff[il] = int32(s.ff(il))
		}
		set("feed_forward_length", gguf.Int32s(ff))
	}
	if s.Arch == "gemma3n" {
		set("altup.active_idx", gguf.Uint32(0))
		set("altup.num_inputs", gguf.Uint32(gemma3nAltUp))
		set("embedding_length_per_layer_input", gguf.Uint32(uint32(g.PerLayer)))
		set("attention.shared_kv_layers", gguf.Uint32(uint32(g.SharedKV)))
		return kv
	}
	set("attention.shared_kv_layers", gguf.Uint32(uint32(g.SharedKV)))
	set("embedding_length_per_layer_input", gguf.Uint32(uint32(g.PerLayer)))
	set("attention.key_length_swa", gguf.Uint32(uint32(g.HeadDimSWA)))
	set("attention.value_length_swa", gguf.Uint32(uint32(g.HeadDimSWA)))
	set("rope.dimension_count", gguf.Uint32(uint32(s.HeadDim)))
	set("rope.dimension_count_swa", gguf.Uint32(uint32(g.HeadDimSWA)))
	set("final_logit_softcapping", gguf.Float32(s.FinalSoftcap))
	if g.NHeadKVGlobal != 0 {
		hkv := make([]int32, s.NLayer)
		for il := range hkv {
			hkv[il] = int32(s.headKV(il))
		}
		set("attention.head_count_kv", gguf.Int32s(hkv))
	}
	return kv
}

// ropeProportional returns Gemma 4's rope_freqs.weight as
// convert_hf_to_gguf writes it: factor 1 for the pairs of a global head that
// rotate, 1e30 (no rotation) for the others.
func (s Shape) ropeProportional() []float32 {
	n := s.HeadDim / 2
	rot := int(float64(s.HeadDim) * s.GemmaN.RopePartial / 2)
	out := make([]float32, n)
	for i := range out {
		out[i] = 1
		if i >= rot {
			out[i] = 1e30
		}
	}
	return out
}

// initRopeProportional draws Gemma 4's rope_freqs.weight (ropeProportional).
const initRopeProportional initKind = 100

// gemmaNTensors lists the tensors of a Gemma 3n or Gemma 4 shape in the
// order of llama.cpp's load_arch_tensors.
func (s Shape) gemmaNTensors(nVocab int) []tensorSpec {
	g := s.GemmaN
	e, pl := uint64(s.NEmbd), uint64(g.PerLayer)
	nl := uint64(s.NLayer)
	outStd := float32(weightStd / math.Sqrt(2*float64(s.NLayer)))
	var ts []tensorSpec
	add := func(name string, layer int, cat category, kind initKind, mean, std float32, dims ...uint64) {
		ts = append(ts, tensorSpec{name: name, dims: dims, kind: kind, mean: mean, std: std, layer: layer, cat: cat})
	}
	matrix := func(name string, layer int, cat category, std float32, dims ...uint64) {
		add(name, layer, cat, initNormal, 0, std, dims...)
	}
	norm := func(name string, layer int, n uint64) { add(name, layer, catOther, initNormal, 1, normStd, n) }
	// Attention runs at scale 1 on normed queries and keys: norm weights
	// of hd^-¼ keep q·k of random heads at unit spread, where weights of 1
	// would give scores of spread √hd, a near-argmax softmax that the
	// rounding of an activation flips (trained models learn such weights).
	qkNorm := func(name string, layer int, hd uint64) {
		add(name, layer, catOther, initNormal, float32(math.Pow(float64(hd), -0.25)), normStd, hd)
	}

	matrix("token_embd.weight", -1, catTokenEmbd, weightStd, e, uint64(nVocab))
	if s.Arch == "gemma4" && g.RopePartial > 0 {
		add("rope_freqs.weight", -1, catOther, initRopeProportional, 0, 0, uint64(s.HeadDim/2))
	}
	if g.AltUp {
		a := uint64(gemma3nAltUp)
		matrix("altup_proj.weight", -1, catOther, weightStd, e, e, a-1)
		matrix("altup_unembd_proj.weight", -1, catOther, weightStd, e, e, a-1)
	}
	if g.PerLayer > 0 {
		matrix("per_layer_token_embd.weight", -1, catOther, weightStd, pl*nl, uint64(nVocab))
		matrix("per_layer_model_proj.weight", -1, catOther, weightStd, e, pl*nl)
		norm("per_layer_proj_norm.weight", -1, pl)
	}
	norm("output_norm.weight", -1, e)
	for il := range s.NLayer {
		p := fmt.Sprintf("blk.%d.", il)
		hd, hkv, kvOwn := uint64(s.headDim(il)), uint64(s.headKV(il)), il < s.kvLayers()
		q, kv := hd*uint64(s.NHead), hd*hkv
		norm(p+"attn_norm.weight", il, e)
		matrix(p+"attn_q.weight", il, catAttnQ, weightStd, e, q)
		// Gemma 3n keeps k and v in every layer; Gemma 4 drops them where
		// no cache is written, and v where values are the keys.
		if kvOwn || s.Arch == "gemma3n" {
			matrix(p+"attn_k.weight", il, catAttnK, weightStd, e, kv)
			if !(g.KEqV && !s.isSWA(il)) {
				matrix(p+"attn_v.weight", il, catAttnV, weightStd, e, kv)
			}
		}
		matrix(p+"attn_output.weight", il, catAttnOut, outStd, q, e)
		qkNorm(p+"attn_q_norm.weight", il, hd)
		if kvOwn || s.Arch == "gemma3n" {
			qkNorm(p+"attn_k_norm.weight", il, hd)
		}
		norm(p+"post_attention_norm.weight", il, e)
		if g.OutScale {
			add(p+"layer_output_scale.weight", il, catOther, initNormal, 0.9, 0.05, 1)
		}
		ff := uint64(s.ff(il))
		norm(p+"ffn_norm.weight", il, e)
		matrix(p+"ffn_gate.weight", il, catFFNGate, weightStd, e, ff)
		matrix(p+"ffn_up.weight", il, catFFNUp, weightStd, e, ff)
		matrix(p+"ffn_down.weight", il, catFFNDown, outStd, ff, e)
		norm(p+"post_ffw_norm.weight", il, e)
		if s.NExpert > 0 {
			x, fe := uint64(s.NExpert), uint64(s.NFFExp)
			matrix(p+"ffn_gate_inp.weight", il, catOther, weightStd, e, x)
			// The router sees rms_norm(x)/√Dim × this scale: a scale of
			// √Dim gives its scores the spread of Qwen3-MoE's (about 0.2
			// here); one of 1 would leave the experts all but tied, their
			// choice flipped by any rounding.
			rs := float32(math.Sqrt(float64(s.NEmbd)))
			add(p+"ffn_gate_inp.scale", il, catOther, initNormal, rs, normStd*rs, e)
			norm(p+"pre_ffw_norm_2.weight", il, e)
			norm(p+"post_ffw_norm_1.weight", il, e)
			norm(p+"post_ffw_norm_2.weight", il, e)
			add(p+"ffn_gate_exps.weight", il, catFFNGate, initNormal, 0, weightStd, e, fe, x)
			add(p+"ffn_up_exps.weight", il, catFFNUp, initNormal, 0, weightStd, e, fe, x)
			add(p+"ffn_down_exps.weight", il, catFFNDown, initNormal, 0, outStd, fe, e, x)
			add(p+"ffn_down_exps.scale", il, catOther, initNormal, 1, 0.1, x)
		}
		if g.PerLayer > 0 {
			matrix(p+"inp_gate.weight", il, catOther, weightStd, e, pl)
			matrix(p+"proj.weight", il, catOther, weightStd, pl, e)
			norm(p+"post_norm.weight", il, e)
		}
		if g.AltUp {
			a, r := uint64(gemma3nAltUp), uint64(gemma3nLaurelRank)
			matrix(p+"altup_correct_coef.weight", il, catOther, weightStd, a, a)
			norm(p+"altup_correct_scale.weight", il, e)
			matrix(p+"altup_predict_coef.weight", il, catOther, weightStd, a, a*a)
			matrix(p+"altup_router.weight", il, catOther, weightStd, e, a)
			norm(p+"altup_router_norm.weight", il, e)
			matrix(p+"laurel_l.weight", il, catOther, weightStd, e, r)
			matrix(p+"laurel_r.weight", il, catOther, weightStd, r, e)
			norm(p+"laurel_post_norm.weight", il, e)
		}
	}
	return ts
}
