package synth

import (
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/models/ggml"
)

// mixture is a llama-quantize file type that mixes tensor types.
type mixture struct {
	name     string
	fileType uint32     // llama_ftype, stored as general.file_type
	base     ggml.DType // the default type of 2-D weights
}

// mixtures are the llama-quantize K-quant mixtures Generate implements.
func mixtures() []mixture {
	return []mixture{
		{"q4_k_s", 14, ggml.Q4_K},
		{"q4_k_m", 15, ggml.Q4_K},
		{"q5_k_s", 16, ggml.Q5_K},
		{"q5_k_m", 17, ggml.Q5_K},
	}
}

// pureFileType maps a single weight type to its llama_ftype.
func pureFileType(t ggml.DType) (uint32, bool) {
	switch t {
	case ggml.F32:
		return 0, true
	case ggml.F16:
		return 1, true
	case ggml.Q4_0:
		return 2, true
	case ggml.Q4_1:
		return 3, true
	case ggml.Q8_0:
		return 7, true
	case ggml.Q5_0:
		return 8, true
	case ggml.Q5_1:
		return 9, true
	case ggml.Q4_K:
		return 15, true
	case ggml.Q5_K:
		return 17, true
	case ggml.Q6_K:
		return 18, true
	case ggml.BF16:
		return 32, true
	}
	return 0, false
}

// TypeNames lists the names ParseType accepts.
func TypeNames() []string {
	names := []string{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"}
	for _, m := range mixtures() {
		names = append(names, m.name)
	}
	return names
}

// ParseType parses a --type name: a single ggml type such as "q8_0" (every
// 2-D weight in that type) or a llama-quantize mixture such as "q4_k_m".
// It returns the Type and Mix fields of Options.
func ParseType(s string) (ggml.DType, string, error) {
	ls := strings.ToLower(s)
	for _, m := range mixtures() {
		if ls == m.name {
			return m.base, m.name, nil
		}
	}
	t, err := ggml.ParseDType(s)
	if err == nil {
		if _, ok := pureFileType(t); ok && ggml.CanQuantize(t) {
			return t, "", nil
		}
	}
	return 0, "", fmt.Errorf("synth: unsupported type %q (have %s)", s, strings.Join(TypeNames(), ", "))
}

// typePolicy chooses each tensor's type.
type typePolicy struct {
	fileType uint32
	base     ggml.DType
	mix      string // "" for a single type
	nLayer   int
	tied     bool
}

func newTypePolicy(opts Options, s Shape) (typePolicy, error) {
	p := typePolicy{base: opts.Type, mix: strings.ToLower(opts.Mix), nLayer: s.NLayer, tied: s.Tied}
	if p.mix != "" {
		for _, m := range mixtures() {
			if m.name == p.mix {
				p.base, p.fileType = m.base, m.fileType
				return p, nil
			}
		}
		return p, fmt.Errorf("synth: unknown mixture %q", opts.Mix)
	}
	ft, ok := pureFileType(p.base)
	if !ok || !ggml.CanQuantize(p.base) {
		return p, fmt.Errorf("synth: cannot generate weights of type %s", p.base)
	}
	p.fileType = ft
	return p, nil
}

// quantized reports whether the file holds quantized weights.
func (p typePolicy) quantized() bool { return p.base.BlockSize() > 1 }

// useMoreBits is llama-quantize's choice of layers that get more bits.
func useMoreBits(i, n int) bool { return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2 }

// typeOf returns the type of t: F32 for 1-D tensors (norms, biases, rope
// factors); for weights the policy's type after llama-quantize's mixture
// rules and its fallback for rows that are not a multiple of the block size.
func (p typePolicy) typeOf(t tensorSpec) ggml.DType {
	if len(t.dims) < 2 || t.kind != initNormal {
		return ggml.F32
	}
	typ := p.base
	if !p.quantized() {
		return typ
	}
	if p.mix != "" {
		typ = p.mixType(t, typ)
	}
	return fallback(typ, t.cols())
}

// mixType applies llama_tensor_get_type_impl's rules for the K mixtures.
func (p typePolicy) mixType(t tensorSpec, typ ggml.DType) ggml.DType {
	switch {
	case t.cat == catOutput || (p.tied && t.cat == catTokenEmbd):
		if t.cols()%typ.BlockSize() != 0 {
			return ggml.Q8_0
		}
		if typ != ggml.Q8_0 {
			return ggml.Q6_K
		}
	case t.cat == catAttnV:
		switch {
		case (p.mix == "q4_k_m" || p.mix == "q5_k_m") && useMoreBits(t.layer, p.nLayer):
			return ggml.Q6_K
		case p.mix == "q4_k_s" && t.layer < 4:
			return ggml.Q5_K
		}
	case t.cat == catFFNDown:
		switch {
		case (p.mix == "q4_k_m" || p.mix == "q5_k_m") && useMoreBits(t.layer, p.nLayer):
			return ggml.Q6_K
		case p.mix == "q4_k_s" && t.layer < p.nLayer/8:
			return ggml.Q5_K
		}
	}
	return typ
}

// fallback is llama-quantize's tensor_type_fallback: a type whose block does
// not divide the row length is replaced by a compatible one, else F16.
func fallback(typ ggml.DType, cols int) ggml.DType {
	if cols%typ.BlockSize() == 0 {
		return typ
	}
	switch typ {
	case ggml.Q4_K:
		typ = ggml.Q5_0
	case ggml.Q5_K:
		typ = ggml.Q5_1
	case ggml.Q6_K:
		typ = ggml.Q8_0
	default:
		return ggml.F16
	}
	if cols%typ.BlockSize() != 0 {
		return ggml.F16
	}
	return typ
}
