package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// hybridShapes are the tiny LFM2 and Qwen3.5 models; TestLlamaCpp checks
// their logits against llama.cpp (testdata/llamacpp/tiny-{lfm2-350m,
// qwen3.5-0.8b}-*.jsonl).
var hybridShapes = []string{"tiny-lfm2-350m", "tiny-qwen3.5-0.8b"}

// hybridTokens is the 40-token prompt of the llama.cpp reference files.
func hybridTokens(n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32((i*7919 + 13) % vocab)
	}
	return ids
}

// TestHybridPrefillSplits checks that the conv and recurrent states carry
// a prompt across Forward calls: the logits after 40 tokens are the same
// whether they arrive in one batch, in uneven pieces or one at a time
// (llama.cpp's files check one batch, then single tokens).
func TestHybridPrefillSplits(t *testing.T) {
	for _, shape := range hybridShapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.F32)
			for _, b := range llamaCppBackends(t) {
				m := openModel(t, path, b)
				p := m.Params()
				prompt := hybridTokens(40, p.VocabSize)
				run := func(pieces []int) []float32 {
					st, err := NewState(m, 64, 40, ggml.F32)
					require.NoError(t, err)
					logits := make([]float32, p.VocabSize)
					t0 := 0
					for _, n := range pieces {
						m.Forward(st, Tokens(prompt[t0:t0+n]), logits)
						t0 += n
					}
					require.Equal(t, 40, st.Len())
					return logits
				}
				want := run([]int{40})
				ones := make([]int, 40)
				for i := range ones {
					ones[i] = 1
				}
				for _, pieces := range [][]int{{7, 13, 20}, {1, 38, 1}, ones} {
					require.InDeltaSlice(t, want, run(pieces), 2e-5, "%s backend, pieces %v", b.Name(), pieces)
				}
			}
		})
	}
}

// TestHybridCaches checks the per-layer state the models declare: LFM2's
// conv layers (0, 1, 3) hold 2 rows of 128 and its attention layers a KV
// cache of 2 heads × 32; Qwen3.5's DeltaNet layers (0, 1, 3, 4) hold 3
// rows of q, k, v (2·64 + 128) and 4 value heads' 32×32 matrices, its
// attention layers (2, 5) one KV head of 32.
func TestHybridCaches(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	lfm := openModel(t, writeTiny(t, "tiny-lfm2-350m", ggml.F32), b).(Cacher)
	conv := LayerCache{Conv: 2 * 128, SharedKV: -1}
	attn := LayerCache{KVWidth: 64, SharedKV: -1}
	require.Equal(t, []LayerCache{conv, conv, attn, conv, attn}, lfm.Caches())

	q35 := openModel(t, writeTiny(t, "tiny-qwen3.5-0.8b", ggml.F32), b).(Cacher)
	dn := LayerCache{Conv: 3 * (2*64 + 128), Recurrent: 4 * 32 * 32, SharedKV: -1}
	attn = LayerCache{KVWidth: 32, SharedKV: -1}
	require.Equal(t, []LayerCache{dn, dn, attn, dn, dn, attn}, q35.Caches())
}

// TestHybridLoadErrors checks that malformed hybrid files fail to load
// with an error naming the key or tensor.
func TestHybridLoadErrors(t *testing.T) {
	lfm := writeTiny(t, "tiny-lfm2-350m", ggml.F32)
	q35 := writeTiny(t, "tiny-qwen3.5-0.8b", ggml.F32)
	for _, tc := range []struct {
		name, path string
		edit       func(m *gguf.Model)
		want       string
	}{
		{"lfm2 YaRN", lfm, func(m *gguf.Model) {
			m.Set("lfm2.rope.scaling.type", gguf.String("yarn"))
			m.Set("lfm2.rope.scaling.factor", gguf.Float32(4))
		}, `key "lfm2.rope.scaling.type" is "yarn", which lfm2 does not support`},
		{"qwen35 YaRN", q35, func(m *gguf.Model) {
			m.Set("qwen35.rope.scaling.type", gguf.String("yarn"))
			m.Set("qwen35.rope.scaling.factor", gguf.Float32(4))
		}, `key "qwen35.rope.scaling.type" is "yarn", which qwen35 does not support`},
		{"lfm2 scalar head_count_kv", lfm, func(m *gguf.Model) { m.Set("lfm2.attention.head_count_kv", gguf.Uint32(2)) },
			`LFM2 needs the per-layer "lfm2.attention.head_count_kv" array`},
		{"lfm2 short head_count_kv", lfm, func(m *gguf.Model) { m.Set("lfm2.attention.head_count_kv", gguf.Int32s([]int32{0, 2})) },
			`"lfm2.attention.head_count_kv" has 2 entries for 5 blocks`},
		{"lfm2 mixed head counts", lfm, func(m *gguf.Model) {
			m.Set("lfm2.attention.head_count_kv", gguf.Int32s([]int32{0, 0, 2, 0, 1}))
		}, "varies per layer (2 in layer 0, 1 in layer 4)"},
		{"lfm2 no attention", lfm, func(m *gguf.Model) { m.Set("lfm2.attention.head_count_kv", gguf.Int32s(make([]int32, 5))) },
			"head_count_kv\" is 0, want a positive count"},
		{"lfm2 one tap", lfm, func(m *gguf.Model) { m.Set("lfm2.shortconv.l_cache", gguf.Uint32(1)) },
			`"lfm2.shortconv.l_cache" is 1`},
		{"lfm2 kernel shape", lfm, func(m *gguf.Model) { m.Set("lfm2.shortconv.l_cache", gguf.Uint32(4)) },
			`tensor "blk.0.shortconv.conv.weight" has shape [3 128], want [4 128]`},
		{"qwen35 heads", q35, func(m *gguf.Model) { m.Set("qwen35.ssm.time_step_rank", gguf.Uint32(3)) },
			"3 value heads"},
		{"qwen35 inner size", q35, func(m *gguf.Model) { m.Set("qwen35.ssm.inner_size", gguf.Uint32(100)) },
			`"qwen35.ssm.inner_size" is 100`},
		{"qwen35 missing conv kernel", q35, func(m *gguf.Model) {
			for i, tn := range m.Tensors {
				if tn.Info.Name == "blk.1.ssm_conv1d.weight" {
					m.Tensors = append(m.Tensors[:i], m.Tensors[i+1:]...)
					return
				}
			}
		}, `"blk.1.ssm_conv1d.weight" is missing`},
		{"qwen35 interval", q35, func(m *gguf.Model) { m.Set("qwen35.full_attention_interval", gguf.Uint32(2)) },
			`"blk.1.attn_output.weight" is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, loadErr(t, rewrite(t, tc.path, tc.edit)), tc.want)
		})
	}
}

// hybridRun returns the logits after feeding the pieces of ids one call
// each to a fresh State of m.
func hybridRun(t *testing.T, m Model, ids []int32, pieces ...int) []float32 {
	t.Helper()
	st, err := NewState(m, 64, 64, ggml.F32)
	require.NoError(t, err)
	logits := make([]float32, m.Params().VocabSize)
	t0 := 0
	for _, n := range pieces {
		m.Forward(st, Tokens(ids[t0:t0+n]), logits)
		t0 += n
	}
	require.Equal(t, len(ids), t0)
	return logits
}

// TestHybridRewindClone checks the State's checkpoints on the hybrids: a
// rewind restores the newest checkpoint at or before the position asked
// for, and re-feeding from there gives the logits of a fresh run; a clone
// carries the conv and recurrent states, and the clone and the original
// then diverge independently, each equal to a fresh run of its tokens.
func TestHybridRewindClone(t *testing.T) {
	for _, shape := range hybridShapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.F32)
			for _, b := range llamaCppBackends(t) {
				m := openModel(t, path, b)
				ids := hybridTokens(48, m.Params().VocabSize)
				logits := make([]float32, m.Params().VocabSize)
				const tol = 2e-5

				// prefill 40 as one batch and mark the turn's end; rewind 10
				st, err := NewState(m, 64, 64, ggml.F32)
				require.NoError(t, err)
				m.Forward(st, Tokens(ids[:40]), logits)
				st.Checkpoint()
				resume, err := st.Truncate(30)
				require.NoError(t, err)
				require.Equal(t, 0, resume, "%s: no checkpoint before 30: start over", b.Name())
				m.Forward(st, Tokens(ids[resume:30]), logits)
				m.Forward(st, Tokens(ids[30:41]), logits)
				require.InDeltaSlice(t, hybridRun(t, m, ids[:41], 41), logits, tol, "%s: rewind 10, re-feed", b.Name())

				// token by token with a checkpoint every 16 positions: the
				// rewind to 30 resumes at 16
				st, err = NewState(m, 64, 64, ggml.F32)
				require.NoError(t, err)
				st.CheckpointEvery = 16
				for i := range 40 {
					m.Forward(st, Tokens(ids[i:i+1]), logits)
				}
				require.Equal(t, []int{16, 32}, st.Checkpoints())
				resume, err = st.Truncate(30)
				require.NoError(t, err)
				require.Equal(t, 16, resume)
				require.Equal(t, 16, st.Len())
				m.Forward(st, Tokens(ids[16:30]), logits)
				require.InDeltaSlice(t, hybridRun(t, m, ids[:30], 30), logits, tol, "%s: resume at 16, re-feed to 30", b.Name())
				m.Forward(st, Tokens(ids[30:40]), logits)
				require.InDeltaSlice(t, hybridRun(t, m, ids[:40], 40), logits, tol, "%s: … and on to 40", b.Name())

				// clone, then diverge: the original takes ids[40:44], the
				// clone ids[44:48]
				c, err := st.Clone()
				require.NoError(t, err)
				require.Equal(t, st.Checkpoints(), c.Checkpoints())
				m.Forward(st, Tokens(ids[40:44]), logits)
				fork := append(append([]int32(nil), ids[:40]...), ids[44:48]...)
				cl := make([]float32, len(logits))
				m.Forward(c, Tokens(ids[44:48]), cl)
				require.InDeltaSlice(t, hybridRun(t, m, ids[:44], 44), logits, tol, "%s: original after the clone", b.Name())
				require.InDeltaSlice(t, hybridRun(t, m, fork, 44), cl, tol, "%s: clone", b.Name())
				// the clone's checkpoints are its own: its rewind to 20
				// resumes at 16 with the states of 16
				resume, err = c.Truncate(20)
				require.NoError(t, err)
				require.Equal(t, 16, resume)
				m.Forward(c, Tokens(fork[16:20]), cl)
				require.InDeltaSlice(t, hybridRun(t, m, fork[:20], 20), cl, tol, "%s: clone rewound to 20", b.Name())
			}
		})
	}
}

// BenchmarkHybrid measures the real-size synthetic LFM2-350M and
// Qwen3.5-0.8B in Q4_K_M on the C kernels when built, else the Go
// backend, on all cores: a 64-token prefill (its rate reported) and
// single-token decode (tok/s), as testdata/gen/benchllama.cpp times
// llama.cpp on the same files. Set LITERT_BENCH_HYBRID=1 to run it: it
// writes 0.2 and 0.5 GB models (minutes of quantization on few cores), or
// reads <dir>/<shape>-q4_k_m.gguf when LITERT_BENCH_HYBRID is a directory
// holding them (`litert-go synth --shape <shape> --type q4_k_m --seed 1`).
func BenchmarkHybrid(b *testing.B) {
	dir := os.Getenv("LITERT_BENCH_HYBRID")
	if dir == "" {
		b.Skip("set LITERT_BENCH_HYBRID=1: writes 0.2 and 0.5 GB models")
	}
	for _, shape := range []string{"lfm2-350m", "qwen3.5-0.8b"} {
		b.Run(shape+"-q4_k_m", func(b *testing.B) {
			path := filepath.Join(dir, shape+"-q4_k_m.gguf")
			if _, err := os.Stat(path); err != nil {
				path = filepath.Join(b.TempDir(), "m.gguf")
				require.NoError(b, synth.WriteFile(path, shape, synth.Options{Seed: 1, Type: ggml.Q4_K, Mix: "q4_k_m"}))
			}
			var be native.Backend = native.NewGo(0)
			if c, err := native.LoadCPU(0); err == nil {
				be.Close()
				be = c
			}
			defer be.Close()
			m := openModel(b, path, be)
			const nPrompt = 64
			st, err := NewState(m, nPrompt+b.N+1, nPrompt, ggml.F32)
			require.NoError(b, err)
			logits := make([]float32, m.Params().VocabSize)
			start := time.Now()
			m.Forward(st, Tokens(testTokens(nPrompt, m.Params().VocabSize)), logits)
			prefill := nPrompt / time.Since(start).Seconds()
			b.ResetTimer()
			start = time.Now()
			for range b.N {
				m.Forward(st, Tokens([]int32{argmax(logits)}), logits)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tok/s")
			b.ReportMetric(prefill, "prefill-tok/s")
			b.Logf("%s backend", be.Name())
		})
	}
}

// TestHybridUnfusedDeltaRule checks tiny Qwen3.5 in F32 against
// llama.cpp with its fused gated_delta_net op off
// (testdata/llamacpp/unfused, written by ../gen/unfused.sh): the prompt
// then runs llama.cpp's chunked form of the delta rule and each fed token
// its autoregressive form, which our one sequential scan must match as it
// matches the fused op (testdata/llamacpp/tiny-qwen3.5-0.8b-f32.jsonl).
func TestHybridUnfusedDeltaRule(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(llamaCppDir, "unfused", "*-f32.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		shape := strings.TrimSuffix(filepath.Base(path), "-f32.jsonl")
		t.Run(shape, func(t *testing.T) {
			ref, err := readLlamaCppRef(path)
			require.NoError(t, err)
			model := writeTiny(t, shape, ggml.F32)
			for _, b := range llamaCppBackends(t) {
				m := openModel(t, model, b)
				st, err := NewState(m, llamaCppCtx, len(ref.Prompt), ggml.F32)
				require.NoError(t, err)
				logits := make([]float32, m.Params().VocabSize)
				worst := 0.0
				for step, want := range ref.Steps {
					in := ref.Prompt
					if step > 0 {
						in = ref.Feed[step-1 : step]
					}
					m.Forward(st, Tokens(in), logits)
					worst = max(worst, requireLogits(t, logits, want, ref.Stride, llamaCppTol["f32"], "%s backend, step %d", b.Name(), step))
				}
				t.Logf("%s backend: max |Δlogit| %.2g against the unfused delta rule", b.Name(), worst)
			}
		})
	}
}
