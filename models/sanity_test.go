package models

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// stories is the real F32 model the hostile files are made from.
const stories = "../../shared/testdata/models/stories260K.gguf"

func storiesPath(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(stories); err != nil {
		t.Skipf("stories260K fixture absent at %s", stories)
	}
	return stories
}

// poke returns an edit that sets element i of the F32 tensor name to v.
func poke(t *testing.T, name string, i int, v float32) func(m *gguf.Model) {
	return func(m *gguf.Model) {
		for k := range m.Tensors {
			tn := &m.Tensors[k]
			if tn.Info.Name != name {
				continue
			}
			require.Equal(t, ggml.F32, tn.Info.Type, name)
			data := append([]byte(nil), tn.Data...)
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
			tn.Data = data
			return
		}
		t.Fatalf("no tensor %s", name)
	}
}

func set(key string, v gguf.Value) func(m *gguf.Model) {
	return func(m *gguf.Model) { m.Set(key, v) }
}

// TestLoadRefusesBadHyperParameters: each of these once loaded and made
// every logit NaN, which generation reported as "no token is allowed".
func TestLoadRefusesBadHyperParameters(t *testing.T) {
	path := storiesPath(t)
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name string
		edit func(m *gguf.Model)
		want string
	}{
		{"NaN epsilon", set("llama.attention.layer_norm_rms_epsilon", gguf.Float32(nan)),
			`key "llama.attention.layer_norm_rms_epsilon" is NaN, want a finite number above 0`},
		{"negative epsilon", set("llama.attention.layer_norm_rms_epsilon", gguf.Float32(-1e-5)),
			`key "llama.attention.layer_norm_rms_epsilon" is -1e-05, want a finite number above 0`},
		{"zero epsilon", set("llama.attention.layer_norm_rms_epsilon", gguf.Float32(0)),
			`key "llama.attention.layer_norm_rms_epsilon" is 0`},
		{"zero rope base", set("llama.rope.freq_base", gguf.Float32(0)),
			`key "llama.rope.freq_base" is 0, want a finite number above 0`},
		{"infinite rope base", set("llama.rope.freq_base", gguf.Float32(float32(math.Inf(1)))),
			`key "llama.rope.freq_base" is +Inf`},
		{"NaN rope scale", func(m *gguf.Model) {
			m.Set("llama.rope.scaling.type", gguf.String("linear"))
			m.Set("llama.rope.scaling.factor", gguf.Float32(nan))
		}, `key "llama.rope.scaling.factor" is NaN`},
		{"zero context", set("llama.context_length", gguf.Uint32(0)),
			`key "llama.context_length" is 0, want a positive count`},
		{"heads that do not divide the embedding", func(m *gguf.Model) {
			m.Set("llama.attention.head_count", gguf.Uint32(6))
			m.Set("llama.attention.head_count_kv", gguf.Uint32(3))
		}, `key "llama.embedding_length" is 64, which 6 heads (key "llama.attention.head_count") do not divide`},
		{"more KV heads than heads", set("llama.attention.head_count_kv", gguf.Uint32(16)),
			`key "llama.attention.head_count_kv" is 16, more than the 8 heads`},
		{"NaN norm weight", poke(t, "blk.1.attn_norm.weight", 3, nan),
			`tensor "blk.1.attn_norm.weight": element 3 is NaN`},
		{"infinite output norm", poke(t, "output_norm.weight", 0, float32(math.Inf(-1))),
			`tensor "output_norm.weight": element 0 is -Inf`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, rewrite(t, path, tc.edit))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	require.NoError(t, loadErr(t, path))
}

// sanityBackends are the backends the checks run on: the pure-Go kernels
// and, when their library is found (make test sets LITERT_NATIVE_LIB), the
// C kernels, whose SIMD code must not lose a NaN either.
func sanityBackends(t *testing.T) map[string]func() native.Backend {
	bs := map[string]func() native.Backend{"go": func() native.Backend { return native.NewGo(1) }}
	if b, err := native.OpenCPU(native.CPUOptions{Threads: 1}); err == nil {
		b.Close()
		bs["cpu"] = func() native.Backend {
			b, err := native.OpenCPU(native.CPUOptions{Threads: 1})
			require.NoError(t, err)
			return b
		}
	}
	return bs
}

// forwardChecked loads the file at path and runs the prompt through it in
// one call, returning ForwardChecked's error and the state's length after.
func forwardChecked(t *testing.T, path string, newBackend func() native.Backend, prompt []int32) (error, int) {
	t.Helper()
	f, err := gguf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	b := newBackend()
	defer b.Close()
	m, err := Load(f, b)
	require.NoError(t, err)
	st, err := NewState(m, 32, 8, ggml.F32)
	require.NoError(t, err)
	logits := make([]float32, m.Params().VocabSize)
	err = ForwardChecked(m, st, Tokens(prompt), logits)
	if err == nil {
		assert.Negative(t, firstNonFinite(logits), "logits without an error are finite")
	}
	return err, st.Len()
}

// TestNonFiniteWeightsNamed puts a NaN or an infinity into one weight
// matrix of stories260K (matrices are not scanned at load: that would read
// the whole model) and expects the forward pass to name the block.
func TestNonFiniteWeightsNamed(t *testing.T) {
	path := storiesPath(t)
	// BOS and "Once upon a time", the prompt of the session tests.
	prompt := []int32{1, 403, 407, 261, 378}
	backends := sanityBackends(t)
	for name, nb := range backends {
		err, n := forwardChecked(t, path, nb, prompt)
		require.NoError(t, err, name)
		require.Equal(t, len(prompt), n, name)
	}

	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		name   string
		edit   func(m *gguf.Model)
		stage  string
		layer  int
		pos    int
		inText string
	}{
		// ffn_down is [64][172]: row 5 of the output, any input column.
		{"NaN in blk.2.ffn_down", poke(t, "blk.2.ffn_down.weight", 5*172+7, float32(math.NaN())), "feed-forward", 2, 0, "first in the output of blk.2 feed-forward (position 0)"},
		{"Inf in blk.0.attn_v", poke(t, "blk.0.attn_v.weight", 3*64+1, inf), "attention", 0, 0, "blk.0 attention"},
		{"Inf in the embedding of token 407", poke(t, "token_embd.weight", 407*64+9, inf), "token_embd", -1, 2, "first in the output of token_embd (position 2)"},
		{"NaN in output.weight", poke(t, "output.weight", 100*64, float32(math.NaN())), "output", -1, 4, "output (position 4)"},
	} {
		hostile := rewrite(t, path, tc.edit)
		for name, nb := range backends {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				err, n := forwardChecked(t, hostile, nb, prompt)
				var nf *NonFiniteError
				require.True(t, errors.As(err, &nf), "want a NonFiniteError, got %v", err)
				assert.Equal(t, tc.stage, nf.Stage)
				assert.Equal(t, tc.layer, nf.Layer)
				assert.Equal(t, tc.pos, nf.Pos)
				assert.True(t, math.IsNaN(float64(nf.Value)) || math.IsInf(float64(nf.Value), 0))
				assert.Contains(t, err.Error(), "models: llama: the forward pass produced")
				assert.Contains(t, err.Error(), tc.inText)
				assert.Zero(t, n, "the failed call leaves the state as it was")
			})
		}
	}
}
