package synth

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/gguf"
)

// llamaHparams are the hyperparameters llama.cpp's loader reads from metadata.
type llamaHparams struct {
	nEmbd, nLayer, nHead, nHeadKV, nFF, headK, headV, nRot, nVocab int
	nExpert, nFFExp                                                int // qwen3moe
}

// loadHparams reads the keys llama.cpp's llm_load_hparams requires for arch,
// failing the test on a missing one.
func loadHparams(t *testing.T, f *gguf.File) (string, llamaHparams) {
	t.Helper()
	arch, err := f.Architecture()
	require.NoError(t, err)
	get := func(key string) int {
		v, err := f.Int(arch + "." + key)
		require.NoError(t, err, "llama.cpp requires %s.%s", arch, key)
		return int(v)
	}
	h := llamaHparams{
		nEmbd: get("embedding_length"), nLayer: get("block_count"), nHead: get("attention.head_count"),
		nFF: get("feed_forward_length"),
	}
	get("context_length")
	_, err = f.Float(arch + ".attention.layer_norm_rms_epsilon")
	require.NoError(t, err)
	h.nHeadKV = h.nHead
	if f.Has(arch + ".attention.head_count_kv") {
		h.nHeadKV = get("attention.head_count_kv")
	}
	h.headK, h.headV = h.nEmbd/h.nHead, h.nEmbd/h.nHead
	if f.Has(arch + ".attention.key_length") {
		h.headK = get("attention.key_length")
	}
	if f.Has(arch + ".attention.value_length") {
		h.headV = get("attention.value_length")
	}
	switch arch {
	case "gemma3":
		get("attention.sliding_window") // required by llama.cpp for gemma3
	case "granite":
		_, err = f.Float(arch + ".logit_scale") // required by llama.cpp for granite
		require.NoError(t, err)
	case "gpt-oss":
		get("attention.sliding_window") // required by llama.cpp for gpt-oss
		h.nExpert = get("expert_count")
		require.Positive(t, get("expert_used_count"))
		h.nFFExp = get("expert_feed_forward_length") // required
	case "qwen3moe":
		h.nExpert = get("expert_count") // required non-zero, as expert_used_count
		require.Positive(t, get("expert_used_count"))
		h.nFFExp = h.nFF / get("expert_used_count")
		if f.Has(arch + ".expert_feed_forward_length") {
			h.nFFExp = get("expert_feed_forward_length")
		}
	}
	h.nRot = h.headK
	if f.Has(arch + ".rope.dimension_count") {
		h.nRot = get("rope.dimension_count")
	}
	toks, err := f.Strings("tokenizer.ggml.tokens")
	require.NoError(t, err)
	h.nVocab = len(toks)
	return arch, h
}

// llamaCppTensors lists the tensors llama.cpp's llama_model::load_tensors
// creates for arch, with their ggml dims; optional ones may be absent.
func llamaCppTensors(arch string, h llamaHparams) (required, optional map[string][]uint64) {
	u := func(xs ...int) []uint64 {
		out := make([]uint64, len(xs))
		for i, x := range xs {
			out[i] = uint64(x)
		}
		return out
	}
	e, q, k, v := h.nEmbd, h.headK*h.nHead, h.headK*h.nHeadKV, h.headV*h.nHeadKV
	required = map[string][]uint64{
		"token_embd.weight":  u(e, h.nVocab),
		"output_norm.weight": u(e),
	}
	optional = map[string][]uint64{"output.weight": u(e, h.nVocab)}
	switch arch {
	case "llama", "granite", "exaone4":
		optional["rope_freqs.weight"] = u(h.headK / 2)
	case "olmo2", "gpt-oss":
		required["output.weight"] = u(e, h.nVocab)
	case "phi3":
		optional["rope_factors_long.weight"] = u(h.nRot / 2)
		optional["rope_factors_short.weight"] = u(h.nRot / 2)
	}
	postNorm := arch == "olmo2" || arch == "exaone4" // no pre-norms
	for il := range h.nLayer {
		p := fmt.Sprintf("blk.%d.", il)
		if arch == "gpt-oss" { // attn_norm, then post_attention_norm before the experts
			required[p+"attn_norm.weight"] = u(e)
			required[p+"post_attention_norm.weight"] = u(e)
			required[p+"attn_sinks.weight"] = u(h.nHead)
			required[p+"attn_output.bias"] = u(e)
			required[p+"ffn_gate_inp.bias"] = u(h.nExpert)
			required[p+"ffn_gate_exps.bias"] = u(h.nFFExp, h.nExpert)
			required[p+"ffn_up_exps.bias"] = u(h.nFFExp, h.nExpert)
			required[p+"ffn_down_exps.bias"] = u(e, h.nExpert)
			optional[p+"attn_q.bias"] = u(q)
			optional[p+"attn_k.bias"] = u(k)
			optional[p+"attn_v.bias"] = u(v)
		} else if !postNorm {
			required[p+"attn_norm.weight"] = u(e)
			required[p+"ffn_norm.weight"] = u(e)
		}
		if arch == "phi3" { // fused q/k/v and gate/up
			required[p+"attn_qkv.weight"] = u(e, q+k+v)
			required[p+"ffn_up.weight"] = u(e, 2*h.nFF)
		} else {
			required[p+"attn_q.weight"] = u(e, q)
			required[p+"attn_k.weight"] = u(e, k)
			required[p+"attn_v.weight"] = u(e, v)
		}
		required[p+"attn_output.weight"] = u(h.headV*h.nHead, e)
		switch {
		case arch == "qwen3moe" || arch == "gpt-oss": // router and 3-D expert tensors
			required[p+"ffn_gate_inp.weight"] = u(e, h.nExpert)
			required[p+"ffn_gate_exps.weight"] = u(e, h.nFFExp, h.nExpert)
			required[p+"ffn_up_exps.weight"] = u(e, h.nFFExp, h.nExpert)
			required[p+"ffn_down_exps.weight"] = u(h.nFFExp, e, h.nExpert)
		case arch != "phi3":
			required[p+"ffn_gate.weight"] = u(e, h.nFF)
			required[p+"ffn_up.weight"] = u(e, h.nFF)
			fallthrough
		default:
			required[p+"ffn_down.weight"] = u(h.nFF, e)
		}
		switch arch {
		case "llama":
			optional[p+"attn_q.bias"] = u(q)
			optional[p+"attn_k.bias"] = u(k)
			optional[p+"attn_v.bias"] = u(v)
		case "qwen2":
			required[p+"attn_q.bias"] = u(e)
			required[p+"attn_k.bias"] = u(k)
			required[p+"attn_v.bias"] = u(v)
		case "qwen3", "qwen3moe":
			required[p+"attn_q_norm.weight"] = u(h.headK)
			required[p+"attn_k_norm.weight"] = u(h.headK)
		case "gemma3", "exaone4":
			required[p+"attn_q_norm.weight"] = u(h.headK)
			required[p+"attn_k_norm.weight"] = u(h.headK)
			required[p+"post_attention_norm.weight"] = u(e)
			required[p+"post_ffw_norm.weight"] = u(e)
		case "gemma2":
			required[p+"post_attention_norm.weight"] = u(e)
			required[p+"post_ffw_norm.weight"] = u(e)
		case "olmo2":
			required[p+"attn_q_norm.weight"] = u(q)
			required[p+"attn_k_norm.weight"] = u(k)
			required[p+"post_attention_norm.weight"] = u(e)
			required[p+"post_ffw_norm.weight"] = u(e)
		case "granite":
			optional[p+"attn_output.bias"] = u(e)
			optional[p+"ffn_gate.bias"] = u(h.nFF)
			optional[p+"ffn_up.bias"] = u(h.nFF)
			optional[p+"ffn_down.bias"] = u(e)
		}
	}
	return required, optional
}

// requireLlamaCppLoadable checks f as llama.cpp's loader would: every
// required tensor present with the right dims, no tensor it would not
// consume (llama.cpp fails with "wrong number of tensors").
func requireLlamaCppLoadable(t *testing.T, f *gguf.File) {
	t.Helper()
	if arch, _ := f.Architecture(); arch == "lfm2" || arch == "qwen35" {
		requireHybridLoadable(t, f, arch) // hybrid_test.go
		return
	}
	if arch, _ := f.Architecture(); arch == "gemma3n" || arch == "gemma4" {
		requireGemmaNLoadable(t, f, arch)
		return
	}
	arch, h := loadHparams(t, f)
	required, optional := llamaCppTensors(arch, h)
	require.NotEmpty(t, required, "unknown architecture %q", arch)
	requireTensors(t, f, arch, required, optional)
}

// requireTensors checks f's tensors as llama.cpp's loader would: every
// required tensor present with its dims, and no tensor that is neither
// required nor optional (llama.cpp fails with "wrong number of tensors").
func requireTensors(t *testing.T, f *gguf.File, arch string, required, optional map[string][]uint64) {
	t.Helper()
	for name, dims := range required {
		ti, ok := f.Tensor(name)
		require.True(t, ok, "%s: llama.cpp requires tensor %s", arch, name)
		require.Equal(t, dims, ti.Dims, "%s: dims of %s", arch, name)
	}
	for _, ti := range f.Tensors {
		if _, ok := required[ti.Name]; ok {
			continue
		}
		dims, ok := optional[ti.Name]
		require.True(t, ok, "%s: llama.cpp would not load tensor %s", arch, ti.Name)
		require.Equal(t, dims, ti.Dims, "%s: dims of %s", arch, ti.Name)
	}
}
