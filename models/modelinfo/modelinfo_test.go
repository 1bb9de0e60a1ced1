package modelinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

const testdata = "../../../shared/testdata"

func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(testdata, dir, "*.gguf"))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Skipf("fixtures absent: no %s/%s/*.gguf", testdata, dir)
	}
	return paths
}

// TestStories260K checks the summary of llama.cpp's stories260K test model
// against its known hyperparameters (see testdata/models/stories260K.md).
func TestStories260K(t *testing.T) {
	path := filepath.Join(testdata, "models", "stories260K.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	info, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, "llama", info.Arch)
	assert.EqualValues(t, 5, info.NLayers)
	assert.EqualValues(t, 64, info.Dim)
	assert.EqualValues(t, 172, info.HiddenDim)
	assert.EqualValues(t, 8, info.NHeads)
	assert.EqualValues(t, 4, info.NKVHeads)
	assert.EqualValues(t, 8, info.HeadDim)
	assert.EqualValues(t, 512, info.NVocab)
	assert.EqualValues(t, 2048, info.CtxLen)
	assert.Equal(t, "llama", info.TokenizerModel)
	require.NotNil(t, info.BOS)
	require.NotNil(t, info.EOS)
	assert.EqualValues(t, 1, *info.BOS)
	assert.EqualValues(t, 2, *info.EOS)
	assert.False(t, info.HasChatTemplate)
	assert.InDelta(t, 1e-5, info.NormEps, 1e-12)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, st.Size(), info.FileBytes)
	assert.Equal(t, 48, info.NTensors)
	var params, bytes uint64
	for _, s := range info.TensorTypes {
		params += s.Elements
		bytes += s.Bytes
	}
	assert.Equal(t, info.Parameters, params)
	assert.Equal(t, []string{"F32"}, info.SortedTypes())
	assert.Less(t, bytes, uint64(info.FileBytes))
	// Embedding and output 2·64·512, 5 blocks of attention
	// (2·64·64 + 2·64·32) and FFN 3·64·172, norms 11·64: 292,800.
	assert.EqualValues(t, 2*64*512+5*(2*64*64+2*64*32+3*64*172)+11*64, info.Parameters)
}

func TestAllFixtures(t *testing.T) {
	paths := append(fixtures(t, "models"), fixtures(t, "vocab")...)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			info, err := Load(path)
			require.NoError(t, err)
			assert.Positive(t, info.FileBytes)
			assert.Positive(t, info.NVocab, "every fixture has a vocabulary")
			assert.NotEmpty(t, info.TokenizerModel)
			if strings.Contains(path, "vocab") {
				assert.Zero(t, info.NTensors)
				assert.Zero(t, info.Parameters)
			} else {
				assert.Positive(t, info.Parameters)
				assert.NotEmpty(t, info.Arch)
			}
		})
	}
}

func TestQuantizedFixture(t *testing.T) {
	path := filepath.Join(testdata, "models", "stories260K-Q8_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	info, err := Load(path)
	require.NoError(t, err)
	q8, ok := info.TensorTypes["Q8_0"]
	require.True(t, ok)
	assert.Equal(t, q8.Elements/32*34, q8.Bytes)
	assert.EqualValues(t, 292800, info.Parameters, "quantization keeps the parameter count")
	assert.EqualValues(t, 7, info.FileType)
}

func TestSyntheticModels(t *testing.T) {
	dir := t.TempDir()
	for _, shape := range []string{"tiny-gemma3-270m", "tiny-llama3.2-1b", "tiny-qwen3-0.6b",
		"tiny-gemma2-2b", "tiny-granite3.3-2b", "tiny-smollm3-3b", "tiny-exaone4-1.2b", "tiny-olmo2-1b", "tiny-qwen3moe-30b-a3b", "tiny-gpt-oss-20b"} {
		path := filepath.Join(dir, shape+".gguf")
		require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1, Mix: "q4_k_m"}))
		s, err := synth.Lookup(shape)
		require.NoError(t, err)
		info, err := Load(path)
		require.NoError(t, err)
		assert.Equal(t, s.Arch, info.Arch)
		assert.EqualValues(t, s.NLayer, info.NLayers)
		assert.EqualValues(t, s.NHeadKV, info.NKVHeads)
		assert.EqualValues(t, s.HeadDim, info.HeadDim)
		assert.EqualValues(t, 512, info.NVocab)
		assert.Equal(t, s.Tied, info.TiedEmbeddings)
		assert.True(t, info.HasChatTemplate)
		assert.False(t, info.ChatTemplateTools)
		assert.EqualValues(t, 15, info.FileType)
		assert.InDelta(t, float64(s.RopeBase), info.RopeBase, 1e-3)
		switch s.Arch {
		case "gemma3":
			assert.EqualValues(t, s.SlidingWin, info.Window)
			assert.Equal(t, 10000.0, info.RopeBaseSWA)
		case "llama", "exaone4":
			assert.True(t, info.RopeFreqsTensor)
		case "gemma2":
			assert.EqualValues(t, s.SlidingWin, info.Window)
			assert.InDelta(t, float64(s.AttnSoftcap), info.AttnSoftcap, 1e-7)
			assert.InDelta(t, float64(s.FinalSoftcap), info.FinalSoftcap, 1e-7)
		case "qwen3moe":
			assert.Equal(t, [3]int{16, 4, 64}, [3]int{info.NExperts, info.NExpertsUsed, info.ExpertHiddenDim})
		case "gpt-oss":
			assert.Equal(t, [3]int{8, 2, 64}, [3]int{info.NExperts, info.NExpertsUsed, info.ExpertHiddenDim})
			assert.EqualValues(t, s.SlidingWin, info.Window)
			assert.Equal(t, "yarn", info.RopeScaling)
		case "granite":
			assert.Equal(t, []float32{12, 0.015625, 0.22, 8},
				[]float32{info.EmbeddingScale, info.AttentionScale, info.ResidualScale, info.LogitScale})
		}
	}
}

func TestVocabOnlyAndTemplate(t *testing.T) {
	// A hand-made file: metadata of the wrong type is reported by key.
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.gguf")
	m := &gguf.Model{KV: []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("llama")},
		{Key: "llama.block_count", Value: gguf.String("five")},
	}}
	writeModel(t, path, m)
	_, err := Load(path)
	require.ErrorContains(t, err, "llama.block_count")

	m = &gguf.Model{KV: []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.String("gpt2")},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Strings([]string{"a", "b"})},
		{Key: "tokenizer.chat_template", Value: gguf.String("{% if tools %}x{% endif %}")},
	}, Tensors: []gguf.Tensor{{Info: gguf.TensorInfo{Name: "x", Dims: []uint64{4}, Type: ggml.F32}, Data: make([]byte, 16)}}}
	path = filepath.Join(dir, "tools.gguf")
	writeModel(t, path, m)
	info, err := Load(path)
	require.NoError(t, err)
	assert.True(t, info.ChatTemplateTools)
	assert.EqualValues(t, 2, info.NVocab)
	assert.EqualValues(t, 4, info.Parameters)
	assert.Empty(t, info.Arch)

	_, err = Load(filepath.Join(dir, "missing.gguf"))
	require.ErrorContains(t, err, "missing.gguf")
}

func writeModel(t *testing.T, path string, m *gguf.Model) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, gguf.Write(f, m))
	require.NoError(t, f.Close())
}

// TestPerLayerCounts: counts a file gives per layer are described by their
// spread, read from the arrays the synthetic writer stores as
// convert_hf_to_gguf does (gemma4's MLP widths and KV heads; LFM2's KV
// heads, zero in its convolution layers).
func TestPerLayerCounts(t *testing.T) {
	for shape, want := range map[string]map[string]LayerRange{
		"tiny-gemma4-e2b": {"feed_forward_length": {Min: 256, Max: 512}, "attention.head_count_kv": {Min: 1, Max: 2}},
		"tiny-lfm2-350m":  {"attention.head_count_kv": {Min: 2, Max: 2, Zero: 3}},
		"tiny-qwen3-0.6b": nil,
	} {
		path := filepath.Join(t.TempDir(), shape+".gguf")
		require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1}))
		info, err := Load(path)
		require.NoError(t, err)
		assert.Equal(t, want, info.PerLayer, shape)
	}
}
