package synth

import (
	"fmt"
	"math"
	"slices"

	"github.com/litert-go/litert-go/models/gguf"
)

// Hybrid holds the layer mix of the recurrent/convolutional hybrids: LFM2
// (short gated convolutions between GQA attention layers, llama.cpp
// src/models/lfm2.cpp) and Qwen3.5 (gated DeltaNet layers between gated
// attention layers, src/models/qwen35.cpp).
type Hybrid struct {
	// LFM2: the conv kernel (shortconv.l_cache) and the layers that have
	// attention (head_count_kv > 0 in the per-layer array); the others
	// are conv layers.
	ConvLCache int
	AttnLayers []int

	// Qwen3.5: every FullAttnInterval-th layer has attention, the others
	// are DeltaNet layers with NKHeads key and NVHeads value heads of
	// StateDim, after a causal conv of ConvKernel taps; RopeSections is
	// rope.dimension_sections (M-RoPE, which rotates text as NeoX RoPE).
	ConvKernel, NKHeads, NVHeads, StateDim int
	FullAttnInterval                       int
	RopeSections                           [4]int
}

// recurrent reports whether layer il of s is a conv (LFM2) or DeltaNet
// (Qwen3.5) layer, as llama.cpp's hparams.is_recr.
func (s Shape) recurrent(il int) bool {
	if s.Arch == "lfm2" {
		return !slices.Contains(s.Hybrid.AttnLayers, il)
	}
	return (il+1)%s.Hybrid.FullAttnInterval != 0
}

// hybridShapes are the full-size hybrid shapes, from the models'
// config.json.
func hybridShapes() []Shape {
	return []Shape{
		// LFM2-350M: 10 conv and 6 attention layers; llama.cpp's n_ff 4608
		// is the config's 6656 after block_auto_adjust_ff_dim.
		{Name: "lfm2-350m", Arch: "lfm2", NEmbd: 1024, NLayer: 16, NHead: 16, NHeadKV: 8, HeadDim: 64, NFF: 4608,
			NVocab: 65536, NCtx: 128000, NormEps: 1e-5, RopeBase: 1e6, QKNorm: true, Tied: true, vocab: vocabChatML,
			Hybrid: &Hybrid{ConvLCache: 3, AttnLayers: []int{2, 5, 8, 10, 12, 14}}},
		// Qwen3.5-0.8B: 18 DeltaNet layers (16 heads of 128), every fourth
		// layer gated attention (8 heads of 256, 2 KV heads, a quarter of
		// each head rotating).
		{Name: "qwen3.5-0.8b", Arch: "qwen35", NEmbd: 1024, NLayer: 24, NHead: 8, NHeadKV: 2, HeadDim: 256, NFF: 3584,
			NVocab: 248320, NCtx: 262144, NormEps: 1e-6, RopeBase: 1e7, RopeDim: 64, QKNorm: true, Tied: true, vocab: vocabChatML,
			Hybrid: &Hybrid{ConvKernel: 4, NKHeads: 16, NVHeads: 16, StateDim: 128, FullAttnInterval: 4,
				RopeSections: [4]int{11, 11, 10, 0}}},
	}
}

// tinyHybrid shrinks a hybrid shape t (already through tiny's defaults).
func tinyHybrid(t Shape) Shape {
	h := *t.Hybrid
	switch t.Arch {
	case "lfm2": // conv, conv, attention, conv, attention; 2:1 GQA
		t.NLayer, t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 5, 4, 2, 32, 128, 384
		h.AttnLayers = []int{2, 4}
	case "qwen35": // DeltaNet ×2, attention, ×2; 4:1 GQA; 2 key heads tiled over 4 value heads
		t.NLayer, t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF, t.RopeDim = 6, 4, 1, 32, 128, 384, 8
		h.NKHeads, h.NVHeads, h.StateDim, h.FullAttnInterval = 2, 4, 32, 3
		h.RopeSections = [4]int{2, 1, 1, 0}
	}
	t.Hybrid = &h
	return t
}

// hybridKV adjusts the metadata of archKV for a hybrid shape.
func (s Shape) hybridKV(kv []gguf.KV) []gguf.KV {
	a, h := s.Arch+".", s.Hybrid
	set := func(key string, v gguf.Value) {
		for i := range kv {
			if kv[i].Key == key {
				kv[i].Value = v
				return
			}
		}
		kv = append(kv, gguf.KV{Key: key, Value: v})
	}
	switch s.Arch {
	case "lfm2":
		perLayer := make([]int32, s.NLayer)
		for il := range perLayer {
			if !s.recurrent(il) {
				perLayer[il] = int32(s.NHeadKV)
			}
		}
		set(a+"attention.head_count_kv", gguf.Int32s(perLayer))
		set(a+"shortconv.l_cache", gguf.Uint32(uint32(h.ConvLCache)))
	case "qwen35":
		set(a+"ssm.conv_kernel", gguf.Uint32(uint32(h.ConvKernel)))
		set(a+"ssm.state_size", gguf.Uint32(uint32(h.StateDim)))
		set(a+"ssm.group_count", gguf.Uint32(uint32(h.NKHeads)))
		set(a+"ssm.time_step_rank", gguf.Uint32(uint32(h.NVHeads)))
		set(a+"ssm.inner_size", gguf.Uint32(uint32(h.NVHeads*h.StateDim)))
		set(a+"full_attention_interval", gguf.Uint32(uint32(h.FullAttnInterval)))
		sec := make([]int32, 4)
		for i, v := range h.RopeSections {
			sec[i] = int32(v)
		}
		set(a+"rope.dimension_sections", gguf.Int32s(sec))
	}
	return kv
}

// hybridTensors lists the tensors of a hybrid shape, with llama.cpp's
// names (llama_model_lfm2/qwen35::load_arch_tensors).
func (s Shape) hybridTensors(nVocab int) []tensorSpec {
	e, ff, hd := uint64(s.NEmbd), uint64(s.NFF), uint64(s.HeadDim)
	q, kv := uint64(s.NHead)*hd, uint64(s.NHeadKV)*hd
	outStd := float32(weightStd / math.Sqrt(2*float64(s.NLayer)))
	var ts []tensorSpec
	add := func(name string, layer int, cat category, mean, std float32, dims ...uint64) {
		ts = append(ts, tensorSpec{name: name, dims: dims, mean: mean, std: std, layer: layer, cat: cat})
	}
	norm := func(name string, layer int, n uint64) { add(name, layer, catOther, 1, normStd, n) }
	// the conv kernels stay F32, as llama-quantize keeps them
	conv := func(name string, layer int, taps, channels uint64, std float32) {
		add(name, layer, catOther, 0, std, taps, channels)
		ts[len(ts)-1].f32 = true
	}
	add("token_embd.weight", -1, catTokenEmbd, 0, weightStd, e, uint64(nVocab))
	h := s.Hybrid
	for il := range s.NLayer {
		p := fmt.Sprintf("blk.%d.", il)
		norm(p+"attn_norm.weight", il, e)
		switch {
		case s.Arch == "lfm2" && s.recurrent(il):
			// larger than the projections' 0.02, so that the conv path
			// weighs on the logits as it does in the real model
			add(p+"shortconv.in_proj.weight", il, catOther, 0, 5*weightStd, e, 3*e)
			conv(p+"shortconv.conv.weight", il, uint64(h.ConvLCache), e, 0.5)
			add(p+"shortconv.out_proj.weight", il, catOther, 0, outStd, e, e)
		case s.Arch == "qwen35" && s.recurrent(il):
			kd, vd := uint64(h.NKHeads*h.StateDim), uint64(h.NVHeads*h.StateDim)
			nv := uint64(h.NVHeads)
			add(p+"attn_qkv.weight", il, catAttnQKV, 0, weightStd, e, 2*kd+vd)
			add(p+"attn_gate.weight", il, catOther, 0, 5*weightStd, e, vd)
			conv(p+"ssm_conv1d.weight", il, uint64(h.ConvKernel), 2*kd+vd, 0.3)
			add(p+"ssm_dt.bias", il, catOther, 0, 1, nv)
			add(p+"ssm_a", il, catOther, -1, 0.2, nv) // -exp(A_log): negative, a decay
			add(p+"ssm_beta.weight", il, catOther, 0, weightStd, e, nv)
			add(p+"ssm_alpha.weight", il, catOther, 0, weightStd, e, nv)
			norm(p+"ssm_norm.weight", il, uint64(h.StateDim))
			add(p+"ssm_out.weight", il, catOther, 0, outStd, vd, e)
		default:
			qRows := q
			if s.Arch == "qwen35" {
				qRows = 2 * q // each head's query, then its output gate
			}
			add(p+"attn_q.weight", il, catAttnQ, 0, weightStd, e, qRows)
			add(p+"attn_k.weight", il, catAttnK, 0, weightStd, e, kv)
			add(p+"attn_v.weight", il, catAttnV, 0, weightStd, e, kv)
			norm(p+"attn_q_norm.weight", il, hd)
			norm(p+"attn_k_norm.weight", il, hd)
			add(p+"attn_output.weight", il, catAttnOut, 0, outStd, q, e)
		}
		if s.Arch == "qwen35" {
			norm(p+"post_attention_norm.weight", il, e)
		} else {
			norm(p+"ffn_norm.weight", il, e)
		}
		add(p+"ffn_gate.weight", il, catFFNGate, 0, weightStd, e, ff)
		add(p+"ffn_up.weight", il, catFFNUp, 0, weightStd, e, ff)
		add(p+"ffn_down.weight", il, catFFNDown, 0, outStd, ff, e)
	}
	if s.Arch == "lfm2" {
		norm("token_embd_norm.weight", -1, e) // LFM2's output norm (LLM_TENSOR_OUTPUT_NORM_LFM2)
	} else {
		norm("output_norm.weight", -1, e)
	}
	if !s.Tied {
		add("output.weight", -1, catOutput, 0, weightStd, e, uint64(nVocab))
	}
	return ts
}
