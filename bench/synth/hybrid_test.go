package synth

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/gguf"
)

// requireHybridLoadable checks an lfm2 or qwen35 file as llama.cpp's
// llama_model_lfm2/qwen35::load_arch_hparams and load_arch_tensors read
// it: the keys they require, and exactly the tensors they create, with
// their dims, derived from the file's keys (not from the Shape).
func requireHybridLoadable(t *testing.T, f *gguf.File, arch string) {
	t.Helper()
	get := func(key string) int {
		v, err := f.Int(arch + "." + key)
		require.NoError(t, err, "llama.cpp requires %s.%s", arch, key)
		return int(v)
	}
	u := func(xs ...int) []uint64 {
		out := make([]uint64, len(xs))
		for i, x := range xs {
			out[i] = uint64(x)
		}
		return out
	}
	e, nl, nh, ff := get("embedding_length"), get("block_count"), get("attention.head_count"), get("feed_forward_length")
	get("context_length")
	_, err := f.Float(arch + ".attention.layer_norm_rms_epsilon")
	require.NoError(t, err, "llama.cpp requires %s.attention.layer_norm_rms_epsilon", arch)
	toks, err := f.Strings("tokenizer.ggml.tokens")
	require.NoError(t, err)
	nv := len(toks)
	hk := e / nh
	if f.Has(arch + ".attention.key_length") {
		hk = get("attention.key_length")
	}
	want := map[string][]uint64{"token_embd.weight": u(e, nv)}
	optional := map[string][]uint64{"output.weight": u(e, nv)}
	switch arch {
	case "lfm2":
		kvs, err := f.Ints(arch + ".attention.head_count_kv")
		require.NoError(t, err, "lfm2: the per-layer head_count_kv array marks the conv layers")
		require.Len(t, kvs, nl)
		lc := get("shortconv.l_cache")
		require.Greater(t, lc, 1, "llama.cpp asserts n_shortconv_l_cache > 1")
		want["token_embd_norm.weight"] = u(e)
		for il, kv := range kvs {
			p := fmt.Sprintf("blk.%d.", il)
			want[p+"attn_norm.weight"], want[p+"ffn_norm.weight"] = u(e), u(e)
			want[p+"ffn_gate.weight"], want[p+"ffn_up.weight"], want[p+"ffn_down.weight"] = u(e, ff), u(e, ff), u(ff, e)
			if kv == 0 { // recurrent: hparams.is_recr_impl[il] = n_head_kv(il) == 0
				want[p+"shortconv.conv.weight"] = u(lc, e)
				want[p+"shortconv.in_proj.weight"] = u(e, 3*e)
				want[p+"shortconv.out_proj.weight"] = u(e, e)
				continue
			}
			want[p+"attn_q_norm.weight"], want[p+"attn_k_norm.weight"] = u(hk), u(hk)
			want[p+"attn_q.weight"], want[p+"attn_k.weight"], want[p+"attn_v.weight"] = u(e, e), u(e, hk*int(kv)), u(e, hk*int(kv))
			want[p+"attn_output.weight"] = u(e, e)
		}
	case "qwen35":
		nkv := get("attention.head_count_kv")
		dConv, inner, ds := get("ssm.conv_kernel"), get("ssm.inner_size"), get("ssm.state_size")
		nvh, nkh := get("ssm.time_step_rank"), get("ssm.group_count")
		secs, err := f.Ints(arch + ".rope.dimension_sections")
		require.NoError(t, err, "llama.cpp requires qwen35.rope.dimension_sections")
		require.Len(t, secs, 4)
		interval := 4
		if f.Has(arch + ".full_attention_interval") {
			interval = get("full_attention_interval")
		}
		require.Equal(t, nvh*ds, inner, "head_v_dim = d_inner / dt_rank must equal d_state")
		kd, vd := ds*nkh, ds*nvh
		want["output_norm.weight"] = u(e)
		for il := range nl {
			p := fmt.Sprintf("blk.%d.", il)
			want[p+"attn_norm.weight"], want[p+"post_attention_norm.weight"] = u(e), u(e)
			want[p+"ffn_gate.weight"], want[p+"ffn_up.weight"], want[p+"ffn_down.weight"] = u(e, ff), u(e, ff), u(ff, e)
			if (il+1)%interval != 0 {
				want[p+"attn_qkv.weight"] = u(e, 2*kd+vd)
				want[p+"attn_gate.weight"] = u(e, vd)
				want[p+"ssm_conv1d.weight"] = u(dConv, 2*kd+vd)
				want[p+"ssm_dt.bias"], want[p+"ssm_a"] = u(nvh), u(nvh)
				want[p+"ssm_beta.weight"], want[p+"ssm_alpha.weight"] = u(e, nvh), u(e, nvh)
				want[p+"ssm_norm.weight"] = u(ds)
				want[p+"ssm_out.weight"] = u(vd, e)
				continue
			}
			want[p+"attn_q.weight"] = u(e, 2*hk*nh)
			want[p+"attn_k.weight"], want[p+"attn_v.weight"] = u(e, hk*nkv), u(e, hk*nkv)
			want[p+"attn_output.weight"] = u(hk*nh, e)
			want[p+"attn_q_norm.weight"], want[p+"attn_k_norm.weight"] = u(hk), u(hk)
		}
	}
	requireTensors(t, f, arch, want, optional)
}
