// Package modelinfo summarizes a GGUF model file: its architecture and
// hyperparameters, parameter count, bytes per tensor type, tokenizer and chat
// template. It backs "litert-go info".
package modelinfo

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/litert-go/litert-go/models/gguf"
)

// TypeStats counts the tensors of one element type.
type TypeStats struct {
	Tensors  int    `json:"tensors"`
	Elements uint64 `json:"elements"`
	Bytes    uint64 `json:"bytes"`
}

// Info is the summary of a model file. Fields a file does not define are
// zero; JSON field names are stable.
type Info struct {
	Path          string  `json:"path,omitempty"`
	FileBytes     int64   `json:"file_bytes"`
	GGUFVersion   uint32  `json:"gguf_version"`
	OpenMillis    float64 `json:"open_ms"`
	Architecture  string  `json:"architecture"`
	Name          string  `json:"name,omitempty"`
	FileType      int64   `json:"file_type,omitempty"`
	Quant         string  `json:"quant"` // general.file_type's name, else the main weight type (see Quant)
	Parameters    uint64  `json:"parameters"`
	NTensors      int     `json:"n_tensors"`
	NKV           int     `json:"n_kv"`
	ContextLength int64   `json:"context_length"`
	NLayer        int64   `json:"n_layer"`
	NEmbd         int64   `json:"n_embd"`
	NFF           int64   `json:"n_ff"`
	NHead         int64   `json:"n_head"`
	NHeadKV       int64   `json:"n_head_kv"`
	HeadDim       int64   `json:"head_dim"`
	KeyLength     int64   `json:"key_length,omitempty"`
	ValueLength   int64   `json:"value_length,omitempty"`
	NormEps       float64 `json:"norm_eps,omitempty"`
	SlidingWindow int64   `json:"sliding_window,omitempty"`

	// Mixture of experts (Qwen3-MoE): experts per block, experts each token
	// uses, and each expert's FFN width.
	NExpert     int64 `json:"n_expert,omitempty"`
	NExpertUsed int64 `json:"n_expert_used,omitempty"`
	NFFExpert   int64 `json:"n_ff_expert,omitempty"`

	RopeFreqBase    float64 `json:"rope_freq_base,omitempty"`
	RopeDimCount    int64   `json:"rope_dimension_count,omitempty"`
	RopeScalingType string  `json:"rope_scaling_type,omitempty"`
	RopeScaleFactor float64 `json:"rope_scaling_factor,omitempty"`
	RopeOrigCtx     int64   `json:"rope_original_context_length,omitempty"`
	RopeFreqBaseSWA float64 `json:"rope_freq_base_swa,omitempty"`
	RopeFreqsTensor bool    `json:"rope_freqs_tensor,omitempty"`
	TiedEmbeddings  bool    `json:"tied_embeddings"`

	// Architecture-specific multipliers and caps (Gemma 2, Granite).
	AttnSoftcap    float64 `json:"attn_logit_softcapping,omitempty"`
	FinalSoftcap   float64 `json:"final_logit_softcapping,omitempty"`
	EmbeddingScale float64 `json:"embedding_scale,omitempty"`
	AttentionScale float64 `json:"attention_scale,omitempty"`
	ResidualScale  float64 `json:"residual_scale,omitempty"`
	LogitScale     float64 `json:"logit_scale,omitempty"`

	TensorTypes map[string]TypeStats `json:"tensor_types"`

	NVocab            int64  `json:"n_vocab"`
	TokenizerModel    string `json:"tokenizer_model"`
	TokenizerPre      string `json:"tokenizer_pre"`
	NMerges           int    `json:"n_merges,omitempty"`
	BOS               *int64 `json:"bos_token_id,omitempty"`
	EOS               *int64 `json:"eos_token_id,omitempty"`
	HasChatTemplate   bool   `json:"has_chat_template"`
	ChatTemplateTools bool   `json:"chat_template_tools"`
	ChatTemplateBytes int    `json:"chat_template_bytes,omitempty"`
}

// Load opens the GGUF file at path and summarizes it, timing the open.
func Load(path string) (*Info, error) {
	start := time.Now()
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	defer f.Close()
	info, err := Describe(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info.Path = path
	info.OpenMillis = float64(elapsed.Microseconds()) / 1000
	if st, err := os.Stat(path); err == nil {
		info.FileBytes = st.Size()
	}
	return info, nil
}

// Describe summarizes an opened file. Missing keys leave fields zero; a key
// of the wrong type is an error naming it.
func Describe(f *gguf.File) (*Info, error) {
	info := &Info{
		FileBytes:   f.Size,
		GGUFVersion: f.Version,
		NTensors:    len(f.Tensors),
		NKV:         len(f.KV),
		TensorTypes: map[string]TypeStats{},
	}
	r := reader{f: f}
	info.Architecture = r.str("general.architecture")
	info.Name = r.str("general.name")
	info.FileType = r.int("general.file_type")
	a := info.Architecture + "."
	if info.Architecture != "" {
		info.ContextLength = r.int(a + "context_length")
		info.NLayer = r.int(a + "block_count")
		info.NEmbd = r.int(a + "embedding_length")
		info.NFF = r.intOrFirst(a + "feed_forward_length")
		info.NHead = r.intOrFirst(a + "attention.head_count")
		info.NHeadKV = r.intOrFirst(a + "attention.head_count_kv")
		info.KeyLength = r.int(a + "attention.key_length")
		info.ValueLength = r.int(a + "attention.value_length")
		info.NormEps = r.float(a + "attention.layer_norm_rms_epsilon")
		if info.NormEps == 0 {
			info.NormEps = r.float(a + "attention.layer_norm_epsilon")
		}
		info.SlidingWindow = r.int(a + "attention.sliding_window")
		info.NExpert = r.int(a + "expert_count")
		info.NExpertUsed = r.int(a + "expert_used_count")
		info.NFFExpert = r.int(a + "expert_feed_forward_length")
		info.RopeFreqBase = r.float(a + "rope.freq_base")
		info.RopeFreqBaseSWA = r.float(a + "rope.freq_base_swa")
		info.RopeDimCount = r.int(a + "rope.dimension_count")
		info.RopeScalingType = r.str(a + "rope.scaling.type")
		info.RopeScaleFactor = r.float(a + "rope.scaling.factor")
		info.RopeOrigCtx = r.int(a + "rope.scaling.original_context_length")
		info.AttnSoftcap = r.float(a + "attn_logit_softcapping")
		info.FinalSoftcap = r.float(a + "final_logit_softcapping")
		info.EmbeddingScale = r.float(a + "embedding_scale")
		info.AttentionScale = r.float(a + "attention.scale")
		info.ResidualScale = r.float(a + "residual_scale")
		info.LogitScale = r.float(a + "logit_scale")
		if info.NHeadKV == 0 {
			info.NHeadKV = info.NHead
		}
		switch {
		case info.KeyLength > 0:
			info.HeadDim = info.KeyLength
		case info.NHead > 0:
			info.HeadDim = info.NEmbd / info.NHead
		}
	}
	var hasOutput, hasEmbd bool
	for _, t := range f.Tensors {
		n := t.Elements()
		info.Parameters += n
		s := info.TensorTypes[t.Type.String()]
		s.Tensors++
		s.Elements += n
		s.Bytes += t.Bytes()
		info.TensorTypes[t.Type.String()] = s
		switch t.Name {
		case "output.weight":
			hasOutput = true
		case "token_embd.weight":
			hasEmbd = true
		case "rope_freqs.weight":
			info.RopeFreqsTensor = true
		}
	}
	info.TiedEmbeddings = hasEmbd && !hasOutput
	info.Quant = Quant(f)

	info.TokenizerModel = r.str("tokenizer.ggml.model")
	info.TokenizerPre = r.str("tokenizer.ggml.pre")
	if v, ok := f.Lookup("tokenizer.ggml.tokens"); ok {
		info.NVocab = int64(v.Len())
	}
	if v, ok := f.Lookup("tokenizer.ggml.merges"); ok {
		info.NMerges = v.Len()
	}
	if info.NVocab == 0 && info.Architecture != "" {
		info.NVocab = r.int(a + "vocab_size")
	}
	if info.NVocab == 0 {
		if t, ok := f.Tensor("token_embd.weight"); ok && len(t.Dims) == 2 {
			info.NVocab = int64(t.Dims[1])
		}
	}
	info.BOS = r.optInt("tokenizer.ggml.bos_token_id")
	info.EOS = r.optInt("tokenizer.ggml.eos_token_id")
	if tmpl := r.str("tokenizer.chat_template"); tmpl != "" {
		info.HasChatTemplate = true
		info.ChatTemplateBytes = len(tmpl)
		info.ChatTemplateTools = strings.Contains(tmpl, "tools")
	}
	if r.err != nil {
		return nil, r.err
	}
	return info, nil
}

// SortedTypes returns the tensor type names in descending order of bytes.
func (i *Info) SortedTypes() []string {
	names := make([]string, 0, len(i.TensorTypes))
	for n := range i.TensorTypes {
		names = append(names, n)
	}
	sort.Slice(names, func(a, b int) bool {
		x, y := i.TensorTypes[names[a]], i.TensorTypes[names[b]]
		if x.Bytes != y.Bytes {
			return x.Bytes > y.Bytes
		}
		return names[a] < names[b]
	})
	return names
}
