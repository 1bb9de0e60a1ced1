package synth

import (
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/hparams"
)

// Params returns the hyper-parameters s describes for a vocabulary of
// nVocab tokens, in the vocabulary the model loader reads (models.Params):
// the fields s sets, and the hparams table's defaults for the rest. The
// file Generate writes holds exactly these (Params.KV), so the loader reads
// them back.
func (s Shape) Params(nVocab int) hparams.Params {
	p := hparams.Params{
		Arch: s.Arch, VocabSize: nVocab,
		Dim: s.NEmbd, HiddenDim: s.NFF, NLayers: s.NLayer, NHeads: s.NHead, NKVHeads: s.NHeadKV,
		HeadDim: s.HeadDim, ValueDim: s.HeadDim, CtxLen: s.NCtx, NormEps: s.NormEps,
		RopeDim: s.RopeDim, RopeBase: float64(s.RopeBase), RopeBaseSWA: float64(s.RopeBaseSWA),
		Window: s.SlidingWin, SWAPeriod: s.SWAPeriod,
		AttnSoftcap: s.AttnSoftcap, FinalSoftcap: s.FinalSoftcap,
		NExperts: s.NExpert, NExpertsUsed: s.NExpertUsed, ExpertHiddenDim: s.NFFExp,
	}
	if g := s.Granite; g != nil {
		p.EmbeddingScale, p.AttentionScale, p.ResidualScale, p.LogitScale = g.Embedding, g.Attention, g.Residual, g.Logit
	}
	if r := s.LongRoPE; r != nil {
		p.RopeAttnFactor, p.RopeOrigCtx = r.AttnFactor, r.OriginalContext
	}
	if y := s.YaRN; y != nil {
		p.RopeScaling, p.RopeFactor, p.RopeOrigCtx = "yarn", y.Factor, y.OriginalContext
	}
	p.Default()
	return p
}

// archKV returns the general.* and {arch}.* metadata of s: the keys of
// s.Params (hparams.Params.KV, the table the loader reads), the general.*
// keys and, for the llama family, vocab_size, as convert_hf_to_gguf writes
// it.
func (s Shape) archKV(nVocab int, p typePolicy) []gguf.KV {
	hp := s.Params(nVocab)
	arch := hp.KV()
	kv := []gguf.KV{
		arch[0], // general.architecture
		{Key: "general.type", Value: gguf.String("model")},
		{Key: "general.name", Value: gguf.String("synthetic " + s.Name)},
	}
	kv = append(kv, arch[1:]...)
	if s.Arch == "llama" || s.Arch == "smollm3" || s.Arch == "granite" {
		kv = append(kv, gguf.KV{Key: s.Arch + ".vocab_size", Value: gguf.Uint32(uint32(nVocab))})
	}
	if s.Hybrid != nil {
		kv = s.hybridKV(kv)
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
