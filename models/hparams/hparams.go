// Package hparams is the one vocabulary of a model's hyper-parameters:
// Params, and the table of GGUF keys that fill it, each with the
// architectures that read it and its default. The model loader (package
// models, whose models.Params is this type), "litert-go info"
// (models/modelinfo) and the synthetic model writer (bench/synth) all go
// through the table, so the reader and the writer cannot disagree on a key,
// its type or its default.
package hparams

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/litert-go/litert-go/models/gguf"
)

// Params are the hyper-parameters of a model, read from the GGUF keys
// "<arch>.…" that the table in this file lists. A knob of an architecture
// that does not read it is zero. JSON names are those of "litert-go info
// --json" and are stable.
type Params struct {
	Arch      string  `json:"architecture"`   // general.architecture
	VocabSize int     `json:"-"`              // rows of token_embd.weight (not a key)
	Dim       int     `json:"n_embd"`         // embedding_length
	HiddenDim int     `json:"n_ff"`           // feed_forward_length (one value, or per layer all equal)
	NLayers   int     `json:"n_layer"`        // block_count
	NHeads    int     `json:"n_head"`         // attention.head_count
	NKVHeads  int     `json:"n_head_kv"`      // attention.head_count_kv (default NHeads)
	HeadDim   int     `json:"head_dim"`       // attention.key_length (default Dim/NHeads)
	ValueDim  int     `json:"value_length"`   // attention.value_length (default HeadDim)
	CtxLen    int     `json:"context_length"` // context_length: the training context
	NormEps   float32 `json:"norm_eps"`       // attention.layer_norm_rms_epsilon (default 1e-5)

	RopeDim     int     `json:"rope_dimension_count"`         // rope.dimension_count (default HeadDim)
	RopeBase    float64 `json:"rope_freq_base"`               // rope.freq_base (default 10000)
	RopeBaseSWA float64 `json:"rope_freq_base_swa,omitempty"` // rope.freq_base_swa: the sliding-window layers' base (gemma2, gemma3, gpt-oss, exaone4)
	// RopeScaling is rope.scaling.type: "", "none", "linear", "yarn" or
	// "longrope"; "" (absent) is linear when RopeFactor is set, as in
	// llama.cpp.
	RopeScaling    string  `json:"rope_scaling_type,omitempty"`
	RopeFactor     float32 `json:"rope_scaling_factor,omitempty"`      // rope.scaling.factor (or rope.scale_linear); 0 for none
	RopeOrigCtx    int     `json:"rope_original_context_length"`       // rope.scaling.original_context_length (default CtxLen)
	RopeAttnFactor float32 `json:"rope_scaling_attn_factor"`           // rope.scaling.attn_factor (default 1)
	YaRNLogMul     float32 `json:"rope_yarn_log_multiplier,omitempty"` // rope.scaling.yarn_log_multiplier (DeepSeek's mscale; refused)

	// Sliding-window attention: Window is attention.sliding_window, and a
	// layer il is local when IsLocal(il) says so, from
	// attention.sliding_window_pattern: SWALayers when the file gives one
	// bool per layer, else the period SWAPeriod (layer il is local unless
	// il%SWAPeriod == SWAPeriod-1), as llama.cpp's set_swa_pattern.
	Window    int    `json:"sliding_window,omitempty"`
	SWAPeriod int    `json:"sliding_window_pattern,omitempty"`
	SWALayers []bool `json:"sliding_window_layers,omitempty"`

	// NoRoPEInterval: layer il has no RoPE when (il+1)%NoRoPEInterval == 0
	// (smollm3: 4, fixed as llama.cpp fixes it); 0 for none.
	NoRoPEInterval int `json:"no_rope_layer_interval,omitempty"`
	// RopeFinetuned is granite's rope.scaling.finetuned: false switches
	// RoPE off in every layer (default true).
	RopeFinetuned bool `json:"rope_finetuned,omitempty"`

	// Gemma 2's soft-caps (0: none): attention scores to ±AttnSoftcap,
	// logits to ±FinalSoftcap.
	AttnSoftcap  float32 `json:"attn_logit_softcapping,omitempty"`  // attn_logit_softcapping
	FinalSoftcap float32 `json:"final_logit_softcapping,omitempty"` // final_logit_softcapping (gemma2, gemma3)

	// Granite's multipliers: token embeddings × EmbeddingScale, q·k ×
	// AttentionScale (default 1/√HeadDim), block outputs × ResidualScale,
	// logits ÷ LogitScale (required).
	EmbeddingScale float32 `json:"embedding_scale,omitempty"` // embedding_scale (default 1)
	AttentionScale float32 `json:"attention_scale,omitempty"` // attention.scale
	ResidualScale  float32 `json:"residual_scale,omitempty"`  // residual_scale (default 1)
	LogitScale     float32 `json:"logit_scale,omitempty"`     // logit_scale

	// Mixture of experts (qwen3moe, gpt-oss); zero for dense models.
	NExperts        int `json:"n_expert,omitempty"`      // expert_count
	NExpertsUsed    int `json:"n_expert_used,omitempty"` // expert_used_count: experts each token is routed to
	ExpertHiddenDim int `json:"n_ff_expert,omitempty"`   // expert_feed_forward_length (default HiddenDim/NExpertsUsed)
}

// IsLocal reports whether layer il uses sliding-window attention.
func (p *Params) IsLocal(il int) bool {
	switch {
	case p.Window <= 0:
		return false
	case p.SWALayers != nil:
		return il < len(p.SWALayers) && p.SWALayers[il]
	}
	return p.SWAPeriod > 0 && il%p.SWAPeriod < p.SWAPeriod-1
}

// NoRoPE reports whether layer il skips the rotary embedding (SmolLM3's
// NoPE layers, Granite with rope.scaling.finetuned false).
func (p *Params) NoRoPE(il int) bool {
	if p.Arch == "granite" && !p.RopeFinetuned {
		return true
	}
	return p.NoRoPEInterval > 0 && (il+1)%p.NoRoPEInterval == 0
}

// check is the range a key's value must lie in.
type check int

const (
	anyValue    check = iota
	positive          // a count ≥ 1, or a finite number > 0
	nonNegative       // a count ≥ 0, or a finite number ≥ 0
)

// entry is one row of the table: a GGUF key, the Params field it fills,
// the architectures that read it and its default.
type entry struct {
	name     string   // after "<arch>."; "" for a constant of the architectures, read from no key
	alt      string   // an older name, read when name is absent
	archs    []string // the architectures that read it; nil for all
	required bool
	perLayer bool // may be an array of one value per layer, all equal
	// zeroLayers: in a per-layer array, 0 marks a layer without attention
	// (LFM2's convolution layers), and the others must be equal
	zeroLayers bool
	check      check // the value's range
	// field returns the address of the field: *int, *float32, *float64,
	// *string, *bool, or *[]bool for the sliding-window pattern (which
	// fills SWALayers from an array, SWAPeriod from an integer).
	field func(p *Params) any
	// def returns the value when the key is absent, of the field's type,
	// from the fields above it in the table; nil for zero.
	def func(p *Params) any
}

// table lists every key, in the order Read fills the fields (a default may
// use the fields above it) and Params.KV writes them. It is not modified.
var table = []entry{
	{name: "context_length", required: true, check: positive, field: func(p *Params) any { return &p.CtxLen }},
	{name: "embedding_length", required: true, check: positive, field: func(p *Params) any { return &p.Dim }},
	{name: "feed_forward_length", required: true, perLayer: true, check: positive, field: func(p *Params) any { return &p.HiddenDim }},
	{name: "block_count", required: true, check: positive, field: func(p *Params) any { return &p.NLayers }},
	{name: "attention.head_count", required: true, perLayer: true, check: positive, field: func(p *Params) any { return &p.NHeads }},
	{name: "attention.head_count_kv", perLayer: true, zeroLayers: true, check: positive, field: func(p *Params) any { return &p.NKVHeads },
		def: func(p *Params) any { return p.NHeads }},
	{name: "attention.key_length", check: positive, field: func(p *Params) any { return &p.HeadDim },
		def: func(p *Params) any {
			if p.NHeads == 0 {
				return 0
			}
			return p.Dim / p.NHeads
		}},
	{name: "attention.value_length", check: positive, field: func(p *Params) any { return &p.ValueDim },
		def: func(p *Params) any { return p.HeadDim }},
	{name: "attention.layer_norm_rms_epsilon", alt: "attention.layer_norm_epsilon", check: positive,
		field: func(p *Params) any { return &p.NormEps }, def: func(*Params) any { return float32(1e-5) }},
	{name: "rope.dimension_count", check: positive, field: func(p *Params) any { return &p.RopeDim },
		def: func(p *Params) any { return p.HeadDim }},
	{name: "rope.freq_base", check: positive, field: func(p *Params) any { return &p.RopeBase },
		def: func(*Params) any { return float64(10000) }},
	{name: "rope.freq_base_swa", archs: []string{"gemma3", "gemma3n", "gemma4"}, check: positive, field: func(p *Params) any { return &p.RopeBaseSWA },
		def: func(*Params) any { return float64(10000) }},
	{name: "rope.freq_base_swa", archs: []string{"gemma2", "gpt-oss", "exaone4"}, check: positive,
		field: func(p *Params) any { return &p.RopeBaseSWA }, def: func(p *Params) any { return p.RopeBase }},
	{name: "rope.scaling.type", field: func(p *Params) any { return &p.RopeScaling }},
	{name: "rope.scaling.factor", alt: "rope.scale_linear", check: nonNegative, field: func(p *Params) any { return &p.RopeFactor }},
	{name: "rope.scaling.original_context_length", check: positive, field: func(p *Params) any { return &p.RopeOrigCtx },
		def: func(p *Params) any { return p.CtxLen }},
	{name: "rope.scaling.attn_factor", check: positive, field: func(p *Params) any { return &p.RopeAttnFactor },
		def: func(*Params) any { return float32(1) }},
	{name: "rope.scaling.yarn_log_multiplier", check: nonNegative, field: func(p *Params) any { return &p.YaRNLogMul }},

	// sliding-window attention, as each architecture's load_arch_hparams
	// in llama.cpp reads it
	{name: "attention.sliding_window", archs: []string{"gpt-oss"}, required: true, check: positive, field: func(p *Params) any { return &p.Window }},
	{name: "attention.sliding_window", archs: []string{"gemma2"}, check: nonNegative, field: func(p *Params) any { return &p.Window },
		def: func(*Params) any { return 4096 }},
	{name: "attention.sliding_window", archs: []string{"exaone4"}, check: nonNegative, field: func(p *Params) any { return &p.Window },
		def: func(p *Params) any {
			if p.NLayers == 64 { // 32B: llama.cpp turns sliding windows on for it alone
				return 4096
			}
			return 0
		}},
	{name: "attention.sliding_window", archs: []string{"gemma3", "olmo2", "phi3"}, check: nonNegative, field: func(p *Params) any { return &p.Window }},
	{name: "attention.sliding_window", archs: []string{"gemma3n", "gemma4"}, required: true, check: positive, field: func(p *Params) any { return &p.Window }},
	{name: "attention.sliding_window_pattern", check: nonNegative, field: func(p *Params) any { return &p.SWALayers },
		def: func(p *Params) any {
			switch p.Arch {
			case "gemma2", "gpt-oss":
				return 2
			case "gemma3":
				return 6
			case "exaone4":
				if p.NLayers == 64 {
					return 4
				}
			}
			return 0
		}},

	{name: "", archs: []string{"smollm3"}, field: func(p *Params) any { return &p.NoRoPEInterval }, def: func(*Params) any { return 4 }},
	{name: "rope.scaling.finetuned", archs: []string{"granite"}, field: func(p *Params) any { return &p.RopeFinetuned },
		def: func(*Params) any { return true }},

	{name: "attn_logit_softcapping", archs: []string{"gemma2"}, check: nonNegative, field: func(p *Params) any { return &p.AttnSoftcap }},
	{name: "final_logit_softcapping", archs: []string{"gemma2", "gemma3", "gemma4"}, check: nonNegative, field: func(p *Params) any { return &p.FinalSoftcap }},

	{name: "embedding_scale", archs: []string{"granite"}, check: positive, field: func(p *Params) any { return &p.EmbeddingScale },
		def: func(*Params) any { return float32(1) }},
	{name: "attention.scale", archs: []string{"granite"}, check: positive, field: func(p *Params) any { return &p.AttentionScale },
		def: func(p *Params) any {
			if p.HeadDim == 0 {
				return float32(0)
			}
			return float32(1 / math.Sqrt(float64(p.HeadDim)))
		}},
	{name: "residual_scale", archs: []string{"granite"}, check: positive, field: func(p *Params) any { return &p.ResidualScale },
		def: func(*Params) any { return float32(1) }},
	{name: "logit_scale", archs: []string{"granite"}, required: true, check: positive, field: func(p *Params) any { return &p.LogitScale }},

	// mixture of experts: required by the loaders of qwen3moe and gpt-oss
	{name: "expert_count", check: positive, field: func(p *Params) any { return &p.NExperts }},
	{name: "expert_used_count", check: positive, field: func(p *Params) any { return &p.NExpertsUsed }},
	{name: "expert_feed_forward_length", check: positive, field: func(p *Params) any { return &p.ExpertHiddenDim },
		def: func(p *Params) any {
			if p.NExperts == 0 {
				return 0
			}
			return p.HiddenDim / max(p.NExpertsUsed, 1)
		}},
}

// reads reports whether architecture arch reads e.
func (e *entry) reads(arch string) bool { return e.archs == nil || slices.Contains(e.archs, arch) }

// Read returns the hyper-parameters of f: the architecture from
// general.architecture, every key of the table that the architecture reads
// (or its default when absent) and VocabSize from token_embd.weight. It
// reads every key and returns the problems joined: a required key missing
// (a *gguf.KeyError with an empty Have, see Incomplete), a key of the wrong
// type, or a value out of range, each naming its key. A file without
// general.architecture reads as zero Params and that error.
func Read(f *gguf.File) (Params, error) { return read(f, false) }

// ReadVarying is Read for architectures that read their per-layer values
// themselves (gemma4: head counts, head sizes and MLP widths per layer): a
// per-layer key whose values differ gives its largest value, not a
// PerLayerError.
func ReadVarying(f *gguf.File) (Params, error) { return read(f, true) }

func read(f *gguf.File, varying bool) (Params, error) {
	var p Params
	arch, err := f.Architecture()
	if err != nil {
		return p, err
	}
	p.Arch = arch
	var errs []error
	for i := range table {
		e := &table[i]
		if !e.reads(arch) {
			continue
		}
		if err := e.read(f, &p, varying); err != nil {
			errs = append(errs, err)
		}
	}
	if t, ok := f.Tensor("token_embd.weight"); ok && len(t.Dims) == 2 {
		p.VocabSize = t.Rows()
	}
	return p, errors.Join(errs...)
}

// PerLayerError reports a key of one value per layer whose values differ,
// which the architectures of package models do not support. Read leaves
// the first layer's value in the field.
type PerLayerError struct {
	Key          string
	Layer        int   // the first layer whose value differs from layer 0's
	First, Value int64 // the values of layer 0 and Layer
}

func (e *PerLayerError) Error() string {
	return fmt.Sprintf("key %q varies per layer (%d in layer 0, %d in layer %d), which is not supported", e.Key, e.First, e.Value, e.Layer)
}

// Incomplete reports whether err, from Read, only reports required keys
// missing or keys that vary per layer: a file that describes a model, or
// part of one, that the loaders cannot run but that the fields describe.
func Incomplete(err error) bool {
	if err == nil {
		return false
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var ke *gguf.KeyError
		var pl *PerLayerError
		if !errors.As(e, &pl) && (!errors.As(e, &ke) || ke.Have != "") {
			return false
		}
	}
	return true
}

// read fills e's field of p from f, or from its default.
func (e *entry) read(f *gguf.File, p *Params, varying bool) error {
	key := p.Arch + "." + e.name
	v, ok := f.Lookup(key)
	if !ok && e.alt != "" {
		key = p.Arch + "." + e.alt
		v, ok = f.Lookup(key)
	}
	if e.name == "" || !ok {
		e.setDefault(p)
		if ok || !e.required || e.name == "" {
			return nil
		}
		return &gguf.KeyError{Key: p.Arch + "." + e.name, Want: e.want()}
	}
	switch dst := e.field(p).(type) {
	case *string:
		s, err := f.String(key)
		*dst = s
		return err
	case *bool:
		b, err := f.Bool(key)
		*dst = b
		return err
	case *[]bool:
		if bs, isBools := v.Data.([]bool); isBools {
			p.SWALayers = slices.Clone(bs)
			return nil
		}
		return e.readInt(f, key, &p.SWAPeriod, false)
	case *int:
		return e.readInt(f, key, dst, varying)
	case *float32:
		x, err := e.readFloat(f, key)
		*dst = float32(x)
		if err == nil && x != 0 && *dst == 0 {
			err = fmt.Errorf("key %q is %g, which underflows float32", key, x)
		}
		return err
	case *float64:
		x, err := e.readFloat(f, key)
		*dst = x
		return err
	}
	panic("hparams: field of unknown type for key " + key)
}

// readInt reads the integer key, or for perLayer entries an array of equal
// integers (with varying, the largest of any integers), into dst,
// checking its range.
func (e *entry) readInt(f *gguf.File, key string, dst *int, varying bool) error {
	var n int64
	if v, _ := f.Lookup(key); v.Type == gguf.TypeArray && e.perLayer {
		xs, err := f.Ints(key)
		if err != nil {
			return err
		}
		if len(xs) == 0 {
			return fmt.Errorf("key %q is an empty array", key)
		}
		n = xs[0]
		for il, x := range xs {
			if varying {
				n = max(n, x)
				continue
			}
			if e.zeroLayers && n == 0 {
				n = x
			}
			if x != n && !(e.zeroLayers && x == 0) {
				if n > 0 && n <= 1<<31 {
					*dst = int(n)
				}
				return &PerLayerError{Key: key, Layer: il, First: n, Value: x}
			}
		}
	} else {
		var err error
		if n, err = f.Int(key); err != nil {
			return err
		}
	}
	switch {
	case e.check == positive && (n <= 0 || n > 1<<31):
		return fmt.Errorf("key %q is %d, want a positive count", key, n)
	case n < 0 || n > 1<<31:
		return fmt.Errorf("key %q is %d, want a count ≥ 0", key, n)
	}
	*dst = int(n)
	return nil
}

// readFloat reads the number key, checking its range.
func (e *entry) readFloat(f *gguf.File, key string) (float64, error) {
	x, err := f.Float(key)
	if err != nil {
		return 0, err
	}
	switch {
	case e.check == positive && (!(x > 0) || math.IsInf(x, 0)):
		return 0, fmt.Errorf("key %q is %.6g, want a finite number above 0", key, x)
	case e.check == nonNegative && (!(x >= 0) || math.IsInf(x, 0)):
		return 0, fmt.Errorf("key %q is %.6g, want a finite number ≥ 0", key, x)
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("key %q is %.6g, want a finite number", key, x)
	}
	return x, nil
}

// want names the type of e's key for an error.
func (e *entry) want() string {
	switch e.field(&Params{}).(type) {
	case *string:
		return "string"
	case *bool:
		return "bool"
	case *int, *[]bool:
		return "integer"
	}
	return "number"
}

// setDefault sets e's field of p to its default.
func (e *entry) setDefault(p *Params) {
	if e.def == nil {
		return
	}
	d := e.def(p)
	switch dst := e.field(p).(type) {
	case *string:
		*dst = d.(string)
	case *bool:
		*dst = d.(bool)
	case *int:
		*dst = d.(int)
	case *[]bool:
		p.SWALayers, p.SWAPeriod = nil, d.(int)
	case *float32:
		*dst = d.(float32)
	case *float64:
		*dst = d.(float64)
	}
}

// isZero reports whether e's field of p is zero.
func (e *entry) isZero(p *Params) bool {
	switch dst := e.field(p).(type) {
	case *string:
		return *dst == ""
	case *bool:
		return !*dst
	case *int:
		return *dst == 0
	case *[]bool:
		return p.SWALayers == nil && p.SWAPeriod == 0
	case *float32:
		return *dst == 0
	case *float64:
		return *dst == 0
	}
	return true
}

// defaultIsZero reports whether e's default for p is zero.
func (e *entry) defaultIsZero(p *Params) bool {
	q := *p
	e.setDefault(&q)
	return e.isZero(&q)
}

// Default sets each zero field of p that p.Arch reads to its default, in
// table order, as Read does for absent keys: a writer fills in the fields
// it sets and calls Default for the rest. (A bool whose default is true,
// such as granite's RopeFinetuned, is set true.)
func (p *Params) Default() {
	for i := range table {
		if e := &table[i]; e.reads(p.Arch) && e.isZero(p) {
			e.setDefault(p)
		}
	}
}

// KV returns the metadata that describes p, with the key names and value
// types convert_hf_to_gguf writes (integers as uint32, numbers as float32,
// or float64 when float32 would round them): general.architecture, then
// each key of the table p.Arch reads unless both its field and its default
// are zero. Read of a file with these keys returns p (but VocabSize, which
// comes from a tensor).
func (p *Params) KV() []gguf.KV {
	kv := []gguf.KV{{Key: "general.architecture", Value: gguf.String(p.Arch)}}
	for i := range table {
		e := &table[i]
		if e.name == "" || !e.reads(p.Arch) || (e.isZero(p) && e.defaultIsZero(p)) {
			continue
		}
		var v gguf.Value
		switch x := e.field(p).(type) {
		case *string:
			v = gguf.String(*x)
		case *bool:
			v = gguf.Bool(*x)
		case *int:
			v = gguf.Uint32(uint32(*x))
		case *[]bool:
			if p.SWALayers != nil {
				v = gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool, Data: slices.Clone(p.SWALayers)}
			} else {
				v = gguf.Uint32(uint32(p.SWAPeriod))
			}
		case *float32:
			v = gguf.Float32(*x)
		case *float64:
			v = gguf.Float32(float32(*x))
			if float64(float32(*x)) != *x {
				v = gguf.Value{Type: gguf.TypeFloat64, Data: *x}
			}
		}
		kv = append(kv, gguf.KV{Key: p.Arch + "." + e.name, Value: v})
	}
	return kv
}
