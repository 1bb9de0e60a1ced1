package models

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// TestArchLayout checks what each new architecture reads from its file and
// that the tiny models' logits are too insensitive to prove (TestLlamaCpp
// proves the rest): Granite's attention multiplier (1/64 against 1/√32
// moves the tiny logits by under 1e-3), which layers skip RoPE, which slide
// and how far, and the soft-caps.
func TestArchLayout(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	load := func(shape string) Model {
		return openModel(t, writeTiny(t, shape, ggml.F32), b)
	}
	nope := func(layers []Block) (out []int) {
		for i, ly := range layers {
			if ly.Attn.NoPE {
				out = append(out, i)
			}
		}
		return out
	}
	windows := func(layers []Block) (out []int) {
		for _, ly := range layers {
			out = append(out, ly.Attn.Attn.Window)
		}
		return out
	}

	sm := load("tiny-smollm3-3b").(*Llama)
	require.Equal(t, []int{3}, nope(sm.Layers), "smollm3: every fourth layer is NoPE")
	require.False(t, sm.Layers[0].Attn.Rope.Neox)

	gr := load("tiny-granite3.3-2b").(*Llama)
	require.Equal(t, float32(0.015625), gr.Layers[0].Attn.Attn.Scale, "granite.attention.scale")
	require.Equal(t, [3]float32{12, 0.22, 1.0 / 8}, [3]float32{gr.embedScale, gr.residualScale, gr.logitScale})
	require.Empty(t, nope(gr.Layers))

	g2 := load("tiny-gemma2-2b").(*Gemma2)
	require.Equal(t, []int{16, 0, 16, 0}, windows(g2.Layers), "gemma2: even layers slide")
	require.Equal(t, float32(0.05), g2.Layers[1].Attn.Attn.SoftCap)
	require.Equal(t, float32(1), g2.finalCap)
	require.Equal(t, g2.TokEmbd.Data, g2.Output.W.Data, "gemma2 multiplies by token_embd")

	ol := load("tiny-olmo2-1b").(*PostNorm)
	ly := ol.Layers[0]
	require.Len(t, ly.Attn.QNorm.W, 4*32, "olmo2: q norm over the whole projection")
	require.Nil(t, ly.AttnNorm.W)
	require.Nil(t, ly.FFNNorm.W)
	require.True(t, ly.Attn.Rope.Neox)

	ex := load("tiny-exaone4-1.2b").(*PostNorm)
	require.Len(t, ex.Layers[0].Attn.QNorm.W, 32, "exaone4: q norm per head")
	require.Equal(t, []int{0, 0, 0, 0}, windows(ex.Layers), "exaone4 slides only in its 64-layer model")
	require.Empty(t, nope(ex.Layers))
}

// TestArchLoadErrors checks the new architectures' own refusals.
func TestArchLoadErrors(t *testing.T) {
	granite := writeTiny(t, "tiny-granite3.3-2b", ggml.F32)
	olmo := writeTiny(t, "tiny-olmo2-1b", ggml.F32)
	gemma := writeTiny(t, "tiny-gemma2-2b", ggml.F32)
	for _, tc := range []struct {
		name, path string
		edit       func(m *gguf.Model)
		want       string
	}{
		{"granite without logit_scale", granite, func(m *gguf.Model) { del(m, "granite.logit_scale") },
			`key "granite.logit_scale" missing`},
		{"granite residual_scale 0", granite, func(m *gguf.Model) { m.Set("granite.residual_scale", gguf.Float32(0)) },
			`key "granite.residual_scale" is 0, want a finite number above 0`},
		{"olmo3 sliding window", olmo, func(m *gguf.Model) { m.Set("olmo2.attention.sliding_window", gguf.Uint32(4096)) },
			"sliding-window attention (OLMo 3) is not supported"},
		{"olmo2 without output", olmo, func(m *gguf.Model) { dropTensorNamed(m, "output.weight") },
			`required tensor "output.weight" is missing`},
		{"olmo2 per-head q norm", olmo, func(m *gguf.Model) { resizeTensor(m, "blk.1.attn_q_norm.weight", 32) },
			`tensor "blk.1.attn_q_norm.weight" has shape [32], want [128]`},
		{"gemma2 negative cap", gemma, func(m *gguf.Model) { m.Set("gemma2.final_logit_softcapping", gguf.Float32(-30)) },
			`key "gemma2.final_logit_softcapping" is -30, want a finite number ≥ 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, loadErr(t, rewrite(t, tc.path, tc.edit)), tc.want)
		})
	}
}

// del removes metadata key k.
func del(m *gguf.Model, k string) {
	for i, kv := range m.KV {
		if kv.Key == k {
			m.KV = append(m.KV[:i], m.KV[i+1:]...)
			return
		}
	}
}

// dropTensorNamed removes tensor name.
func dropTensorNamed(m *gguf.Model, name string) {
	for i, tn := range m.Tensors {
		if tn.Info.Name == name {
			m.Tensors = append(m.Tensors[:i], m.Tensors[i+1:]...)
			return
		}
	}
}

// resizeTensor cuts the 1-D F32 tensor name to its first n elements.
func resizeTensor(m *gguf.Model, name string, n int) {
	for i, tn := range m.Tensors {
		if tn.Info.Name == name {
			m.Tensors[i].Info.Dims = []uint64{uint64(n)}
			m.Tensors[i].Data = tn.Data[:4*n]
			return
		}
	}
}

// TestGemma3Keys checks the gemma3 keys llama.cpp's load_arch_hparams
// reads and that our loader now reads through the hparams table: without
// attention.sliding_window every layer is global, and
// final_logit_softcapping, when the file gives it, caps the logits.
func TestGemma3Keys(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	path := writeTiny(t, "tiny-gemma3-270m", ggml.F32)
	m := openModel(t, path, b).(*Gemma3)
	require.Equal(t, 16, m.Layers[0].Attn.Attn.Window)
	require.Zero(t, m.Layers[5].Attn.Attn.Window, "layer 5 is global")
	require.Zero(t, m.finalCap)

	global := openModel(t, rewrite(t, path, func(m *gguf.Model) { del(m, "gemma3.attention.sliding_window") }), b).(*Gemma3)
	for i, ly := range global.Layers {
		require.Zero(t, ly.Attn.Attn.Window, "layer %d: no sliding window without the key", i)
	}

	const limit = 0.5
	capped := openModel(t, rewrite(t, path, func(m *gguf.Model) {
		m.Set("gemma3.final_logit_softcapping", gguf.Float32(limit))
	}), b)
	st, err := NewState(capped, 64, 8, ggml.F32)
	require.NoError(t, err)
	logits := make([]float32, capped.Params().VocabSize)
	capped.Forward(st, Tokens(testTokens(8, len(logits))), logits)
	for i, x := range logits {
		require.Less(t, math.Abs(float64(x)), float64(limit), "logit %d", i)
	}
	require.Greater(t, maxAbs(logits), float32(0.4), "the cap bites: tiny gemma3's logits reach ±3 uncapped")
}

func maxAbs(x []float32) float32 {
	m := float32(0)
	for _, v := range x {
		m = max(m, float32(math.Abs(float64(v))))
	}
	return m
}
