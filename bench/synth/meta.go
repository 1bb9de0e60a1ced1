package synth

import "github.com/litert-go/litert-go/models/gguf"

// archKV returns the general.* and {arch}.* metadata of s, with the keys and
// value types convert_hf_to_gguf writes.
func (s Shape) archKV(nVocab int, p typePolicy) []gguf.KV {
	a := s.Arch + "."
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.String(s.Arch)},
		{Key: "general.type", Value: gguf.String("model")},
		{Key: "general.name", Value: gguf.String("synthetic " + s.Name)},
		{Key: a + "block_count", Value: gguf.Uint32(uint32(s.NLayer))},
		{Key: a + "context_length", Value: gguf.Uint32(uint32(s.NCtx))},
		{Key: a + "embedding_length", Value: gguf.Uint32(uint32(s.NEmbd))},
		{Key: a + "feed_forward_length", Value: gguf.Uint32(uint32(s.NFF))},
		{Key: a + "attention.head_count", Value: gguf.Uint32(uint32(s.NHead))},
		{Key: a + "attention.head_count_kv", Value: gguf.Uint32(uint32(s.NHeadKV))},
		{Key: a + "rope.freq_base", Value: gguf.Float32(s.RopeBase)},
		{Key: a + "attention.layer_norm_rms_epsilon", Value: gguf.Float32(s.NormEps)},
	}
	if s.HeadDim*s.NHead != s.NEmbd || s.Arch == "qwen3" || s.Arch == "qwen3moe" || s.Arch == "gpt-oss" || s.Arch == "gemma3" || s.Arch == "gemma2" {
		kv = append(kv,
			gguf.KV{Key: a + "attention.key_length", Value: gguf.Uint32(uint32(s.HeadDim))},
			gguf.KV{Key: a + "attention.value_length", Value: gguf.Uint32(uint32(s.HeadDim))})
	}
	if s.Arch == "llama" || s.Arch == "smollm3" || s.Arch == "granite" {
		kv = append(kv,
			gguf.KV{Key: a + "vocab_size", Value: gguf.Uint32(uint32(nVocab))},
			gguf.KV{Key: a + "rope.dimension_count", Value: gguf.Uint32(uint32(s.HeadDim))})
	}
	if s.NExpert > 0 {
		kv = append(kv,
			gguf.KV{Key: a + "expert_count", Value: gguf.Uint32(uint32(s.NExpert))},
			gguf.KV{Key: a + "expert_used_count", Value: gguf.Uint32(uint32(s.NExpertUsed))},
			gguf.KV{Key: a + "expert_feed_forward_length", Value: gguf.Uint32(uint32(s.NFFExp))})
	}
	if s.RopeDim != 0 {
		kv = append(kv, gguf.KV{Key: a + "rope.dimension_count", Value: gguf.Uint32(uint32(s.RopeDim))})
	}
	if r := s.LongRoPE; r != nil {
		kv = append(kv,
			gguf.KV{Key: a + "rope.scaling.attn_factor", Value: gguf.Float32(r.AttnFactor)},
			gguf.KV{Key: a + "rope.scaling.original_context_length", Value: gguf.Uint32(uint32(r.OriginalContext))})
	}
	if y := s.YaRN; y != nil {
		kv = append(kv,
			gguf.KV{Key: a + "rope.scaling.type", Value: gguf.String("yarn")},
			gguf.KV{Key: a + "rope.scaling.factor", Value: gguf.Float32(y.Factor)},
			gguf.KV{Key: a + "rope.scaling.original_context_length", Value: gguf.Uint32(uint32(y.OriginalContext))})
	}
	if s.SlidingWin > 0 {
		kv = append(kv, gguf.KV{Key: a + "attention.sliding_window", Value: gguf.Uint32(uint32(s.SlidingWin))})
	}
	if s.RopeBaseSWA != 0 {
		kv = append(kv, gguf.KV{Key: a + "rope.freq_base_swa", Value: gguf.Float32(s.RopeBaseSWA)})
	}
	if s.AttnSoftcap != 0 {
		kv = append(kv,
			gguf.KV{Key: a + "attn_logit_softcapping", Value: gguf.Float32(s.AttnSoftcap)},
			gguf.KV{Key: a + "final_logit_softcapping", Value: gguf.Float32(s.FinalSoftcap)})
	}
	if g := s.Granite; g != nil {
		kv = append(kv,
			gguf.KV{Key: a + "embedding_scale", Value: gguf.Float32(g.Embedding)},
			gguf.KV{Key: a + "attention.scale", Value: gguf.Float32(g.Attention)},
			gguf.KV{Key: a + "residual_scale", Value: gguf.Float32(g.Residual)},
			gguf.KV{Key: a + "logit_scale", Value: gguf.Float32(g.Logit)})
	}
	if s.GemmaN != nil {
		kv = s.gemmaNKV(kv)
	}
	kv = append(kv, gguf.KV{Key: "general.file_type", Value: gguf.Uint32(p.fileType)})
	if p.quantized() {
		kv = append(kv, gguf.KV{Key: "general.quantization_version", Value: gguf.Uint32(2)})
	}
	return kv
}
