package models

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// rewrite writes a copy of the GGUF file at path changed by edit.
func rewrite(t *testing.T, path string, edit func(m *gguf.Model)) string {
	t.Helper()
	f, err := gguf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	m := f.Model()
	edit(m)
	out := filepath.Join(t.TempDir(), "edited.gguf")
	fd, err := os.Create(out)
	require.NoError(t, err)
	require.NoError(t, gguf.Write(fd, m))
	require.NoError(t, fd.Close())
	return out
}

func loadErr(t *testing.T, path string) error {
	t.Helper()
	f, err := gguf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	b := native.NewGo(1)
	defer b.Close()
	_, err = Load(f, b)
	return err
}

func TestLoadErrors(t *testing.T) {
	path := writeTiny(t, "tiny-qwen3-0.6b", ggml.F32)
	dropTensor := func(name string) func(m *gguf.Model) {
		return func(m *gguf.Model) {
			for i, tn := range m.Tensors {
				if tn.Info.Name == name {
					m.Tensors = append(m.Tensors[:i], m.Tensors[i+1:]...)
					return
				}
			}
			t.Fatalf("no tensor %s", name)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(m *gguf.Model)
		want string
	}{
		{"unknown architecture", func(m *gguf.Model) { m.Set("general.architecture", gguf.String("mamba")) },
			`architecture "mamba" is not supported (supported: exaone4, gemma2, gemma3, gemma3n, gemma4, gpt-oss, granite, lfm2, llama, olmo2, phi3, qwen2, qwen3, qwen35, qwen3moe, smollm3)`},
		{"missing tensor", dropTensor("blk.2.attn_k_norm.weight"), `required tensor "blk.2.attn_k_norm.weight" is missing`},
		{"missing key", func(m *gguf.Model) {
			for i, kv := range m.KV {
				if kv.Key == "qwen3.block_count" {
					m.KV = append(m.KV[:i], m.KV[i+1:]...)
					return
				}
			}
		}, `"qwen3.block_count" missing`},
		{"bad head count", func(m *gguf.Model) { m.Set("qwen3.attention.head_count_kv", gguf.Uint32(3)) },
			"4 heads are not a multiple of 3 KV heads"},
		{"huge block count", func(m *gguf.Model) { m.Set("qwen3.block_count", gguf.Uint32(1<<30)) },
			`key "qwen3.block_count" is 1073741824, but the file has only`},
		{"more heads than dimensions", func(m *gguf.Model) {
			m.Set("qwen3.attention.head_count", gguf.Uint32(1<<20))
			m.Set("qwen3.attention.head_count_kv", gguf.Uint32(1<<20))
			for i, kv := range m.KV {
				if kv.Key == "qwen3.attention.key_length" {
					m.KV = append(m.KV[:i], m.KV[i+1:]...)
					break
				}
			}
		}, `key "qwen3.embedding_length" is 128, which 1048576 heads (key "qwen3.attention.head_count") do not divide`},
		{"wrong shape", func(m *gguf.Model) { m.Set("qwen3.feed_forward_length", gguf.Uint32(256)) },
			`tensor "blk.0.ffn_gate.weight" has shape [128 384], want [128 256]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, rewrite(t, path, tc.edit))
			require.ErrorContains(t, err, tc.want)
		})
	}
	// an architecture whose tensors are valid loads
	require.NoError(t, loadErr(t, path))
}

func TestStateErrors(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := shapeModel{b: b, p: Params{NLayers: 1, NKVHeads: 1, HeadDim: 4}}
	_, err := NewState(m, 0, 1, ggml.F32)
	require.Error(t, err)
	_, err = NewState(m, 8, 1, ggml.Q4_0)
	require.ErrorContains(t, err, "Q4_0")
	st, err := NewState(m, 8, 4, ggml.F16)
	require.NoError(t, err)
	_, err = st.Truncate(1)
	require.Error(t, err)
	require.Equal(t, 2*2*8*4, st.Bytes())
	_, err = NewState(shapeModel{p: m.p}, 8, 4, ggml.F32)
	require.ErrorContains(t, err, "no backend")
}

// A corrupt layer count fails before anything is sized by it (Gemma's
// per-layer window pattern once allocated 4 GB for this file).
func TestLoadHugeBlockCount(t *testing.T) {
	path := writeTiny(t, "tiny-gemma3-270m", ggml.F32)
	for _, n := range []uint32{4_000_000_000, 1 << 30} {
		err := loadErr(t, rewrite(t, path, func(m *gguf.Model) { m.Set("gemma3.block_count", gguf.Uint32(n)) }))
		require.ErrorContains(t, err, `"gemma3.block_count"`)
	}
}

func TestLoadVocabOnly(t *testing.T) {
	f, err := gguf.Open("../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	if err != nil {
		t.Skipf("vocab fixture absent: %v", err)
	}
	defer f.Close()
	_, err = Load(f, native.NewGo(1))
	require.ErrorContains(t, err, "vocabulary-only GGUF")
}
