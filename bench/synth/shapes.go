// Package synth generates synthetic GGUF models: real architecture shapes
// (SmolLM2, SmolLM3, Qwen2.5, Qwen3, Qwen3-MoE, gpt-oss, Gemma 2, Gemma 3, Llama 3.2, Granite
// 3.3, OLMo 2, EXAONE 4, Gemma 3n, Gemma 4 and tiny variants of each)
// with seeded random weights, llama.cpp's metadata keys and tensor names, and
// a synthetic or copied tokenizer. Tests and benchmarks get realistic sizes
// and layouts without downloading models.
package synth

import (
	"fmt"
	"sort"
	"strings"
)

// Shape is the architecture and hyperparameters of a synthetic model.
type Shape struct {
	Name    string // the name Generate takes, e.g. "qwen2.5-0.5b"
	Arch    string // general.architecture: llama, qwen2, qwen3 or gemma3
	NEmbd   int    // embedding width
	NLayer  int    // transformer blocks
	NHead   int    // attention (query) heads
	NHeadKV int    // key/value heads
	HeadDim int    // per-head width of keys and values
	NFF     int    // feed-forward width
	NVocab  int    // vocabulary size without --vocab
	NCtx    int    // training context length
	NormEps float32

	RopeBase    float32 // rope.freq_base
	RopeBaseSWA float32 // gemma3: rope base of the sliding-window layers
	SlidingWin  int     // gemma3: attention.sliding_window

	QKVBias     bool // qwen2: biases on attn_q, attn_k, attn_v
	QKNorm      bool // qwen3, gemma3, exaone4: per-head RMSNorm of queries and keys
	QKNormWhole bool // olmo2: RMSNorm over the whole query and key projections
	PostNorms   bool // gemma2, gemma3, olmo2, exaone4: post_attention_norm and post_ffw_norm
	NoPreNorms  bool // olmo2, exaone4: no attn_norm or ffn_norm
	Tied        bool // no output.weight: the output reuses token_embd

	// SWAPeriod is the sliding-window pattern: layer il is local unless
	// il%SWAPeriod == SWAPeriod-1 (gemma3: 6, gemma2: 2).
	SWAPeriod int
	// AttnSoftcap and FinalSoftcap are gemma2's attn_logit_softcapping and
	// final_logit_softcapping.
	AttnSoftcap, FinalSoftcap float32
	// Granite holds granite's multipliers; nil for other architectures.
	Granite *GraniteScales
	// RopeDim is rope.dimension_count when only part of each head rotates
	// (Phi-4-mini's partial_rotary_factor); 0 means HeadDim.
	RopeDim int
	// FusedQKV writes attn_qkv instead of attn_q, attn_k, attn_v, and
	// FusedGateUp an ffn_up of the gate rows then the up rows instead of
	// ffn_gate and ffn_up (phi3).
	FusedQKV, FusedGateUp bool
	// LongRoPE, when set, adds Phi-3's rope_factors_short/long tensors.
	LongRoPE *LongRoPE
	// YaRN, when set, declares YaRN rope scaling (rope.scaling.type yarn).
	YaRN *YaRN

	// NExpert experts of NFFExp hidden units each replace the MLP, of
	// which each token uses NExpertUsed (qwen3moe); 0 for a dense model.
	NExpert, NExpertUsed, NFFExp int

	// Llama3Rope, when set, adds llama.cpp's rope_freqs.weight tensor of
	// per-frequency factors, as convert_hf_to_gguf computes it for Llama 3.
	Llama3Rope *Llama3Rope

	// Hybrid, when set, makes some layers recurrent or convolutional
	// (lfm2, qwen35; hybrid.go).
	Hybrid *Hybrid

	// GemmaN holds Gemma 3n's and Gemma 4's additions (gemma3n.go); nil
	// for other architectures.
	GemmaN *GemmaN

	vocab vocabStyle
}

// Llama3Rope holds Llama 3's rope scaling parameters.
type Llama3Rope struct {
	Factor          float64
	LowFreqFactor   float64
	HighFreqFactor  float64
	OriginalContext int
}

// GraniteScales are Granite's multipliers (config.json embedding_multiplier,
// attention_multiplier, residual_multiplier, logits_scaling).
type GraniteScales struct {
	Embedding, Attention, Residual, Logit float32
}

// LongRoPE holds Phi-3's LongRoPE ("su") parameters. The per-pair factors
// are synthetic (a smooth ramp from 1, like the published ones): short up to
// 1+ShortMax, long up to 1+LongMax.
type LongRoPE struct {
	OriginalContext   int     // rope.scaling.original_context_length
	AttnFactor        float32 // rope.scaling.attn_factor: √(1+ln(ctx/orig)/ln(orig))
	ShortMax, LongMax float64
}

// YaRN holds YaRN rope scaling parameters (config.json rope_scaling).
type YaRN struct {
	Factor          float32
	OriginalContext int
}

// vocabStyle picks the synthetic tokenizer and chat template of a family.
type vocabStyle int

const (
	vocabChatML vocabStyle = iota // gpt2 BPE, <|im_start|> ChatML (SmolLM2, Qwen)
	vocabLlama3                   // gpt2 BPE, Llama 3 header tokens
	vocabGemma                    // SentencePiece (llama) with <0xXX> bytes
)

// baseShapes returns the full-size shapes, from the models' config.json.
func baseShapes() []Shape {
	return []Shape{
		{Name: "smollm2-135m", Arch: "llama", NEmbd: 576, NLayer: 30, NHead: 9, NHeadKV: 3, HeadDim: 64, NFF: 1536,
			NVocab: 49152, NCtx: 8192, NormEps: 1e-5, RopeBase: 100000, Tied: true, vocab: vocabChatML},
		{Name: "qwen2.5-0.5b", Arch: "qwen2", NEmbd: 896, NLayer: 24, NHead: 14, NHeadKV: 2, HeadDim: 64, NFF: 4864,
			NVocab: 151936, NCtx: 32768, NormEps: 1e-6, RopeBase: 1e6, QKVBias: true, Tied: true, vocab: vocabChatML},
		{Name: "qwen3-0.6b", Arch: "qwen3", NEmbd: 1024, NLayer: 28, NHead: 16, NHeadKV: 8, HeadDim: 128, NFF: 3072,
			NVocab: 151936, NCtx: 40960, NormEps: 1e-6, RopeBase: 1e6, QKNorm: true, Tied: true, vocab: vocabChatML},
		{Name: "gemma3-270m", Arch: "gemma3", NEmbd: 640, NLayer: 18, NHead: 4, NHeadKV: 1, HeadDim: 256, NFF: 2048,
			NVocab: 262144, NCtx: 32768, NormEps: 1e-6, RopeBase: 1e6, RopeBaseSWA: 10000, SlidingWin: 512,
			QKNorm: true, PostNorms: true, Tied: true, SWAPeriod: 6, vocab: vocabGemma},
		{Name: "llama3.2-1b", Arch: "llama", NEmbd: 2048, NLayer: 16, NHead: 32, NHeadKV: 8, HeadDim: 64, NFF: 8192,
			NVocab: 128256, NCtx: 131072, NormEps: 1e-5, RopeBase: 500000, Tied: true, vocab: vocabLlama3,
			Llama3Rope: &Llama3Rope{Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalContext: 8192}},
		// Qwen3-0.6B with the YaRN configuration its model card gives for
		// 131072 positions.
		{Name: "qwen3-0.6b-yarn", Arch: "qwen3", NEmbd: 1024, NLayer: 28, NHead: 16, NHeadKV: 8, HeadDim: 128, NFF: 3072,
			NVocab: 151936, NCtx: 131072, NormEps: 1e-6, RopeBase: 1e6, QKNorm: true, Tied: true, vocab: vocabChatML,
			YaRN: &YaRN{Factor: 4, OriginalContext: 32768}},
		// Gemma 2, Gemma 3 and Phi-4-mini with YaRN declared (not released
		// configurations: llama.cpp applies YaRN to whichever architecture
		// declares it, Gemma 3 to its global layers only), a factor of 8
		// over their training context.
		{Name: "gemma2-2b-yarn", Arch: "gemma2", NEmbd: 2304, NLayer: 26, NHead: 8, NHeadKV: 4, HeadDim: 256, NFF: 9216,
			NVocab: 256000, NCtx: 65536, NormEps: 1e-6, RopeBase: 10000, SlidingWin: 4096, SWAPeriod: 2,
			AttnSoftcap: 50, FinalSoftcap: 30, PostNorms: true, Tied: true, vocab: vocabGemma,
			YaRN: &YaRN{Factor: 8, OriginalContext: 8192}},
		{Name: "gemma3-270m-yarn", Arch: "gemma3", NEmbd: 640, NLayer: 18, NHead: 4, NHeadKV: 1, HeadDim: 256, NFF: 2048,
			NVocab: 262144, NCtx: 262144, NormEps: 1e-6, RopeBase: 1e6, RopeBaseSWA: 10000, SlidingWin: 512,
			QKNorm: true, PostNorms: true, Tied: true, SWAPeriod: 6, vocab: vocabGemma,
			YaRN: &YaRN{Factor: 8, OriginalContext: 32768}},
		{Name: "phi4-mini-yarn", Arch: "phi3", NEmbd: 3072, NLayer: 32, NHead: 24, NHeadKV: 8, HeadDim: 128, NFF: 8192,
			NVocab: 200064, NCtx: 131072, NormEps: 1e-5, RopeBase: 10000, RopeDim: 96, Tied: true, vocab: vocabChatML,
			FusedQKV: true, FusedGateUp: true, YaRN: &YaRN{Factor: 32, OriginalContext: 4096}},
		// SmolLM3-3B: llama without RoPE in every fourth layer.
		{Name: "smollm3-3b", Arch: "smollm3", NEmbd: 2048, NLayer: 36, NHead: 16, NHeadKV: 4, HeadDim: 128, NFF: 11008,
			NVocab: 128256, NCtx: 65536, NormEps: 1e-6, RopeBase: 5e6, Tied: true, vocab: vocabChatML},
		// granite-3.3-2b-instruct.
		{Name: "granite3.3-2b", Arch: "granite", NEmbd: 2048, NLayer: 40, NHead: 32, NHeadKV: 8, HeadDim: 64, NFF: 8192,
			NVocab: 49159, NCtx: 131072, NormEps: 1e-5, RopeBase: 1e7, Tied: true, vocab: vocabChatML,
			Granite: &GraniteScales{Embedding: 12, Attention: 0.015625, Residual: 0.22, Logit: 8}},
		// OLMo-2-0425-1B.
		{Name: "olmo2-1b", Arch: "olmo2", NEmbd: 2048, NLayer: 16, NHead: 16, NHeadKV: 16, HeadDim: 128, NFF: 8192,
			NVocab: 100352, NCtx: 4096, NormEps: 1e-6, RopeBase: 500000, QKNormWhole: true, PostNorms: true,
			NoPreNorms: true, vocab: vocabChatML},
		// gemma-2-2b.
		{Name: "gemma2-2b", Arch: "gemma2", NEmbd: 2304, NLayer: 26, NHead: 8, NHeadKV: 4, HeadDim: 256, NFF: 9216,
			NVocab: 256000, NCtx: 8192, NormEps: 1e-6, RopeBase: 10000, SlidingWin: 4096, SWAPeriod: 2,
			AttnSoftcap: 50, FinalSoftcap: 30, PostNorms: true, Tied: true, vocab: vocabGemma},
		// EXAONE-4.0-32B: llama.cpp turns on its hybrid attention for 64
		// layers only (three local layers with RoPE, one global without).
		{Name: "exaone4-32b", Arch: "exaone4", NEmbd: 5120, NLayer: 64, NHead: 40, NHeadKV: 8, HeadDim: 128, NFF: 27392,
			NVocab: 102400, NCtx: 131072, NormEps: 1e-5, RopeBase: 1e6, QKNorm: true, PostNorms: true, NoPreNorms: true,
			SlidingWin: 4096, SWAPeriod: 4, vocab: vocabChatML,
			Llama3Rope: &Llama3Rope{Factor: 16, LowFreqFactor: 1, HighFreqFactor: 4, OriginalContext: 8192}},
		// Phi-4-mini-instruct: 3/4 of each head rotates.
		{Name: "phi4-mini", Arch: "phi3", NEmbd: 3072, NLayer: 32, NHead: 24, NHeadKV: 8, HeadDim: 128, NFF: 8192,
			NVocab: 200064, NCtx: 131072, NormEps: 1e-5, RopeBase: 10000, RopeDim: 96, Tied: true, vocab: vocabChatML,
			FusedQKV: true, FusedGateUp: true,
			LongRoPE: &LongRoPE{OriginalContext: 4096, AttnFactor: 1.1902381, ShortMax: 2, LongMax: 50}},
		// Qwen3-30B-A3B: 128 experts of 768, 8 per token.
		{Name: "qwen3moe-30b-a3b", Arch: "qwen3moe", NEmbd: 2048, NLayer: 48, NHead: 32, NHeadKV: 4, HeadDim: 128, NFF: 6144,
			NVocab: 151936, NCtx: 40960, NormEps: 1e-6, RopeBase: 1e6, QKNorm: true, vocab: vocabChatML,
			NExpert: 128, NExpertUsed: 8, NFFExp: 768},
		// qwen3moe-2b-a0.6b: not a released model, a benchmark shape of
		// Qwen3-30B-A3B's layout at laptop size (2.3B parameters, 0.6B
		// active in the blocks): 24 layers 1024 wide, 32 experts of 768, 8
		// per token.
		{Name: "qwen3moe-2b-a0.6b", Arch: "qwen3moe", NEmbd: 1024, NLayer: 24, NHead: 16, NHeadKV: 4, HeadDim: 128, NFF: 6144,
			NVocab: 151936, NCtx: 40960, NormEps: 1e-6, RopeBase: 1e6, QKNorm: true, vocab: vocabChatML,
			NExpert: 32, NExpertUsed: 8, NFFExp: 768},
		// gpt-oss-20b: 32 experts of 2880, 4 per token, biases everywhere,
		// attention sinks, even layers sliding over 128 positions, YaRN.
		{Name: "gpt-oss-20b", Arch: "gpt-oss", NEmbd: 2880, NLayer: 24, NHead: 64, NHeadKV: 8, HeadDim: 64, NFF: 2880,
			NVocab: 201088, NCtx: 131072, NormEps: 1e-5, RopeBase: 150000, QKVBias: true, SlidingWin: 128, SWAPeriod: 2,
			vocab: vocabChatML, NExpert: 32, NExpertUsed: 4, NFFExp: 2880,
			YaRN: &YaRN{Factor: 32, OriginalContext: 4096}},
		// EXAONE-4.0-1.2B.
		{Name: "exaone4-1.2b", Arch: "exaone4", NEmbd: 2048, NLayer: 30, NHead: 32, NHeadKV: 8, HeadDim: 64, NFF: 4096,
			NVocab: 102400, NCtx: 65536, NormEps: 1e-5, RopeBase: 1e6, QKNorm: true, PostNorms: true, NoPreNorms: true,
			Tied: true, vocab: vocabChatML,
			Llama3Rope: &Llama3Rope{Factor: 16, LowFreqFactor: 1, HighFreqFactor: 4, OriginalContext: 8192}},
	}
}

// allBaseShapes returns baseShapes and the Gemma 3n / Gemma 4 shapes.
func allBaseShapes() []Shape { return append(baseShapes(), gemmaNShapes()...) }

// tiny shrinks a shape for unit tests: 4 layers (6 for Gemma 3, so one layer
// is global), about 128 wide, the same GQA ratio and options, 512 tokens.
func tiny(s Shape) Shape {
	t := s
	t.Name = "tiny-" + s.Name
	t.NLayer = 4
	t.NVocab = 512
	ratio := s.NHead / s.NHeadKV
	switch s.Name {
	case "smollm2-135m": // 3:1 GQA, head dim 32
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 6, 2, 32, 192, 512
	case "qwen2.5-0.5b": // 7:1 GQA, head dim 32
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 7, 1, 32, 224, 512
	case "qwen3-0.6b", "qwen3-0.6b-yarn": // 2:1 GQA, NHead*HeadDim != NEmbd as in the real model
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 2, 64, 128, 384
	case "gemma3-270m", "gemma3-270m-yarn": // 4:1 GQA, head dim 64, small sliding window
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 1, 64, 128, 512
		t.NLayer, t.SlidingWin = 6, 16
	case "gemma2-2b", "gemma2-2b-yarn": // 2:1 GQA, head dim 64, small sliding window
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 2, 64, 128, 384
		t.SlidingWin = 16
		// Caps that bite at these widths (scores ~0.05, logits within ±3),
		// where the real 50 and 30 would leave them almost linear.
		t.AttnSoftcap, t.FinalSoftcap = 0.05, 1
	case "olmo2-1b": // no GQA, as in the real model
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 4, 32, 128, 384
	case "exaone4-32b": // 5:1 GQA, head dim 32, all 64 layers, small window
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 5, 1, 32, 160, 256
		t.NLayer, t.SlidingWin = 64, 16
	case "smollm3-3b", "exaone4-1.2b": // 4:1 GQA, head dim 32
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 1, 32, 128, 384
	case "phi4-mini", "phi4-mini-yarn": // 3:1 GQA, head dim 32 of which 24 rotate
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF, t.RopeDim = 6, 2, 32, 192, 384, 24
		if s.LongRoPE != nil {
			// An original context below the 512 positions tests and
			// llama.cpp runs use, so both rotate by the long factors.
			lr := *s.LongRoPE
			lr.OriginalContext = 256
			t.LongRoPE = &lr
		}
	case "qwen3moe-30b-a3b": // 8:1 GQA, head dim 32; 16 experts of 64, 4 per token
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 8, 1, 32, 128, 256
		t.NExpert, t.NExpertUsed, t.NFFExp = 16, 4, 64
	case "qwen3moe-2b-a0.6b": // 4:1 GQA, head dim 32; 8 experts of 64, 2 per token
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 4, 1, 32, 128, 256
		t.NExpert, t.NExpertUsed, t.NFFExp = 8, 2, 64
	case "gpt-oss-20b": // 8:1 GQA, head dim 32; 8 experts of 64, 2 per token; window 16
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 8, 1, 32, 128, 64
		t.NExpert, t.NExpertUsed, t.NFFExp, t.SlidingWin = 8, 2, 64, 16
	case "granite3.3-2b": // 4:1 GQA, head dim 32
		t.NHead, t.NHeadKV, t.HeadDim, t.NEmbd, t.NFF = 8, 2, 32, 256, 512
	case "lfm2-350m", "qwen3.5-0.8b":
		t = tinyHybrid(t)
	case "gemma3n-e2b", "gemma4-e2b", "gemma4-26b-a4b":
		tinyGemmaN(&t)
	default: // 4:1 GQA, head dim 32
		t.NHeadKV = 1
		t.NHead, t.HeadDim, t.NEmbd, t.NFF = ratio, 32, 128, 384
	}
	if s.YaRN != nil {
		// An original context of 64 and factor 8, so that YaRN
		// interpolates most pairs within the tests' 56 positions.
		t.YaRN = &YaRN{Factor: 8, OriginalContext: 64}
	}
	return t
}

// shapeTable returns every shape by name.
func shapeTable() map[string]Shape {
	m := map[string]Shape{}
	for _, s := range append(allBaseShapes(), hybridShapes()...) {
		m[s.Name] = s
		t := tiny(s)
		m[t.Name] = t
	}
	return m
}

// Shapes returns the names of all shapes, sorted.
func Shapes() []string {
	m := shapeTable()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the named shape.
func Lookup(name string) (Shape, error) {
	s, ok := shapeTable()[name]
	if !ok {
		return Shape{}, fmt.Errorf("synth: unknown shape %q (have %s)", name, strings.Join(Shapes(), ", "))
	}
	return s, nil
}

// isSWA reports whether layer il uses sliding-window attention, as the
// loader decides it from the file's keys (hparams.Params.IsLocal): in
// Gemma 3 every sixth layer (5, 11, 17, …) is global, in Gemma 2 every
// second (1, 3, 5, …), as llama.cpp's set_swa_pattern(SWAPeriod) decides.
func (s Shape) isSWA(il int) bool {
	p := s.Params(s.NVocab)
	return p.IsLocal(il)
}
