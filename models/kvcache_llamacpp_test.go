package models

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
)

// llamaCppKVTol is the largest |Δlogit| allowed against llama.cpp's runs
// with a KV cache of each type (testdata/llamacpp/kv/, F32 weights). Both
// rotate queries, keys and values by the same Walsh-Hadamard matrices and
// round them to the same blocks, so the logits agree as closely as the
// F32 cache's do (measured: tiny Qwen3 4e-6 for Q8_0 and Q4_0) — except
// where the inputs of the rounding differ already: ggml's float16 GELU
// table moves tiny Gemma 3's activations by about 1e-4, enough to round
// some block elements the other way (measured: 0.0027 for Q8_0, 0.012 for
// Q4_0, a fifth and a twentieth of what the rounding itself moves them).
var llamaCppKVTol = map[ggml.DType]float64{ggml.F32: 1e-3, ggml.Q8_0: 5e-3, ggml.Q4_0: 0.03}

// TestLlamaCppQuantizedKV runs each model of testdata/llamacpp/kv
// (<shape>-<type>-<kv>.jsonl: llama.cpp's runs with -ctk/-ctv <kv>, made
// by gen.sh with KV set) with a KV cache of that type, on every backend,
// and checks every logit of every step against llama.cpp's. The rounding
// of the cache (and llama.cpp's rotation around it, attn_rot_k/v) is what
// the files test: llama.cpp's F32-cache run of the same model
// (<shape>-<type>-f32.jsonl) is several times further from them than we
// are.
func TestLlamaCppQuantizedKV(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(llamaCppDir, "kv", "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no reference files in %s/kv", llamaCppDir)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			cut := strings.LastIndexByte(name, '-')
			require.Positive(t, cut, "%s: not <shape>-<type>-<kv>.jsonl", path)
			kv, err := ggml.ParseDType(name[cut+1:])
			require.NoError(t, err)
			tol, ok := llamaCppKVTol[kv]
			require.True(t, ok, "%s: no tolerance for KV type %s", path, kv)
			base := name[:cut] // <shape>-<type>, as the F32-cache reference
			cut = strings.LastIndexByte(base, '-')
			shape := base[:cut]
			typ, mix, err := synth.ParseType(base[cut+1:])
			require.NoError(t, err)
			ref, err := readLlamaCppRef(path)
			require.NoError(t, err)
			f32, err := readLlamaCppRef(filepath.Join(llamaCppDir, "kv", base+"-f32.jsonl"))
			require.NoError(t, err)
			require.Equal(t, ref.Prompt, f32.Prompt)
			require.Equal(t, ref.Feed, f32.Feed)

			model := filepath.Join(t.TempDir(), "m.gguf")
			require.NoError(t, synth.WriteFile(model, shape, synth.Options{Seed: 1, Type: typ, Mix: mix}))
			// how far llama.cpp's own F32-cache run is
			rounding := 0.0
			for step := range ref.Steps {
				for j, w := range ref.Steps[step] {
					rounding = max(rounding, math.Abs(float64(w-f32.Steps[step][j])))
				}
			}
			for _, lb := range llamaCppBackends(t) {
				m := openModel(t, model, lb.Backend)
				p := m.Params()
				st, err := NewState(m, llamaCppCtx, len(ref.Prompt), kv)
				require.NoError(t, err)
				logits := make([]float32, p.VocabSize)
				worst := 0.0
				for step, want := range ref.Steps {
					if step == 0 {
						m.Forward(st, Tokens(ref.Prompt), logits)
					} else {
						m.Forward(st, Tokens(ref.Feed[step-1:step]), logits)
					}
					worst = max(worst, requireLogits(t, logits, want, ref.Stride, tol, "%s backend, step %d", lb.Name(), step))
				}
				t.Logf("%s backend, %s KV: max |Δlogit| %.2g over %d steps (tolerance %g; llama.cpp's F32 cache is %.2g off)",
					lb.Name(), kv, worst, len(ref.Steps), tol, rounding)
				if kv != ggml.F32 {
					assert.Greater(t, rounding, 3*worst, "the cache's rounding is what is matched")
				}
			}
		})
	}
}
