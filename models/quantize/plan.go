package quantize

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// TensorPlan is the decision for one tensor: the type it is stored in and
// the type it will be written in.
type TensorPlan struct {
	Name string
	Dims []uint64
	From ggml.DType
	To   ggml.DType
	// Fallback is set when the mix's choice did not fit the row length
	// (Dims[0] not a multiple of its block size) and To is a substitute.
	Fallback bool
}

// category is llama.cpp's broad tensor role (tensor_get_category).
type category int

const (
	catOther category = iota
	catTokenEmbd
	catAttnQ
	catAttnV
	catAttnK
	catAttnQKV
	catAttnKVB
	catAttnOutput
	catFFNUp
	catFFNGate
	catFFNDown
	catOutput
)

func tensorCategory(name string) category {
	switch {
	case name == "output.weight":
		return catOutput
	case name == "token_embd.weight" || name == "per_layer_token_embd.weight":
		return catTokenEmbd
	case strings.Contains(name, "attn_qkv.weight"):
		return catAttnQKV
	case strings.Contains(name, "attn_kv_b.weight"):
		return catAttnKVB
	case strings.Contains(name, "attn_v.weight"):
		return catAttnV
	case strings.Contains(name, "attn_k.weight"):
		return catAttnK
	case strings.Contains(name, "attn_q.weight"):
		return catAttnQ
	case strings.Contains(name, "attn_output.weight"):
		return catAttnOutput
	case strings.Contains(name, "ffn_up"):
		return catFFNUp
	case strings.Contains(name, "ffn_gate"):
		return catFFNGate
	case strings.Contains(name, "ffn_down"):
		return catFFNDown
	}
	return catOther
}

// isAttnV reports the roles quantized like attn_v (more sensitive).
func (c category) isAttnV() bool { return c == catAttnV || c == catAttnQKV || c == catAttnKVB }

// keptNames are name fragments of weights llama.cpp never quantizes
// (tensor_allows_quantization).
var keptNames = []string{
	"_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
	"per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight",
	"indexer.k_proj.weight", "indexer.q_proj.weight",
	"time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight",
	"time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight",
	"time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
	"time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
	"attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos",
	".patch_embd", ".patch_merger", "a.rvq.codebook", "mm.a.code_embd",
}

// nDims is ggml_n_dims: the number of dimensions ignoring trailing 1s.
func nDims(dims []uint64) int {
	for i := len(dims) - 1; i >= 1; i-- {
		if dims[i] > 1 {
			return i + 1
		}
	}
	return 1
}

// allowsQuantization says whether a tensor may change type: 2-D or 3-D
// weights other than norms and a few small special tensors.
func allowsQuantization(ti gguf.TensorInfo) bool {
	if nDims(ti.Dims) < 2 || !strings.HasSuffix(ti.Name, "weight") {
		return false
	}
	if ti.Name == "position_embd.weight" || ti.Name == "token_types.weight" {
		return false
	}
	for _, k := range keptNames {
		if strings.Contains(ti.Name, k) {
			return false
		}
	}
	return true
}

// layerOf returns N for a name "blk.N.…", or -1.
func layerOf(name string) int {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return -1
	}
	num, _, ok := strings.Cut(rest, ".")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return -1
	}
	return n
}

// sortTensors orders tensors as llama.cpp's loader does (by layer number,
// non-layer tensors first, then by name), which is the order llama-quantize
// writes them in.
func sortTensors(ts []gguf.TensorInfo) []gguf.TensorInfo {
	out := append([]gguf.TensorInfo(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool {
		li, lj := layerOf(out[i].Name), layerOf(out[j].Name)
		if li != lj {
			return li < lj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// planner carries llama.cpp's quantize_state_impl counters.
type planner struct {
	ft       FileType
	arch     string
	nLayer   int
	nExpert  int
	is70B    bool
	nGQA     int // attention heads per KV head (llama.cpp's n_gqa)
	tied     bool
	nAttnV   int
	iAttnV   int
	iFFNDown int
	iFFNGate int
	iFFNUp   int
}

// useMoreBits picks the layers that get a bigger type in the _M mixes: the
// first and last eighth and every third layer in between.
func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// layerInfo returns the layer index of a per-layer tensor: the running
// counter, or for mixture-of-experts models the number in its name.
func (p *planner) layerInfo(counter int, name string) (int, error) {
	if p.nExpert > 1 {
		l := layerOf(name)
		if l < 0 {
			return 0, fmt.Errorf("quantize: cannot tell the layer of tensor %s", name)
		}
		if l >= p.nLayer {
			return 0, fmt.Errorf("quantize: tensor %s: layer %d is not below block_count %d", name, l, p.nLayer)
		}
		return l, nil
	}
	return counter, nil
}

// mixType is llama_tensor_get_type_impl restricted to the supported mixes.
func (p *planner) mixType(t ggml.DType, ti gguf.TensorInfo, cat category) (ggml.DType, error) {
	ft := p.ft
	falcon := p.arch == "falcon"
	iq4 := ft == MostlyIQ4_NL || ft == MostlyIQ4_XS
	switch {
	case cat == catOutput || (p.tied && cat == catTokenEmbd):
		if ft == MostlyMXFP4MoE || falcon || ti.Dims[0]%uint64(t.BlockSize()) != 0 {
			t = ggml.Q8_0
		} else if t != ggml.Q8_0 {
			t = ggml.Q6_K
		}
	case ft == MostlyMXFP4MoE:
		// Expert tensors (3-D) in MXFP4, everything else in Q8_0; bailingmoe3's
		// 3-D MLA projections are not experts.
		expert := cat == catFFNUp || cat == catFFNGate || cat == catFFNDown
		if len(ti.Dims) > 2 && ti.Dims[2] > 1 && (p.arch != "bailingmoe3" || expert) {
			t = ggml.MXFP4
		} else {
			t = ggml.Q8_0
		}
	case cat == catTokenEmbd:
	case cat.isAttnV():
		switch {
		case ft == MostlyQ2_K:
			t = ggml.Q3_K
			if p.nGQA >= 4 {
				t = ggml.Q4_K
			}
		case ft == MostlyQ3_K_M:
			t = ggml.Q4_K
			if p.iAttnV < 2 {
				t = ggml.Q5_K
			}
		case ft == MostlyQ3_K_L:
			t = ggml.Q5_K
		case iq4 && p.nGQA >= 4:
			t = ggml.Q5_K
		case (ft == MostlyQ4_K_M || ft == MostlyQ5_K_M) && useMoreBits(p.iAttnV, p.nAttnV):
			t = ggml.Q6_K
		case ft == MostlyQ4_K_S && p.iAttnV < 4:
			t = ggml.Q5_K
		}
		if p.is70B && (t == ggml.Q3_K || t == ggml.Q4_K) {
			t = ggml.Q5_K
		}
		if p.nExpert == 8 {
			t = ggml.Q8_0
		}
		p.iAttnV++
	case cat == catAttnK:
		if p.nExpert == 8 {
			t = ggml.Q8_0
		}
	case cat == catFFNDown:
		i, err := p.layerInfo(p.iFFNDown, ti.Name)
		if err != nil {
			return 0, err
		}
		n := p.nLayer
		switch {
		case ft == MostlyQ2_K:
			t = ggml.Q3_K
		case ft == MostlyQ3_K_M:
			switch {
			case i < n/16:
				t = ggml.Q5_K
			case !falcon || useMoreBits(i, n):
				t = ggml.Q4_K
			default:
				t = ggml.Q3_K
			}
		case ft == MostlyQ3_K_L:
			t = ggml.Q5_K
			if falcon {
				t = ggml.Q4_K
			}
		case ft == MostlyQ4_K_M:
			if falcon {
				switch {
				case i < n/16:
					t = ggml.Q6_K
				case useMoreBits(i, n):
					t = ggml.Q5_K
				default:
					t = ggml.Q4_K
				}
			} else if useMoreBits(i, n) {
				t = ggml.Q6_K
			}
		case iq4 && i < n/8:
			t = ggml.Q5_K
		case ft == MostlyQ5_K_M && useMoreBits(i, n):
			t = ggml.Q6_K
		case ft == MostlyQ4_K_S && !falcon && i < n/8:
			t = ggml.Q5_K
		}
		p.iFFNDown++
	case cat == catAttnOutput:
		switch {
		case falcon:
			if ft == MostlyQ3_K_L {
				t = ggml.Q4_K
			}
		case p.nExpert == 8:
			switch ft {
			case MostlyQ2_K, MostlyQ3_K_S, MostlyQ3_K_M, MostlyIQ4_NL, MostlyQ4_K_S, MostlyQ4_K_M, MostlyIQ4_XS:
				t = ggml.Q5_K
			}
		case ft == MostlyQ2_K:
			t = ggml.Q3_K
		case ft == MostlyQ3_K_M:
			t = ggml.Q4_K
		case ft == MostlyQ3_K_L:
			t = ggml.Q5_K
		}
	case cat == catFFNGate:
		if _, err := p.layerInfo(p.iFFNGate, ti.Name); err != nil {
			return 0, err
		}
		p.iFFNGate++
	case cat == catFFNUp:
		if _, err := p.layerInfo(p.iFFNUp, ti.Name); err != nil {
			return 0, err
		}
		p.iFFNUp++
	}
	return t, nil
}

// FallbackType substitutes a type whose block size divides the row length
// ncols, as llama-quantize's tensor_type_fallback does: 256-element types
// step down to a 32-element one, and what still does not fit (or a
// 32-element type already) becomes F16. It reports whether it substituted.
func FallbackType(t ggml.DType, ncols uint64) (ggml.DType, bool) {
	if ncols%uint64(t.BlockSize()) == 0 {
		return t, false
	}
	switch t {
	case ggml.IQ4_XS:
		t = ggml.IQ4_NL
	case ggml.Q2_K, ggml.Q3_K:
		t = ggml.Q4_0
	case ggml.Q4_K:
		t = ggml.Q5_0
	case ggml.Q5_K:
		t = ggml.Q5_1
	case ggml.Q6_K:
		t = ggml.Q8_0
	default:
		t = ggml.F16
	}
	if ncols%uint64(t.BlockSize()) != 0 {
		t = ggml.F16
	}
	return t, true
}

// Plan decides the output type of every tensor of f for the mix ft, in the
// order the output file lists them, following llama.cpp's
// llama_tensor_get_type (without an importance matrix or overrides).
func Plan(f *gguf.File, ft FileType) ([]TensorPlan, error) {
	def, err := ft.DefaultType()
	if err != nil {
		return nil, err
	}
	p := &planner{ft: ft, tied: true}
	p.arch, _ = f.Architecture()
	if p.arch != "" {
		if n, err := f.Int(p.arch + ".block_count"); err == nil {
			p.nLayer = int(n)
		}
		if n, err := f.Int(p.arch + ".expert_count"); err == nil {
			p.nExpert = int(n)
		}
		head, errH := f.Int(p.arch + ".attention.head_count")
		headKV, errKV := f.Int(p.arch + ".attention.head_count_kv")
		p.is70B = p.arch == "llama" && p.nLayer == 80 && errH == nil && errKV == nil && head != headKV
		if errH == nil && errKV == nil && headKV > 0 {
			p.nGQA = int(head / headKV)
		}
	}
	tensors := sortTensors(f.Tensors)
	for _, ti := range tensors {
		cat := tensorCategory(ti.Name)
		if cat.isAttnV() {
			p.nAttnV++
		}
		if cat == catOutput {
			p.tied = false
		}
	}
	plans := make([]TensorPlan, 0, len(tensors))
	for _, ti := range tensors {
		if len(ti.Dims) == 0 {
			return nil, fmt.Errorf("quantize: tensor %s has no dimensions", ti.Name)
		}
		tp := TensorPlan{Name: ti.Name, Dims: ti.Dims, From: ti.Type, To: ti.Type}
		if allowsQuantization(ti) {
			tp.To = def
			if ggml.IsQuantized(def) {
				t, err := p.mixType(def, ti, tensorCategory(ti.Name))
				if err != nil {
					return nil, err
				}
				tp.To, tp.Fallback = FallbackType(t, ti.Dims[0])
			}
		}
		plans = append(plans, tp)
	}
	return plans, nil
}
