package models

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// TestGPTOSSLayout checks what the tiny gpt-oss loads beyond what its
// logits prove (TestLlamaCpp): windows on the even layers, sinks, biases
// and the experts' weighting and gate.
func TestGPTOSSLayout(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := openModel(t, writeTiny(t, "tiny-gpt-oss-20b", ggml.F32), b).(*Llama)
	p := m.Params()
	require.Equal(t, [3]int{8, 2, 64}, [3]int{p.NExperts, p.NExpertsUsed, p.ExpertHiddenDim})
	var windows []int
	for i, ly := range m.Layers {
		windows = append(windows, ly.Attn.Attn.Window)
		require.Len(t, ly.Attn.Attn.Sinks, 8, "layer %d: a sink per query head", i)
		require.NotNil(t, ly.Attn.Q.B)
		require.Len(t, ly.Attn.O.B, 128)
		require.Len(t, ly.MoE.Router.B, 8)
		require.Len(t, ly.MoE.GateB, 8)
		require.Len(t, ly.MoE.DownB[7], 128)
		require.True(t, ly.MoE.SoftmaxChosen)
		require.False(t, ly.MoE.NormTopK)
		require.Equal(t, SwiGLUClamp, ly.MoE.Act)
		require.NotNil(t, ly.FFNNorm.W, "post_attention_norm before the experts")
		require.True(t, ly.Attn.Rope.Neox)
		require.Greater(t, ly.Attn.RopeMScale, float32(1), "YaRN magnitude")
	}
	require.Equal(t, []int{16, 0, 16, 0}, windows, "gpt-oss: even layers slide")
}

// TestSwiGLUClamp checks gpt-oss's gate against the definition of the
// Hugging Face GptOssExperts: gate clamped above at 7, up to [-7, 7],
// gate·σ(1.702·gate)·(up+1).
func TestSwiGLUClamp(t *testing.T) {
	gate := []float32{1, 0, -3, 7, 100, 2, 2}
	up := []float32{1, 5, 0.5, 0, 0, 7, 1e6}
	want := make([]float32, len(gate))
	for i := range gate {
		g, u := math.Min(float64(gate[i]), 7), math.Max(-7, math.Min(float64(up[i]), 7))
		want[i] = float32(g / (1 + math.Exp(-1.702*g)) * (u + 1))
	}
	swigluClamp(gate, up)
	require.InDeltaSlice(t, want, gate, 1e-6)
	require.Equal(t, gate[3], gate[4], "gate clamped at 7")
	require.Equal(t, gate[5], gate[6], "up clamped at 7")
}

// TestGPTOSSLoadErrors checks gpt-oss's own refusals.
func TestGPTOSSLoadErrors(t *testing.T) {
	path := writeTiny(t, "tiny-gpt-oss-20b", ggml.F32)
	for _, tc := range []struct {
		name string
		edit func(m *gguf.Model)
		want string
	}{
		{"no sliding window", func(m *gguf.Model) { del(m, "gpt-oss.attention.sliding_window") },
			`"gpt-oss.attention.sliding_window"`},
		{"no sinks", func(m *gguf.Model) { dropTensorNamed(m, "blk.1.attn_sinks.weight") },
			`required tensor "blk.1.attn_sinks.weight" is missing`},
		{"no output bias", func(m *gguf.Model) { dropTensorNamed(m, "blk.3.attn_output.bias") },
			`required tensor "blk.3.attn_output.bias" is missing`},
		{"no expert up bias", func(m *gguf.Model) { dropTensorNamed(m, "blk.0.ffn_up_exps.bias") },
			`required tensor "blk.0.ffn_up_exps.bias" is missing`},
		{"no output", func(m *gguf.Model) { dropTensorNamed(m, "output.weight") },
			`required tensor "output.weight" is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, loadErr(t, rewrite(t, path, tc.edit)), tc.want)
		})
	}
}
