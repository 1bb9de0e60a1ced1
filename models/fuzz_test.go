package models

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// FuzzLoadParams edits the hyper-parameter keys of tiny synthetic models
// of every architecture, and the keys of their own (soft-caps, Granite's
// multipliers, RoPE scaling, expert counts, the hybrids' conv and
// DeltaNet sizes): Load either fails with an error or gives a
// model whose Forward runs and whose logits are finite, or are reported as
// a *NonFiniteError naming where they stopped being finite. It never
// panics, and never allocates for a layer count the file cannot hold.
func FuzzLoadParams(f *testing.F) {
	shapes := []string{"tiny-qwen3-0.6b", "tiny-gemma3-270m", "tiny-gemma2-2b", "tiny-granite3.3-2b",
		"tiny-olmo2-1b", "tiny-exaone4-1.2b", "tiny-phi4-mini", "tiny-qwen3-0.6b-yarn", "tiny-smollm3-3b",
		"tiny-qwen3moe-30b-a3b", "tiny-gpt-oss-20b", "tiny-lfm2-350m", "tiny-qwen3.5-0.8b",
		"tiny-gemma3n-e2b", "tiny-gemma4-e2b", "tiny-gemma4-26b-a4b"}
	files := make([][]byte, len(shapes))
	for i, shape := range shapes {
		src, err := gguf.Open(writeTiny(f, shape, ggml.F32))
		require.NoError(f, err)
		var buf bytes.Buffer
		require.NoError(f, gguf.Write(&buf, src.Model()))
		src.Close()
		files[i] = buf.Bytes()
	}
	f.Add(uint8(0), uint32(4), uint32(4), uint32(2), uint32(16), uint32(16), uint32(0), float32(0), float32(0), float32(0))
	f.Add(uint8(1), uint32(2), uint32(4), uint32(1), uint32(1<<30), uint32(7), uint32(3), float32(1e-6), float32(1e6), float32(0))
	f.Add(uint8(0), uint32(1<<31), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), float32(-1), float32(0), float32(0))
	f.Add(uint8(1), uint32(4_000_000_000), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), float32(math.NaN()), float32(math.Inf(1)), float32(0))
	f.Add(uint8(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), float32(1e38), float32(1e-38), float32(0))
	f.Add(uint8(2), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(1), float32(0), float32(0), float32(1e-30))
	f.Add(uint8(3), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), float32(0), float32(0), float32(1e30))
	f.Add(uint8(6), uint32(0), uint32(0), uint32(0), uint32(0), uint32(12), uint32(0), float32(0), float32(0), float32(-2))
	f.Add(uint8(7), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(1), float32(0), float32(0), float32(1e9))
	f.Add(uint8(11), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(4), float32(0), float32(0), float32(0))
	f.Add(uint8(12), uint32(2), uint32(8), uint32(4), uint32(16), uint32(64), uint32(2), float32(0), float32(0), float32(0))
	// gemma3n (fewer layers than its 20 with a cache), gemma4 (one KV-head
	// count over per-layer ones, a wider head), gemma4 MoE (experts used)
	f.Add(uint8(13), uint32(21), uint32(0), uint32(0), uint32(0), uint32(0), uint32(1), float32(0), float32(0), float32(0))
	f.Add(uint8(14), uint32(0), uint32(0), uint32(1), uint32(32), uint32(0), uint32(0), float32(0), float32(0), float32(0.5))
	f.Add(uint8(15), uint32(0), uint32(0), uint32(3), uint32(0), uint32(0), uint32(2), float32(0), float32(0), float32(0))
	f.Fuzz(func(t *testing.T, shape uint8, blocks, heads, kvHeads, keyLen, ropeDim, window uint32, eps, ropeBase, extra float32) {
		src, err := gguf.Parse(files[int(shape)%len(files)])
		require.NoError(t, err)
		m := src.Model()
		arch, err := src.Architecture()
		require.NoError(t, err)
		for k, v := range map[string]uint32{
			"block_count": blocks, "attention.head_count": heads, "attention.head_count_kv": kvHeads,
			"attention.key_length": keyLen, "attention.value_length": keyLen,
			"rope.dimension_count": ropeDim, "attention.sliding_window": window,
			"rope.scaling.original_context_length": window,

			"expert_used_count": kvHeads, "expert_feed_forward_length": keyLen,

			// the hybrids (lfm2, qwen35)
			"shortconv.l_cache": window, "ssm.conv_kernel": window, "ssm.state_size": keyLen,
			"ssm.group_count": kvHeads, "ssm.time_step_rank": heads, "ssm.inner_size": ropeDim,
			"full_attention_interval": blocks,
		} {
			if v != 0 {
				m.Set(arch+"."+k, gguf.Uint32(v))
			}
		}
		for k, v := range map[string]float32{"attention.layer_norm_rms_epsilon": eps, "rope.freq_base": ropeBase,
			"attn_logit_softcapping": extra, "final_logit_softcapping": extra, "logit_scale": extra,
			"residual_scale": extra, "embedding_scale": extra, "attention.scale": extra,
			"rope.scaling.factor": extra, "rope.scaling.attn_factor": extra} {
			if v != 0 {
				m.Set(arch+"."+k, gguf.Float32(v))
			}
		}
		var buf bytes.Buffer
		require.NoError(t, gguf.Write(&buf, m))
		file, err := gguf.Parse(buf.Bytes())
		require.NoError(t, err)
		b := native.NewGo(1)
		defer b.Close()
		model, err := Load(file, b)
		if err != nil {
			return
		}
		p := model.Params()
		require.Positive(t, p.NormEps)
		require.Positive(t, p.RopeBase)
		st, err := NewState(model, 8, 4, ggml.F32)
		require.NoError(t, err)
		logits := make([]float32, p.VocabSize)
		for _, batch := range [][]int32{{1, 2, 3}, {4}} {
			err := ForwardChecked(model, st, Tokens(batch), logits)
			if err != nil {
				var nf *NonFiniteError
				require.ErrorAs(t, err, &nf)
				require.NotEmpty(t, nf.Stage)
				return
			}
			require.Negative(t, firstNonFinite(logits), "logits without an error are finite")
		}
		require.Equal(t, 4, st.Len())
	})
}
