package models

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// tinyShapes are the synthetic test models of every architecture.
var tinyShapes = []string{"tiny-smollm2-135m", "tiny-qwen2.5-0.5b", "tiny-qwen3-0.6b", "tiny-gemma3-270m", "tiny-llama3.2-1b"}

func writeTiny(t testing.TB, shape string, typ ggml.DType) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), shape+".gguf")
	require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1, Type: typ}))
	return path
}

// testTokens returns n deterministic token ids below vocab.
func testTokens(n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32((i*7919 + 13) % vocab)
	}
	return ids
}

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// run feeds ids in batches of batch tokens and returns the last logits.
func run(m Model, st *State, ids []int32, batch int) []float32 {
	logits := make([]float32, m.Params().VocabSize)
	for len(ids) > 0 {
		n := min(batch, len(ids))
		m.Forward(st, Tokens(ids[:n]), logits)
		ids = ids[n:]
	}
	return logits
}

// TestSynthetic checks, for every architecture, that batching, the
// prefill/decode split, threads and the KV type change results only by
// float noise.
func TestSynthetic(t *testing.T) {
	for _, shape := range tinyShapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.F32)
			b1, b2 := native.NewGo(1), native.NewGo(3)
			defer b1.Close()
			defer b2.Close()
			m1, m2 := openModel(t, path, b1), openModel(t, path, b2)
			p := m1.Params()
			ids := testTokens(20, p.VocabSize) // longer than gemma's window of 16
			state := func(kv ggml.DType) *State {
				st, err := NewState(m1, 64, 64, kv)
				require.NoError(t, err)
				return st
			}
			// reference: the whole sequence as one batch on one thread
			ref := run(m1, state(ggml.F32), ids, 64)
			require.False(t, math.IsNaN(float64(ref[0])))
			for _, tc := range []struct {
				name string
				m    Model
				kv   ggml.DType
				do   func(m Model, st *State) []float32
				tol  float64
			}{
				{"token at a time", m1, ggml.F32, func(m Model, st *State) []float32 { return run(m, st, ids, 1) }, 1e-4},
				{"batches of 7", m1, ggml.F32, func(m Model, st *State) []float32 { return run(m, st, ids, 7) }, 1e-4},
				{"prefill then decode", m1, ggml.F32, func(m Model, st *State) []float32 {
					run(m, st, ids[:14], 64)
					return run(m, st, ids[14:], 1)
				}, 1e-4},
				{"3 threads", m2, ggml.F32, func(m Model, st *State) []float32 { return run(m, st, ids, 64) }, 1e-4},
				{"rewind and replay", m1, ggml.F32, func(m Model, st *State) []float32 {
					run(m, st, ids[:12], 64)
					run(m, st, testTokens(9, 5), 64)
					resume, err := st.Truncate(12)
					require.NoError(t, err)
					require.Equal(t, 12, resume)
					return run(m, st, ids[12:], 64)
				}, 1e-4},
				{"clone", m1, ggml.F32, func(m Model, st *State) []float32 {
					run(m, st, ids[:15], 64)
					c, err := st.Clone()
					require.NoError(t, err)
					run(m, st, testTokens(5, 7), 64)
					return run(m, c, ids[15:], 64)
				}, 1e-4},
				{"F16 cache", m1, ggml.F16, func(m Model, st *State) []float32 { return run(m, st, ids, 64) }, 0.05},
			} {
				got := tc.do(tc.m, state(tc.kv))
				d := maxDiff(ref, got)
				require.LessOrEqual(t, d, tc.tol, fmt.Sprintf("%s: max |Δlogit| %g", tc.name, d))
			}
		})
	}
}
