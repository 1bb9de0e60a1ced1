package models

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// matMulCounter is a backend that records which weights MatMul reads and
// for how many tokens.
type matMulCounter struct {
	native.Backend
	calls   map[*byte][]int // first byte of the weight's data → nTokens of each call
	grouped int             // MatMulGrouped calls
}

// MatMulGrouped records a call and each weight its non-empty groups read.
func (c *matMulCounter) MatMulGrouped(out []float32, ws []native.Weight, x []float32, groups []int) {
	c.grouped++
	for e, n := range groups {
		if n > 0 {
			c.calls[&ws[e].Data[0]] = append(c.calls[&ws[e].Data[0]], n)
		}
	}
	c.Backend.MatMulGrouped(out, ws, x, groups)
}

func (c *matMulCounter) MatMul(out []float32, w native.Weight, x []float32, nTokens int) {
	c.calls[&w.Data[0]] = append(c.calls[&w.Data[0]], nTokens)
	c.Backend.MatMul(out, w, x, nTokens)
}

// TestQwen3MoELayout checks the expert hyper-parameters and tensors the
// tiny Qwen3-MoE loads.
func TestQwen3MoELayout(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := openModel(t, writeTiny(t, "tiny-qwen3moe-30b-a3b", ggml.F32), b).(*Llama)
	p := m.Params()
	require.Equal(t, [3]int{16, 4, 64}, [3]int{p.NExperts, p.NExpertsUsed, p.ExpertHiddenDim})
	for i, ly := range m.Layers {
		require.NotNil(t, ly.MoE, "layer %d", i)
		require.Nil(t, ly.FFN.Gate.W.Data, "layer %d has no dense MLP", i)
		require.Len(t, ly.MoE.Gate, 16)
		require.Equal(t, [2]int{64, 128}, [2]int{ly.MoE.Gate[3].Rows, ly.MoE.Gate[3].Cols})
		require.Equal(t, [2]int{128, 64}, [2]int{ly.MoE.Down[15].Rows, ly.MoE.Down[15].Cols})
		require.Equal(t, ggml.F32, ly.MoE.Router.W.Type, "llama-quantize keeps the router in F32")
		require.True(t, ly.MoE.NormTopK)
		require.True(t, ly.Attn.Rope.Neox)
	}
}

// TestQwen3MoEExpertReads checks how the experts are multiplied: a prefill
// multiplies each expert's matrices at most once, by all the rows routed to
// it (4 per token in all), and a decode step reads the 4 chosen experts'
// matrices only, in one grouped product per projection.
func TestQwen3MoEExpertReads(t *testing.T) {
	c := &matMulCounter{Backend: native.NewGo(1)}
	defer c.Close()
	m := openModel(t, writeTiny(t, "tiny-qwen3moe-30b-a3b", ggml.Q8_0), c).(*Llama)
	p := m.Params()
	st, err := NewState(m, 64, 40, ggml.F32)
	require.NoError(t, err)
	logits := make([]float32, p.VocabSize)
	experts := func(ly Block, n int) {
		t.Helper()
		for _, ws := range [][]native.Weight{ly.MoE.Gate, ly.MoE.Up, ly.MoE.Down} {
			total := 0
			for e, w := range ws {
				calls := c.calls[&w.Data[0]]
				require.LessOrEqual(t, len(calls), 1, "expert %d multiplied %d times", e, len(calls))
				for _, k := range calls {
					total += k
				}
			}
			require.Equal(t, n*p.NExpertsUsed, total, "rows routed to the experts")
		}
	}

	c.calls = map[*byte][]int{}
	m.Forward(st, Tokens(testTokens(40, p.VocabSize)), logits)
	for _, ly := range m.Layers {
		experts(ly, 40)
	}

	c.calls, c.grouped = map[*byte][]int{}, 0
	m.Forward(st, Tokens([]int32{7}), logits)
	require.Equal(t, 3*len(m.Layers), c.grouped, "a decode step multiplies each layer's experts in 3 grouped products")
	for _, ly := range m.Layers {
		experts(ly, 1)
		read := 0
		for _, w := range ly.MoE.Gate {
			read += len(c.calls[&w.Data[0]])
		}
		require.Equal(t, p.NExpertsUsed, read, "decode reads the chosen experts only")
	}
}

// TestQwen3MoELoadErrors checks the refusals of bad expert keys and tensors.
func TestQwen3MoELoadErrors(t *testing.T) {
	path := writeTiny(t, "tiny-qwen3moe-30b-a3b", ggml.F32)
	for _, tc := range []struct {
		name string
		edit func(m *gguf.Model)
		want string
	}{
		{"no expert_count", func(m *gguf.Model) { del(m, "qwen3moe.expert_count") },
			`"qwen3moe.expert_count"`},
		{"more used than experts", func(m *gguf.Model) { m.Set("qwen3moe.expert_used_count", gguf.Uint32(17)) },
			`key "qwen3moe.expert_used_count" is 17, more than the 16 experts`},
		{"too many experts", func(m *gguf.Model) { m.Set("qwen3moe.expert_count", gguf.Uint32(100000)) },
			`key "qwen3moe.expert_count" is 100000, more than the 512 experts supported`},
		{"expert count against the tensors", func(m *gguf.Model) { m.Set("qwen3moe.expert_count", gguf.Uint32(8)) },
			`tensor "blk.0.ffn_gate_inp.weight" has shape [128 16], want [128 8]`},
		{"expert width against the tensors", func(m *gguf.Model) { m.Set("qwen3moe.expert_feed_forward_length", gguf.Uint32(32)) },
			`tensor "blk.0.ffn_gate_exps.weight" has shape [128 64 16], want [128 32 16]`},
		{"missing expert tensor", func(m *gguf.Model) { dropTensorNamed(m, "blk.2.ffn_down_exps.weight") },
			`required tensor "blk.2.ffn_down_exps.weight" is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, loadErr(t, rewrite(t, path, tc.edit)), tc.want)
		})
	}
}

// TestQwen3MoEBatchSizes checks that a state made for batches of one
// token (its expert buffers hold that token's routed rows) gives the
// logits of a state made for batches of eight.
func TestQwen3MoEBatchSizes(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := openModel(t, writeTiny(t, "tiny-qwen3moe-30b-a3b", ggml.Q8_0), b)
	p := m.Params()
	one, err := NewState(m, 64, 1, ggml.F32)
	require.NoError(t, err)
	wide, err := NewState(m, 64, 8, ggml.F32)
	require.NoError(t, err)
	got, want := make([]float32, p.VocabSize), make([]float32, p.VocabSize)
	for _, tok := range testTokens(6, p.VocabSize) {
		m.Forward(one, Tokens([]int32{tok}), got)
		m.Forward(wide, Tokens([]int32{tok}), want)
		require.Equal(t, want, got)
	}
}
