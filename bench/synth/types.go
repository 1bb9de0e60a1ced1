package synth

import (
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/quantize"
)

// mixNames are the --type names that select a llama-quantize mixture rather
// than a single type.
func mixNames() []string {
	return []string{"q4_k_s", "q4_k_m", "q5_k_s", "q5_k_m", "q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "iq4_nl", "iq4_xs"}
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
	case ggml.Q3_K:
		return 11, true // LLAMA_FTYPE_MOSTLY_Q3_K_S
	case ggml.Q4_K:
		return 15, true
	case ggml.Q5_K:
		return 17, true
	case ggml.Q6_K:
		return 18, true
	case ggml.BF16:
		return 32, true
	case ggml.MXFP4:
		return 38, true // LLAMA_FTYPE_MOSTLY_MXFP4_MOE
	}
	return 0, false
}

// TypeNames lists the names ParseType accepts.
func TypeNames() []string {
	return append([]string{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q3_k", "q4_k", "q5_k", "q6_k", "mxfp4"}, mixNames()...)
}

// ParseType parses a --type name: a single ggml type such as "q8_0" (every
// 2-D weight in that type) or a llama-quantize mixture such as "q4_k_m".
// It returns the Type and Mix fields of Options.
func ParseType(s string) (ggml.DType, string, error) {
	ls := strings.ToLower(s)
	if slices.Contains(mixNames(), ls) {
		ft, err := quantize.ParseFileType(ls)
		if err != nil {
			return 0, "", fmt.Errorf("synth: %w", err)
		}
		t, err := ft.DefaultType()
		return t, ls, err
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
	mix      *quantize.FileType // nil for a single type
}

func newTypePolicy(opts Options) (typePolicy, error) {
	p := typePolicy{base: opts.Type}
	if opts.Mix != "" {
		ft, err := quantize.ParseFileType(opts.Mix)
		if err != nil {
			return p, fmt.Errorf("synth: %w", err)
		}
		if p.base, err = ft.DefaultType(); err != nil {
			return p, fmt.Errorf("synth: %w", err)
		}
		p.fileType, p.mix = uint32(ft), &ft
		return p, nil
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

// pureType returns the type of t for a single type: F32 for 1-D tensors
// (norms, biases, rope factors), the policy's type for weights, after
// llama-quantize's fallback for rows that are not a multiple of the block.
func (p typePolicy) pureType(t tensorSpec) ggml.DType {
	// The MoE router and the experts' (2-D) biases stay F32, as 1-D tensors.
	if len(t.dims) < 2 || t.kind != initNormal || t.f32 || strings.HasSuffix(t.name, "ffn_gate_inp.weight") || strings.HasSuffix(t.name, ".bias") {
		return ggml.F32
	}
	return fallback(p.base, t.cols())
}

// fallback is llama-quantize's tensor_type_fallback (quantize.FallbackType).
func fallback(typ ggml.DType, cols int) ggml.DType {
	t, _ := quantize.FallbackType(typ, uint64(cols))
	return t
}

// mixTypes asks models/quantize which type llama-quantize gives each tensor
// for the mixture ft. quantize.Plan reads a *gguf.File, so the metadata and
// F32 tensor descriptions are laid out in an anonymous mapping whose data
// pages are never touched.
func mixTypes(kv []gguf.KV, specs []tensorSpec, ft quantize.FileType) (map[string]ggml.DType, error) {
	m := &gguf.Model{KV: kv}
	infos := make([]gguf.TensorInfo, len(specs))
	for i, t := range specs {
		infos[i] = gguf.TensorInfo{Name: t.name, Dims: t.dims, Type: ggml.F32}
	}
	var hdr headerBuffer
	_, _, total, err := writeHeader(&hdr, m, infos)
	if err != nil {
		return nil, err
	}
	mem, err := syscall.Mmap(-1, 0, int(total), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("synth: mmap: %w", err)
	}
	defer syscall.Munmap(mem)
	copy(mem, hdr.b)
	f, err := gguf.Parse(mem)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	plans, err := quantize.Plan(f, ft)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	types := make(map[string]ggml.DType, len(plans))
	for _, tp := range plans {
		types[tp.Name] = tp.To
	}
	return types, nil
}

// headerBuffer collects a header in memory.
type headerBuffer struct{ b []byte }

func (h *headerBuffer) Write(b []byte) (int, error) { h.b = append(h.b, b...); return len(b), nil }
