package synth

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/gguf"
)

// requireGemmaNLoadable checks a gemma3n or gemma4 file as llama.cpp's
// load_arch_hparams and load_arch_tensors of src/models/gemma3n.cpp and
// gemma4.cpp read it: per-layer head counts, head sizes and MLP widths
// from scalars or arrays, the sliding pattern, the shared-KV layers, and
// every tensor with its dims (the optional ones where llama.cpp marks them
// TENSOR_NOT_REQUIRED), nothing else.
func requireGemmaNLoadable(t *testing.T, f *gguf.File, arch string) {
	t.Helper()
	get := func(k string) int {
		v, err := f.Int(arch + "." + k)
		require.NoError(t, err, "llama.cpp requires %s.%s", arch, k)
		return int(v)
	}
	nl := get("block_count")
	perLayer := func(k string, def int) []int {
		out := make([]int, nl)
		key := arch + "." + k
		v, ok := f.Lookup(key)
		switch {
		case !ok:
			require.Positive(t, def, "llama.cpp requires %s", key)
			for i := range out {
				out[i] = def
			}
		case v.Type == gguf.TypeArray:
			vs, err := f.Ints(key)
			require.NoError(t, err)
			require.Len(t, vs, nl, key)
			for i, x := range vs {
				out[i] = int(x)
			}
		default:
			for i := range out {
				out[i] = get(k)
			}
		}
		return out
	}
	e := get("embedding_length")
	nHead := perLayer("attention.head_count", 0)
	nKV := perLayer("attention.head_count_kv", nHead[0])
	ff := perLayer("feed_forward_length", 0)
	get("context_length")
	get("attention.sliding_window")
	hdFull := get("attention.key_length")
	require.Equal(t, hdFull, get("attention.value_length"))
	v, ok := f.Lookup(arch + ".attention.sliding_window_pattern")
	require.True(t, ok, "%s: sliding_window_pattern", arch)
	swa, isBools := v.Data.([]bool)
	require.True(t, isBools && len(swa) == nl, "%s: sliding_window_pattern is one bool per layer", arch)
	toks, err := f.Strings("tokenizer.ggml.tokens")
	require.NoError(t, err)
	nVocab := len(toks)

	u := func(xs ...int) []uint64 {
		out := make([]uint64, len(xs))
		for i, x := range xs {
			out[i] = uint64(x)
		}
		return out
	}
	required := map[string][]uint64{"token_embd.weight": u(e, nVocab), "output_norm.weight": u(e)}
	optional := map[string][]uint64{"output.weight": u(e, nVocab)}
	var kvFrom, pl int
	if arch == "gemma3n" {
		const altup, rank = 4, 64
		kvFrom, pl = min(nl, 20), 256
		required["altup_proj.weight"] = u(e, e, altup-1)
		required["altup_unembd_proj.weight"] = u(e, e, altup-1)
		for il := range nl {
			p := fmt.Sprintf("blk.%d.", il)
			required[p+"altup_correct_coef.weight"] = u(altup, altup)
			required[p+"altup_correct_scale.weight"] = u(e)
			required[p+"altup_predict_coef.weight"] = u(altup, altup*altup)
			required[p+"altup_router.weight"] = u(e, altup)
			required[p+"altup_router_norm.weight"] = u(e)
			required[p+"laurel_l.weight"] = u(e, rank)
			required[p+"laurel_r.weight"] = u(rank, e)
			required[p+"laurel_post_norm.weight"] = u(e)
		}
	} else {
		kvFrom = nl - get("attention.shared_kv_layers")
		pl = get("embedding_length_per_layer_input")
		hdSWA := get("attention.key_length_swa")
		require.Equal(t, hdSWA, get("attention.value_length_swa"))
		for il := range nl {
			p := fmt.Sprintf("blk.%d.", il)
			hd := hdFull
			if swa[il] {
				hd = hdSWA
			} else {
				required["rope_freqs.weight"] = u(hdFull / 2)
			}
			if il >= kvFrom {
				optional[p+"attn_k.weight"] = u(e, hd*nKV[il])
				optional[p+"attn_k_norm.weight"] = u(hd)
			}
			optional[p+"attn_v.weight"] = u(e, hd*nKV[il])
			optional[p+"layer_output_scale.weight"] = u(1)
			if _, moe := f.Tensor(p + "ffn_gate_inp.weight"); moe {
				// the experts beside the MLP: all required once the router is there
				x, fe := get("expert_count"), get("expert_feed_forward_length")
				require.Positive(t, get("expert_used_count"))
				required[p+"ffn_gate_inp.weight"] = u(e, x)
				required[p+"ffn_gate_inp.scale"] = u(e)
				required[p+"pre_ffw_norm_2.weight"] = u(e)
				required[p+"post_ffw_norm_1.weight"] = u(e)
				required[p+"post_ffw_norm_2.weight"] = u(e)
				required[p+"ffn_gate_exps.weight"] = u(e, fe, x)
				required[p+"ffn_up_exps.weight"] = u(e, fe, x)
				required[p+"ffn_down_exps.weight"] = u(fe, e, x)
				optional[p+"ffn_down_exps.scale"] = u(x)
			}
		}
	}
	if pl > 0 {
		required["per_layer_token_embd.weight"] = u(pl*nl, nVocab)
		required["per_layer_model_proj.weight"] = u(e, pl*nl)
		required["per_layer_proj_norm.weight"] = u(pl)
	}
	for il := range nl {
		p := fmt.Sprintf("blk.%d.", il)
		hd := hdFull
		if arch == "gemma4" && swa[il] {
			hd = get("attention.key_length_swa")
		}
		required[p+"attn_norm.weight"] = u(e)
		required[p+"attn_q.weight"] = u(e, hd*nHead[il])
		if arch == "gemma3n" || il < kvFrom {
			required[p+"attn_k.weight"] = u(e, hd*nKV[il])
			required[p+"attn_k_norm.weight"] = u(hd)
		}
		if arch == "gemma3n" {
			required[p+"attn_v.weight"] = u(e, hd*nKV[il])
		}
		required[p+"attn_output.weight"] = u(hd*nHead[il], e)
		required[p+"attn_q_norm.weight"] = u(hd)
		required[p+"post_attention_norm.weight"] = u(e)
		required[p+"ffn_norm.weight"] = u(e)
		required[p+"ffn_gate.weight"] = u(e, ff[il])
		required[p+"ffn_up.weight"] = u(e, ff[il])
		required[p+"ffn_down.weight"] = u(ff[il], e)
		required[p+"post_ffw_norm.weight"] = u(e)
		if pl > 0 {
			required[p+"inp_gate.weight"] = u(e, pl)
			required[p+"proj.weight"] = u(pl, e)
			required[p+"post_norm.weight"] = u(e)
		}
	}
	// llama.cpp's reuse callback: a shared layer reads layer kvFrom-2
	// (sliding) or kvFrom-1 (global), which must be of its kind.
	if kvFrom < nl {
		require.GreaterOrEqual(t, kvFrom, 2)
		require.True(t, swa[kvFrom-2] && !swa[kvFrom-1], "%s: the last two layers with a cache are a sliding and a global one", arch)
	}
	requireTensors(t, f, arch, required, optional)
}
