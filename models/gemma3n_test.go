package models

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// gemmaNShapes are the tiny Gemma 3n and Gemma 4 models.
var gemmaNShapes = []string{"tiny-gemma3n-e2b", "tiny-gemma4-e2b", "tiny-gemma4-26b-a4b"}

// TestGemmaNSessionOps checks, on the 40-token prompt and 16 fed tokens of
// the llama.cpp references (TestLlamaCpp holds a fresh run to llama.cpp),
// that rewinding 10 positions and feeding them again, and cloning the
// state then letting the original diverge, give the logits of a fresh run
// bit for bit, on both backends, in Q8_0 (the cache does not depend on the
// weights' type; F32 doubles the race detector's minutes). The shared-KV
// layers write no cache, so these only hold if they read the layers they
// share.
func TestGemmaNSessionOps(t *testing.T) {
	for _, shape := range gemmaNShapes {
		for _, typ := range []string{"q8_0"} {
			t.Run(shape+"-"+typ, func(t *testing.T) {
				ref, err := readLlamaCppRef(filepath.Join(llamaCppDir, shape+"-"+typ+".jsonl"))
				require.NoError(t, err)
				dt, _, err := synth.ParseType(typ)
				require.NoError(t, err)
				path := writeTiny(t, shape, dt)
				for _, b := range llamaCppBackends(t) {
					m := openModel(t, path, b)
					p := m.Params()
					newState := func() *State {
						st, err := NewState(m, llamaCppCtx, len(ref.Prompt), ggml.F32)
						require.NoError(t, err)
						return st
					}
					// steps[k]: the logits after the prompt and k fed tokens
					feed := ref.Feed[:len(ref.Steps)-1]
					fresh := newState()
					steps := [][]float32{run(m, fresh, ref.Prompt, len(ref.Prompt))}
					for _, id := range feed {
						steps = append(steps, run(m, fresh, []int32{id}, 1))
					}
					final := steps[len(feed)]

					// rewind 10, feed the same tokens again
					resume, err := fresh.Truncate(fresh.Len() - 10)
					require.NoError(t, err)
					require.Equal(t, len(ref.Prompt)+len(feed)-10, resume, "a KV-only model resumes where asked")
					require.Equal(t, final, run(m, fresh, feed[len(feed)-10:], 1), "%s: rewind 10 and re-feed", b.Name())

					// clone after the prompt and 6 tokens; the original goes
					// elsewhere, the clone the reference's way
					st := newState()
					run(m, st, ref.Prompt, len(ref.Prompt))
					run(m, st, feed[:6], 1)
					c, err := st.Clone()
					require.NoError(t, err)
					other := testTokens(8, p.VocabSize)
					diverged := run(m, st, other, 8)
					require.NotEqual(t, final, diverged)
					require.Equal(t, final, run(m, c, feed[6:], 1), "%s: clone, then the original diverges", b.Name())

					// and the original, rewound to the clone point, follows it
					_, err = st.Truncate(len(ref.Prompt) + 6)
					require.NoError(t, err)
					require.Equal(t, steps[7], run(m, st, feed[6:7], 1), "%s: rewind past a divergence", b.Name())
				}
			})
		}
	}
}

// TestGemmaNInputEmbeddings checks the input-embedding path: rows of token
// 0's embedding ×√Dim give the logits of token 0 itself bit for bit (the
// per-layer embeddings of input rows are token 0's, as llama.cpp's), and
// rows of another token give other logits than that token (its per-layer
// embedding is not used), except in a model without per-layer embeddings.
func TestGemmaNInputEmbeddings(t *testing.T) {
	for _, shape := range gemmaNShapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.Q8_0)
			for _, b := range llamaCppBackends(t) {
				m := openModel(t, path, b)
				p := m.Params()
				fwd := func(in Input) []float32 {
					st, err := NewState(m, 32, 16, ggml.F32)
					require.NoError(t, err)
					logits := make([]float32, p.VocabSize)
					m.Forward(st, in, logits)
					return logits
				}
				rows := func(id int32, n int) Input {
					w := m.(interface{ embedding() native.Weight }).embedding()
					e := make([]float32, n*p.Dim)
					rs := w.RowBytes()
					for i := range n {
						row := e[i*p.Dim : (i+1)*p.Dim]
						require.NoError(t, ggml.DequantizeRow(w.Type, w.Data[int(id)*rs:(int(id)+1)*rs], row))
						scale(row, float32(math.Sqrt(float64(p.Dim))))
					}
					return Embeds(e, p.Dim)
				}
				zeros := make([]int32, 5)
				require.Equal(t, fwd(Tokens(zeros)), fwd(rows(0, 5)), "%s: token 0", b.Name())
				sevens := []int32{7, 7, 7, 7, 7}
				if g4, ok := m.(*Gemma4); ok && g4.PerLayer == nil {
					require.Equal(t, fwd(Tokens(sevens)), fwd(rows(7, 5)), "%s: token 7, no per-layer embeddings", b.Name())
				} else {
					require.NotEqual(t, fwd(Tokens(sevens)), fwd(rows(7, 5)), "%s: token 7", b.Name())
				}
			}
		})
	}
}

// TestGemmaNLayout checks what the loaders read that the tiny models'
// logits prove only in aggregate: which layers share which cache and how
// wide each cache is, which layers slide, the sparse layers, the RoPE of
// each kind of layer and Gemma 4's per-layer sizes and scales.
func TestGemmaNLayout(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()

	g3 := openModel(t, writeTiny(t, "tiny-gemma3n-e2b", ggml.F32), b).(*Gemma3n)
	var src, windows, sparse []int
	for i, ly := range g3.Layers {
		src = append(src, ly.Attn.KVLayer)
		windows = append(windows, ly.Attn.Attn.Window)
		if ly.FFN.SparseStd != 0 {
			sparse = append(sparse, i)
		}
	}
	// layer il is global when il%5 == 4; layers 20-24 read 18 (sliding) or 19 (global)
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 18, 18, 18, 18, 19}
	require.Equal(t, want, src)
	for i, w := range windows {
		require.Equal(t, map[bool]int{true: 0, false: 16}[i%5 == 4], w, "layer %d window", i)
	}
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, sparse)
	require.InDelta(t, 1.0/math.Pow(1e6, 2.0/32), float64(g3.Layers[4].Attn.Rope.InvFreq[1]), 1e-7, "global layers: rope.freq_base")
	require.InDelta(t, 1.0/math.Pow(1e4, 2.0/32), float64(g3.Layers[0].Attn.Rope.InvFreq[1]), 1e-7, "sliding layers: rope.freq_base_swa")
	caches := g3.Caches()
	require.Equal(t, LayerCache{KVWidth: 32, SharedKV: -1}, caches[19])
	require.Equal(t, LayerCache{SharedKV: 19}, caches[24])
	st, err := NewState(g3, 64, 8, ggml.F32)
	require.NoError(t, err)
	require.Same(t, st.KV(18), st.KV(22))
	require.Equal(t, 2*4*64*32*20, st.Bytes(), "20 caches of 64 positions × 32 (keys and values, F32)")

	g4 := openModel(t, writeTiny(t, "tiny-gemma4-e2b", ggml.F32), b).(*Gemma4)
	var widths []int
	src = src[:0]
	for _, c := range g4.Caches() {
		widths = append(widths, c.KVWidth)
		src = append(src, c.SharedKV)
	}
	// sliding layers: 1 KV head of 32; global (4, 9): 2 of 64; layers 5-9 share 3 and 4
	require.Equal(t, []int{32, 32, 32, 32, 128, 0, 0, 0, 0, 0}, widths)
	require.Equal(t, []int{-1, -1, -1, -1, -1, 3, 3, 3, 3, 4}, src)
	require.Equal(t, 64, g4.Params().HeadDim, "Params carry the largest head")
	require.Equal(t, 2, g4.Params().NKVHeads)
	require.Equal(t, 512, g4.Params().HiddenDim, "the shared-KV layers' double-wide MLP")
	require.Equal(t, 256, g4.Layers[4].FFN.Gate.W.Rows)
	require.Equal(t, 512, g4.Layers[5].FFN.Gate.W.Rows)
	require.Nil(t, g4.Layers[4].Attn.V.W.Data, "global layers: values are the keys")
	require.NotNil(t, g4.Layers[3].Attn.V.W.Data)
	require.Nil(t, g4.Layers[7].Attn.K.W.Data, "shared-KV layers compute no keys")
	require.Equal(t, float32(2), g4.finalCap)
	require.NotEqual(t, float32(1), g4.Layers[0].OutScale)
	// proportional RoPE: a quarter of the global head's pairs rotate
	inv := g4.Layers[4].Attn.Rope.InvFreq
	require.Len(t, inv, 32)
	require.InDelta(t, 1.0/math.Pow(1e6, 14.0/64), float64(inv[7]), 1e-7)
	require.Less(t, float64(inv[8]), 1e-30, "pair 8 is parked")
	require.Len(t, g4.Layers[0].Attn.Rope.InvFreq, 16, "sliding layers rotate all 32 elements")
	require.Nil(t, g4.Layers[0].MoE)

	mo := openModel(t, writeTiny(t, "tiny-gemma4-26b-a4b", ggml.F32), b).(*Gemma4)
	p := mo.Params()
	require.Equal(t, [3]int{4, 4, 64}, [3]int{p.NExperts, p.NExpertsUsed, p.ExpertHiddenDim})
	for i, ly := range mo.Layers {
		require.NotNil(t, ly.MoE, "layer %d", i)
		require.Len(t, ly.MoE.DownScale, 4)
		require.True(t, ly.MoE.NormTopK)
		require.Equal(t, GELU, ly.MoE.Act)
		require.Len(t, ly.RouterScale, 128)
	}
	widths = widths[:0]
	for _, c := range mo.Caches() {
		widths = append(widths, c.KVWidth)
	}
	require.Equal(t, []int{128, 128, 128, 128, 128, 64}, widths, "sliding: 4 KV heads of 32; global: 1 of 64; no sharing")
}

// TestGemmaNLoadErrors checks the new refusals.
func TestGemmaNLoadErrors(t *testing.T) {
	g3 := writeTiny(t, "tiny-gemma3n-e2b", ggml.F32)
	g4 := writeTiny(t, "tiny-gemma4-e2b", ggml.F32)
	moe := writeTiny(t, "tiny-gemma4-26b-a4b", ggml.F32)
	swa := func(k int) func(m *gguf.Model) {
		return func(m *gguf.Model) {
			v, _ := m.Get("gemma4.attention.sliding_window_pattern")
			bs := append([]bool(nil), v.Data.([]bool)...)
			bs[k] = !bs[k]
			m.Set("gemma4.attention.sliding_window_pattern", gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool, Data: bs})
		}
	}
	for _, tc := range []struct {
		name, path string
		edit       func(m *gguf.Model)
		want       string
	}{
		{"gemma3n without laurel", g3, func(m *gguf.Model) { dropTensorNamed(m, "blk.3.laurel_l.weight") },
			`required tensor "blk.3.laurel_l.weight" is missing`},
		{"gemma3n per-layer width", g3, func(m *gguf.Model) { resizeTensor(m, "per_layer_proj_norm.weight", 128) },
			`tensor "per_layer_proj_norm.weight" has shape [128], want [256]`},
		{"gemma3n shared layer of the wrong kind", g3, func(m *gguf.Model) {
			bs := make([]bool, 25)
			for i := range bs {
				bs[i] = i%5 < 4
			}
			bs[19] = true
			m.Set("gemma3n.attention.sliding_window_pattern", gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool, Data: bs})
		}, "layer 24 shares the cache of layer 19, which is not of its kind"},
		{"gemma4 without key_length_swa", g4, func(m *gguf.Model) { del(m, "gemma4.attention.key_length_swa") },
			`"gemma4.attention.key_length_swa"`},
		{"gemma4 without the pattern", g4, func(m *gguf.Model) { del(m, "gemma4.attention.sliding_window_pattern") },
			`required key "gemma4.attention.sliding_window_pattern" is missing`},
		{"gemma4 pattern length", g4, func(m *gguf.Model) {
			m.Set("gemma4.attention.sliding_window_pattern", gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool, Data: []bool{true}})
		}, "has 1 entries for 10 layers"},
		{"gemma4 sliding layer of the global width", g4, swa(2), `tensor "blk.2.attn_q.weight" has shape [128 256], want [128 512]`},
		{"gemma4 shared layers", g4, func(m *gguf.Model) { m.Set("gemma4.attention.shared_kv_layers", gguf.Uint32(10)) },
			`key "gemma4.attention.shared_kv_layers" is 10, want 0 to 9`},
		{"gemma4 per-layer FFN count", g4, func(m *gguf.Model) {
			m.Set("gemma4.feed_forward_length", gguf.Int32s([]int32{256, 256}))
		}, `key "gemma4.feed_forward_length" has 2 entries for 10 layers`},
		{"gemma4 negative cap", g4, func(m *gguf.Model) { m.Set("gemma4.final_logit_softcapping", gguf.Float32(-1)) },
			`key "gemma4.final_logit_softcapping" is -1, want a finite number ≥ 0`},
		{"gemma4 router without experts", g4, func(m *gguf.Model) {
			m.Tensors = append(m.Tensors, gguf.Tensor{Info: gguf.TensorInfo{Name: "blk.0.ffn_gate_inp.weight", Dims: []uint64{128, 4}, Type: ggml.F32}, Data: make([]byte, 4*128*4)})
		}, `key "gemma4.expert_count" missing`},
		{"gemma4 NVFP4 scale", g4, func(m *gguf.Model) {
			m.Tensors = append(m.Tensors, gguf.Tensor{Info: gguf.TensorInfo{Name: "blk.0.attn_q.scale", Dims: []uint64{1}, Type: ggml.F32}, Data: make([]byte, 4)})
		}, `tensor "blk.0.attn_q.scale" (a per-tensor scale of NVFP4 weights) is not supported`},
		{"gemma4 fused experts", moe, func(m *gguf.Model) {
			m.Tensors = append(m.Tensors, gguf.Tensor{Info: gguf.TensorInfo{Name: "blk.2.ffn_gate_up_exps.weight", Dims: []uint64{1}, Type: ggml.F32}, Data: make([]byte, 4)})
		}, `tensor "blk.2.ffn_gate_up_exps.weight" (gate and up experts fused) is not supported`},
		{"gemma4 expert scale", moe, func(m *gguf.Model) { resizeTensor(m, "blk.1.ffn_down_exps.scale", 3) },
			`tensor "blk.1.ffn_down_exps.scale" has shape [3], want [4]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, loadErr(t, rewrite(t, tc.path, tc.edit)), tc.want)
		})
	}
}

// BenchmarkGemmaN times the GGUF named by LITERT_BENCH_GEMMA, a real-size
// Gemma 3n or Gemma 4 (`litert-go synth --shape gemma3n-e2b --type q4_k_m
// --vocab V -o FILE`: minutes of quantization, so the benchmark takes the
// file rather than writing it), as BenchmarkMoE does; benchllama.cpp
// times llama.cpp on the same file.
func BenchmarkGemmaN(b *testing.B) {
	path := os.Getenv("LITERT_BENCH_GEMMA")
	if path == "" {
		b.Skip("set LITERT_BENCH_GEMMA to a gemma3n or gemma4 GGUF")
	}
	benchPrefillDecode(b, path)
}
