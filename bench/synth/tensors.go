package synth

import (
	"fmt"
	"math"
)

// initKind says how a tensor's values are drawn.
type initKind int

const (
	initNormal    initKind = iota // mean + std·N(0,1)
	initRopeFreqs                 // Llama 3 rope factors, computed
	initRopeShort                 // Phi-3 LongRoPE short factors, computed
	initRopeLong                  // Phi-3 LongRoPE long factors, computed
)

// category is llama-quantize's tensor category, for type selection.
type category int

const (
	catOther category = iota
	catTokenEmbd
	catOutput
	catAttnQ
	catAttnK
	catAttnV
	catAttnQKV
	catAttnOut
	catFFNGate
	catFFNUp
	catFFNDown
)

// tensorSpec is one tensor to generate.
type tensorSpec struct {
	name  string
	dims  []uint64 // ggml order: dims[0] is the row length
	kind  initKind
	mean  float32
	std   float32
	layer int // block index, -1 outside blocks
	cat   category
	f32   bool // kept F32 by every type (conv kernels, as llama-quantize)
}

// cols is the row length.
func (t tensorSpec) cols() int { return int(t.dims[0]) }

// elements is the number of elements.
func (t tensorSpec) elements() uint64 { return uint64(t.cols()) * uint64(t.rows()) }

// rows is the number of rows.
func (t tensorSpec) rows() int {
	n := 1
	for _, d := range t.dims[1:] {
		n *= int(d)
	}
	return n
}

// weightStd is the standard deviation of projection weights: GPT-2's 0.02,
// which keeps activations in a sane range at these widths.
const weightStd = 0.02

// normStd is the spread of RMSNorm weights around 1.
const normStd = 0.02

// tensors lists the tensors of s with vocabulary size nVocab, in the order
// convert_hf_to_gguf writes them, with llama.cpp's names.
func (s Shape) tensors(nVocab int) []tensorSpec {
	if s.Hybrid != nil {
		return s.hybridTensors(nVocab)
	}
	if s.GemmaN != nil {
		return s.gemmaNTensors(nVocab)
	}
	e, q, kv, ff := uint64(s.NEmbd), uint64(s.NHead*s.HeadDim), uint64(s.NHeadKV*s.HeadDim), uint64(s.NFF)
	// Output projections get GPT-2's residual scaling 1/sqrt(2·layers).
	outStd := float32(weightStd / math.Sqrt(2*float64(s.NLayer)))
	var ts []tensorSpec
	add := func(name string, layer int, cat category, kind initKind, mean, std float32, dims ...uint64) {
		ts = append(ts, tensorSpec{name: name, dims: dims, kind: kind, mean: mean, std: std, layer: layer, cat: cat})
	}
	matrix := func(name string, layer int, cat category, std float32, in, out uint64) {
		add(name, layer, cat, initNormal, 0, std, in, out)
	}
	norm := func(name string, layer int, n uint64) { add(name, layer, catOther, initNormal, 1, normStd, n) }
	bias := func(name string, layer int, dims ...uint64) {
		add(name, layer, catOther, initNormal, 0, weightStd, dims...)
	}
	oss := s.Arch == "gpt-oss" // gpt-oss's biases, sinks and norms

	if s.Llama3Rope != nil {
		add("rope_freqs.weight", -1, catOther, initRopeFreqs, 0, 0, uint64(s.HeadDim/2))
	}
	if s.LongRoPE != nil {
		add("rope_factors_long.weight", -1, catOther, initRopeLong, 0, 0, uint64(s.ropeDim()/2))
		add("rope_factors_short.weight", -1, catOther, initRopeShort, 0, 0, uint64(s.ropeDim()/2))
	}
	matrix("token_embd.weight", -1, catTokenEmbd, weightStd, e, uint64(nVocab))
	for il := range s.NLayer {
		p := fmt.Sprintf("blk.%d.", il)
		if !s.NoPreNorms {
			norm(p+"attn_norm.weight", il, e)
		}
		if s.FusedQKV {
			matrix(p+"attn_qkv.weight", il, catAttnQKV, weightStd, e, q+2*kv)
		} else {
			matrix(p+"attn_q.weight", il, catAttnQ, weightStd, e, q)
			matrix(p+"attn_k.weight", il, catAttnK, weightStd, e, kv)
			matrix(p+"attn_v.weight", il, catAttnV, weightStd, e, kv)
		}
		if s.QKVBias {
			bias(p+"attn_q.bias", il, q)
			bias(p+"attn_k.bias", il, kv)
			bias(p+"attn_v.bias", il, kv)
		}
		if s.QKNorm {
			norm(p+"attn_q_norm.weight", il, uint64(s.HeadDim))
			norm(p+"attn_k_norm.weight", il, uint64(s.HeadDim))
		}
		if s.QKNormWhole {
			norm(p+"attn_q_norm.weight", il, q)
			norm(p+"attn_k_norm.weight", il, kv)
		}
		matrix(p+"attn_output.weight", il, catAttnOut, outStd, q, e)
		if oss {
			// output bias, sinks, and post_attention_norm before the experts
			bias(p+"attn_output.bias", il, e)
			add(p+"attn_sinks.weight", il, catOther, initNormal, 0, 1, uint64(s.NHead))
			norm(p+"post_attention_norm.weight", il, e)
		}
		if s.PostNorms {
			norm(p+"post_attention_norm.weight", il, e)
		}
		if !s.NoPreNorms && !oss {
			norm(p+"ffn_norm.weight", il, e)
		}
		if s.NExpert > 0 {
			// router, then the experts stacked in 3-D tensors
			x, fe := uint64(s.NExpert), uint64(s.NFFExp)
			matrix(p+"ffn_gate_inp.weight", il, catOther, weightStd, e, x)
			add(p+"ffn_gate_exps.weight", il, catFFNGate, initNormal, 0, weightStd, e, fe, x)
			add(p+"ffn_up_exps.weight", il, catFFNUp, initNormal, 0, weightStd, e, fe, x)
			add(p+"ffn_down_exps.weight", il, catFFNDown, initNormal, 0, outStd, fe, e, x)
			if oss {
				bias(p+"ffn_gate_inp.bias", il, x)
				bias(p+"ffn_gate_exps.bias", il, fe, x)
				bias(p+"ffn_up_exps.bias", il, fe, x)
				bias(p+"ffn_down_exps.bias", il, e, x)
			}
		} else if s.FusedGateUp {
			matrix(p+"ffn_up.weight", il, catFFNUp, weightStd, e, 2*ff)
		} else {
			matrix(p+"ffn_gate.weight", il, catFFNGate, weightStd, e, ff)
			matrix(p+"ffn_up.weight", il, catFFNUp, weightStd, e, ff)
		}
		if s.NExpert == 0 {
			matrix(p+"ffn_down.weight", il, catFFNDown, outStd, ff, e)
		}
		if s.PostNorms {
			norm(p+"post_ffw_norm.weight", il, e)
		}
	}
	norm("output_norm.weight", -1, e)
	if !s.Tied {
		matrix("output.weight", -1, catOutput, weightStd, e, uint64(nVocab))
	}
	return ts
}

// ropeDim is the number of rotated elements per head.
func (s Shape) ropeDim() int {
	if s.RopeDim != 0 {
		return s.RopeDim
	}
	return s.HeadDim
}

// longRopeFactors returns n synthetic LongRoPE factors rising smoothly from
// 1 to 1+top.
func longRopeFactors(n int, top float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		x := float64(i) / float64(max(n-1, 1))
		out[i] = float32(1 + top*x*x)
	}
	return out
}

// llama3RopeFactors computes rope_freqs.weight as convert_hf_to_gguf does
// for rope_type "llama3": one factor per rotated pair.
func llama3RopeFactors(base float64, dim int, r Llama3Rope) []float32 {
	lowWavelen := float64(r.OriginalContext) / r.LowFreqFactor
	highWavelen := float64(r.OriginalContext) / r.HighFreqFactor
	out := make([]float32, 0, dim/2)
	for i := 0; i < dim; i += 2 {
		// torch computes the frequencies in float32.
		freq := float32(1.0 / math.Pow(base, float64(float32(i)/float32(dim))))
		wavelen := 2 * math.Pi / float64(freq)
		switch {
		case wavelen < highWavelen:
			out = append(out, 1)
		case wavelen > lowWavelen:
			out = append(out, float32(r.Factor))
		default:
			smooth := (float64(r.OriginalContext)/wavelen - r.LowFreqFactor) / (r.HighFreqFactor - r.LowFreqFactor)
			out = append(out, float32(1/((1-smooth)/r.Factor+smooth)))
		}
	}
	return out
}
