// Package modelinfo summarizes a GGUF model file: its architecture and
// hyperparameters, parameter count, bytes per tensor type, tokenizer and chat
// template. It backs "litert-go info".
package modelinfo

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/hparams"
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
	Path        string  `json:"path,omitempty"`
	FileBytes   int64   `json:"file_bytes"`
	GGUFVersion uint32  `json:"gguf_version"`
	OpenMillis  float64 `json:"open_ms"`
	Name        string  `json:"name,omitempty"`
	FileType    int64   `json:"file_type,omitempty"`
	Quant       string  `json:"quant"` // general.file_type's name, else the main weight type (see Quant)
	Parameters  uint64  `json:"parameters"`
	NTensors    int     `json:"n_tensors"`
	NKV         int     `json:"n_kv"`

	// The hyper-parameters, as the model loader reads them (with its
	// defaults); zero for a file without general.architecture.
	hparams.Params

	// PerLayer describes each count that the file gives per layer and that
	// varies between layers (gemma4's MLP widths, LFM2's and gemma4's KV
	// heads), keyed by the key without the architecture prefix
	// ("feed_forward_length"); the field above holds the first layer's.
	PerLayer map[string]LayerRange `json:"per_layer,omitempty"`

	RopeFreqsTensor bool `json:"rope_freqs_tensor,omitempty"`
	TiedEmbeddings  bool `json:"tied_embeddings"`

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

// LayerRange is the spread of a count given per layer: the smallest and
// largest nonzero value, and the number of layers where it is zero (LFM2's
// convolution layers have no KV heads).
type LayerRange struct {
	Min  int `json:"min"`
	Max  int `json:"max"`
	Zero int `json:"zero_layers,omitempty"`
}

func layerRange(xs []int64) LayerRange {
	var r LayerRange
	for _, x := range xs {
		switch {
		case x == 0:
			r.Zero++
		case r.Min == 0 || int(x) < r.Min:
			r.Min = int(x)
		}
		r.Max = max(r.Max, int(x))
	}
	return r
}

// perLayerKeys are the counts a file may give per layer (Info.PerLayer).
var perLayerKeys = []string{"feed_forward_length", "attention.head_count", "attention.head_count_kv"}

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

// Describe summarizes an opened file. The hyper-parameters are read as the
// loader reads them (hparams.Read, with its defaults); a required key
// missing, or one that varies per layer, leaves its field zero (or the
// first layer's value), and a key of the wrong type or out of range is an
// error naming it. Other missing keys leave fields zero.
func Describe(f *gguf.File) (*Info, error) {
	info := &Info{
		FileBytes:   f.Size,
		GGUFVersion: f.Version,
		NTensors:    len(f.Tensors),
		NKV:         len(f.KV),
		TensorTypes: map[string]TypeStats{},
	}
	r := reader{f: f}
	info.Name = r.str("general.name")
	info.FileType = r.int("general.file_type")
	if f.Has("general.architecture") {
		p, err := hparams.Read(f)
		if err != nil && !hparams.Incomplete(err) {
			return nil, err
		}
		info.Params = p
		for _, k := range perLayerKeys {
			if v, ok := f.Lookup(p.Arch + "." + k); ok && v.Type == gguf.TypeArray {
				if xs, err := f.Ints(p.Arch + "." + k); err == nil && len(xs) > 0 && slices.Min(xs) != slices.Max(xs) {
					if info.PerLayer == nil {
						info.PerLayer = map[string]LayerRange{}
					}
					info.PerLayer[k] = layerRange(xs)
				}
			}
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
	if info.NVocab == 0 && info.Arch != "" {
		info.NVocab = r.int(info.Arch + ".vocab_size")
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
