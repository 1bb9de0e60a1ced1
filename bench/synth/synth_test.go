package synth

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

const vocabDir = "../../../shared/testdata/vocab"

// writeOpen writes shape to a temporary file and opens it.
func writeOpen(t *testing.T, shape string, opts Options) *gguf.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), shape+".gguf")
	require.NoError(t, WriteFile(path, shape, opts))
	f, err := gguf.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func tinyShapes() []string {
	var out []string
	for _, s := range Shapes() {
		if strings.HasPrefix(s, "tiny-") {
			out = append(out, s)
		}
	}
	return out
}

func TestShapes(t *testing.T) {
	names := Shapes()
	for _, want := range []string{"smollm2-135m", "qwen2.5-0.5b", "qwen3-0.6b", "gemma3-270m", "llama3.2-1b",
		"smollm3-3b", "granite3.3-2b", "olmo2-1b", "gemma2-2b", "exaone4-1.2b"} {
		assert.Contains(t, names, want)
		assert.Contains(t, names, "tiny-"+want)
	}
	for _, n := range names {
		s, err := Lookup(n)
		require.NoError(t, err)
		assert.Equal(t, 0, s.NHead%s.NHeadKV, "%s: heads divisible by KV heads", n)
		if strings.HasPrefix(n, "tiny-") {
			full, err := Lookup(strings.TrimPrefix(n, "tiny-"))
			require.NoError(t, err)
			assert.Equal(t, full.NHead/full.NHeadKV, s.NHead/s.NHeadKV, "%s keeps the GQA ratio", n)
			assert.Equal(t, full.Arch, s.Arch)
			assert.Equal(t, [6]bool{full.QKVBias, full.QKNorm, full.QKNormWhole, full.PostNorms, full.NoPreNorms, full.Tied},
				[6]bool{s.QKVBias, s.QKNorm, s.QKNormWhole, s.PostNorms, s.NoPreNorms, s.Tied})
			assert.Equal(t, full.Granite, s.Granite)
			assert.Equal(t, full.SWAPeriod, s.SWAPeriod)
			assert.Equal(t, full.Llama3Rope != nil, s.Llama3Rope != nil)
			assert.Equal(t, 512, s.NVocab)
		}
	}
	_, err := Lookup("gpt-5")
	require.ErrorContains(t, err, `unknown shape "gpt-5"`)
}

// TestParameterCounts checks the full shapes against the published sizes
// of the real models (tied embeddings counted once).
func TestParameterCounts(t *testing.T) {
	want := map[string]float64{ // millions
		"smollm2-135m": 134.5, "qwen2.5-0.5b": 494.0, "qwen3-0.6b": 596.0, "gemma3-270m": 268.1, "llama3.2-1b": 1235.8,
		"gemma2-2b": 2614.3, "olmo2-1b": 1484.9,
	}
	for name, m := range want {
		s, err := Lookup(name)
		require.NoError(t, err)
		var n uint64
		for _, ts := range s.tensors(s.NVocab) {
			n += ts.elements()
		}
		assert.InDelta(t, m, float64(n)/1e6, 0.5, name)
	}
}

func TestTinyShapesLoadInLlamaCpp(t *testing.T) {
	for _, shape := range tinyShapes() {
		t.Run(shape, func(t *testing.T) {
			s, err := Lookup(shape)
			require.NoError(t, err)
			f := writeOpen(t, shape, Options{Seed: 1, Type: ggml.F32})
			requireLlamaCppLoadable(t, f)

			arch, err := f.Architecture()
			require.NoError(t, err)
			assert.Equal(t, s.Arch, arch)
			for key, want := range map[string]int64{
				"block_count": int64(s.NLayer), "embedding_length": int64(s.NEmbd), "feed_forward_length": int64(s.NFF),
				"attention.head_count": int64(s.NHead), "attention.head_count_kv": int64(s.NHeadKV), "context_length": int64(s.NCtx),
			} {
				if v, _ := f.Lookup(arch + "." + key); v.Type == gguf.TypeArray {
					continue // per layer (gemma4); requireLlamaCppLoadable checks them
				}
				got, err := f.Int(arch + "." + key)
				require.NoError(t, err)
				assert.Equal(t, want, got, key)
			}
			base, err := f.Float(arch + ".rope.freq_base")
			require.NoError(t, err)
			assert.InDelta(t, float64(s.RopeBase), base, 1e-3)
			ft, err := f.Int("general.file_type")
			require.NoError(t, err)
			assert.EqualValues(t, 0, ft)
			for _, ti := range f.Tensors {
				assert.Equal(t, ggml.F32, ti.Type, ti.Name)
			}
			_, hasOutput := f.Tensor("output.weight")
			assert.Equal(t, !s.Tied, hasOutput)
			switch s.Arch {
			case "gemma3":
				w, err := f.Int("gemma3.attention.sliding_window")
				require.NoError(t, err)
				assert.EqualValues(t, s.SlidingWin, w)
				assert.Equal(t, 6, s.NLayer, "one global layer")
				assert.False(t, s.isSWA(5))
				assert.True(t, s.isSWA(4))
			case "qwen3":
				kl, err := f.Int("qwen3.attention.key_length")
				require.NoError(t, err)
				assert.EqualValues(t, s.HeadDim, kl)
				assert.NotEqual(t, s.NEmbd, s.NHead*s.HeadDim, "query width differs from embedding width, as in Qwen3")
			}
		})
	}
}

func TestFullShapesLoadInLlamaCpp(t *testing.T) {
	// The full models' metadata and tensor descriptions, in sparse files
	// whose weights are never generated.
	if testing.Short() {
		t.Skip("builds full-size vocabularies; skipped in -short")
	}
	for _, shape := range Shapes() {
		if strings.HasPrefix(shape, "tiny-") {
			continue
		}
		t.Run(shape, func(t *testing.T) {
			p, err := newPlan(shape, Options{Mix: "q4_k_m"})
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), shape+".gguf")
			out, err := os.Create(path)
			require.NoError(t, err)
			_, _, total, err := writeHeader(out, &gguf.Model{KV: p.kv}, p.infos)
			require.NoError(t, err)
			require.NoError(t, out.Truncate(total))
			require.NoError(t, out.Close())
			f, err := gguf.Open(path)
			require.NoError(t, err)
			defer f.Close()
			requireLlamaCppLoadable(t, f)
			s, err := Lookup(shape)
			require.NoError(t, err)
			ti, ok := f.Tensor("token_embd.weight")
			require.True(t, ok)
			assert.Equal(t, []uint64{uint64(s.NEmbd), uint64(s.NVocab)}, ti.Dims)
		})
	}
}

func TestDeterminism(t *testing.T) {
	a, err := Generate("tiny-qwen2.5-0.5b", Options{Seed: 7, Type: ggml.Q8_0})
	require.NoError(t, err)
	b, err := Generate("tiny-qwen2.5-0.5b", Options{Seed: 7, Type: ggml.Q8_0, Workers: 1})
	require.NoError(t, err)
	c, err := Generate("tiny-qwen2.5-0.5b", Options{Seed: 8, Type: ggml.Q8_0})
	require.NoError(t, err)
	ea, eb, ec := encode(t, a), encode(t, b), encode(t, c)
	assert.True(t, bytes.Equal(ea, eb), "same seed, different worker count: same bytes")
	assert.Equal(t, len(ea), len(ec))
	assert.False(t, bytes.Equal(ea, ec), "different seeds differ")

	// WriteFile streams the same bytes as Write(Generate).
	path := filepath.Join(t.TempDir(), "m.gguf")
	var calls int
	var last, total int64
	progress := func(done, all int64) {
		calls++
		assert.Greater(t, done, last, "progress grows")
		last, total = done, all
	}
	require.NoError(t, WriteFile(path, "tiny-qwen2.5-0.5b", Options{Seed: 7, Type: ggml.Q8_0, Workers: 3, Progress: progress}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(ea, got), "WriteFile equals Write(Generate)")
	var want int64
	for _, tn := range a.Tensors {
		want += int64(len(tn.Data))
	}
	assert.Greater(t, calls, 1)
	assert.Equal(t, want, total, "the total is the weights' bytes")
	assert.Equal(t, total, last, "progress ends at the total")
}

func encode(t *testing.T, m *gguf.Model) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, gguf.Write(&b, m))
	return b.Bytes()
}

// TestWeightStatistics checks the values are what the doc promises: small
// centred weights, norms near 1, after quantization too.
func TestWeightStatistics(t *testing.T) {
	for _, typ := range []ggml.DType{ggml.F32, ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q4_0, ggml.Q6_K} {
		f := writeOpen(t, "tiny-gemma3-270m", Options{Seed: 3, Type: typ})
		for _, name := range []string{"token_embd.weight", "blk.0.ffn_up.weight", "blk.2.attn_norm.weight", "blk.5.attn_k_norm.weight", "blk.1.post_ffw_norm.weight"} {
			ti, ok := f.Tensor(name)
			require.True(t, ok, name)
			vals := make([]float32, ti.Elements())
			require.NoError(t, ggml.Dequantize(ti.Type, f.TensorData(ti), vals), name)
			mean, std := meanStd(vals)
			if strings.Contains(name, "norm") {
				assert.Equal(t, ggml.F32, ti.Type)
				assert.InDelta(t, 1, mean, 0.01, "%s %s mean", typ, name)
				assert.InDelta(t, normStd, std, 0.006, "%s %s std", typ, name)
			} else {
				assert.Equal(t, fallback(typ, int(ti.Dims[0])), ti.Type)
				assert.InDelta(t, 0, mean, 0.002, "%s %s mean", typ, name)
				assert.InDelta(t, weightStd, std, 0.003, "%s %s std", typ, name)
			}
		}
	}
}

func meanStd(x []float32) (float64, float64) {
	var s, ss float64
	for _, v := range x {
		s += float64(v)
		ss += float64(v) * float64(v)
	}
	n := float64(len(x))
	mean := s / n
	return mean, math.Sqrt(ss/n - mean*mean)
}

func TestLlama3RopeFreqs(t *testing.T) {
	f := writeOpen(t, "tiny-llama3.2-1b", Options{Seed: 1})
	ti, ok := f.Tensor("rope_freqs.weight")
	require.True(t, ok)
	assert.Equal(t, []uint64{16}, ti.Dims)
	got := make([]float32, 16)
	require.NoError(t, ggml.Dequantize(ti.Type, f.TensorData(ti), got))
	s, err := Lookup("llama3.2-1b")
	require.NoError(t, err)
	full := llama3RopeFactors(float64(s.RopeBase), s.HeadDim, *s.Llama3Rope)
	require.Len(t, full, 32)
	// Llama 3.2 1B (head dim 64, θ 500000, factor 32, original context
	// 8192): high frequencies keep factor 1, low ones get 32, a smooth ramp
	// between, as in Meta's apply_scaling.
	assert.Equal(t, float32(1), full[0])
	assert.Equal(t, float32(32), full[31])
	for i := range full {
		wavelen := 2 * math.Pi * math.Pow(500000, float64(2*i)/64)
		switch {
		case wavelen < 8192/4.0:
			assert.Equal(t, float32(1), full[i], i)
		case wavelen > 8192:
			assert.Equal(t, float32(32), full[i], i)
		default:
			smooth := (8192/wavelen - 1) / 3
			assert.InDelta(t, 1/((1-smooth)/32+smooth), full[i], 1e-4, i)
		}
		if i > 0 {
			assert.GreaterOrEqual(t, full[i], full[i-1])
		}
	}
	tiny := llama3RopeFactors(500000, 32, *s.Llama3Rope)
	assert.Equal(t, tiny, got)
}

func TestSyntheticVocab(t *testing.T) {
	for _, shape := range tinyShapes() {
		f := writeOpen(t, shape, Options{})
		model, err := f.String("tokenizer.ggml.model")
		require.NoError(t, err)
		toks, err := f.Strings("tokenizer.ggml.tokens")
		require.NoError(t, err)
		require.Len(t, toks, 512, shape)
		types, err := f.Ints("tokenizer.ggml.token_type")
		require.NoError(t, err)
		require.Len(t, types, len(toks))
		ids := map[string]int{}
		for i, tok := range toks {
			_, dup := ids[tok]
			require.False(t, dup, "%s: duplicate token %q", shape, tok)
			ids[tok] = i
		}
		for _, key := range []string{"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"} {
			id, err := f.Int(key)
			require.NoError(t, err)
			require.Less(t, id, int64(len(toks)))
			assert.EqualValues(t, 3, types[id], "%s: %s is a control token", shape, key)
		}
		tmpl, err := f.String("tokenizer.chat_template")
		require.NoError(t, err)
		switch model {
		case "gpt2":
			merges, err := f.Strings("tokenizer.ggml.merges")
			require.NoError(t, err)
			require.NotEmpty(t, merges)
			for _, m := range merges {
				l, r, ok := strings.Cut(m, " ")
				require.True(t, ok, m)
				for _, part := range []string{l, r, l + r} {
					_, ok := ids[part]
					require.True(t, ok, "%s: merge %q: %q is not a token", shape, m, part)
				}
			}
			assert.Contains(t, tmpl, "<|", shape)
		case "llama":
			scores, err := f.Float32s("tokenizer.ggml.scores")
			require.NoError(t, err)
			require.Len(t, scores, len(toks))
			assert.Equal(t, 7, ids["<0x00>"])
			assert.Equal(t, 7+255, ids["<0xFF>"])
			assert.Contains(t, tmpl, "<start_of_turn>")
		default:
			t.Fatalf("%s: tokenizer model %q", shape, model)
		}
		for _, special := range []string{"<|im_start|>", "<|im_end|>", "<|start_header_id|>", "<|eot_id|>", "<start_of_turn>", "<end_of_turn>"} {
			if strings.Contains(tmpl, special) {
				_, ok := ids[special]
				assert.True(t, ok, "%s: template token %s is in the vocabulary", shape, special)
			}
		}
	}
}

func TestVocabFile(t *testing.T) {
	path := filepath.Join(vocabDir, "ggml-vocab-qwen2.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("vocab fixture absent: %v", err)
	}
	src, err := gguf.Open(path)
	require.NoError(t, err)
	defer src.Close()
	f := writeOpen(t, "tiny-qwen2.5-0.5b", Options{Seed: 1, Type: ggml.Q8_0, VocabFile: path})
	requireLlamaCppLoadable(t, f)
	n := 0
	for _, kv := range src.KV {
		if !strings.HasPrefix(kv.Key, "tokenizer.") {
			continue
		}
		n++
		got, ok := f.Lookup(kv.Key)
		require.True(t, ok, kv.Key)
		assert.Equal(t, kv.Value, got, kv.Key)
	}
	assert.Greater(t, n, 5)
	toks, err := src.Strings("tokenizer.ggml.tokens")
	require.NoError(t, err)
	ti, ok := f.Tensor("token_embd.weight")
	require.True(t, ok)
	assert.Equal(t, []uint64{224, uint64(len(toks))}, ti.Dims)
	arch, err := f.Architecture()
	require.NoError(t, err)
	assert.Equal(t, "qwen2", arch)
	emb, err := f.Int("qwen2.embedding_length")
	require.NoError(t, err)
	assert.EqualValues(t, 224, emb, "only tokenizer keys are copied")

	// --chat-template replaces the copied template.
	f2 := writeOpen(t, "tiny-qwen2.5-0.5b", Options{Type: ggml.Q4_0, VocabFile: path, ChatTemplate: "{{ tools }}"})
	tmpl, err := f2.String("tokenizer.chat_template")
	require.NoError(t, err)
	assert.Equal(t, "{{ tools }}", tmpl)
}

func TestTypePolicy(t *testing.T) {
	// llama-quantize's Q4_K_M of Qwen2.5-0.5B: rows of 896 are not a
	// multiple of 256, so Q4_K falls back to Q5_0 and Q6_K to Q8_0; only
	// ffn_down (rows of 4864) keeps K-quants.
	counts := typeCounts(t, "qwen2.5-0.5b", Options{Mix: "q4_k_m"})
	assert.Equal(t, map[ggml.DType]int{ggml.F32: 121, ggml.Q5_0: 132, ggml.Q8_0: 13, ggml.Q4_K: 12, ggml.Q6_K: 12}, counts)
	// Llama 3.2 1B Q4_K_M: tied embeddings are quantized like the output.
	counts = typeCounts(t, "llama3.2-1b", Options{Mix: "q4_k_m"})
	assert.Equal(t, map[ggml.DType]int{ggml.F32: 34, ggml.Q4_K: 96, ggml.Q6_K: 17}, counts)
	// A single type: every weight, with the fallback.
	counts = typeCounts(t, "smollm2-135m", Options{Type: ggml.Q4_K})
	assert.Equal(t, map[ggml.DType]int{ggml.F32: 61, ggml.Q5_0: 181, ggml.Q4_K: 30}, counts)
	counts = typeCounts(t, "qwen3-0.6b", Options{Type: ggml.Q8_0})
	assert.Equal(t, map[ggml.DType]int{ggml.F32: 113, ggml.Q8_0: 197}, counts)

	for _, tc := range []struct {
		in   string
		typ  ggml.DType
		mix  string
		fail bool
	}{
		{"f32", ggml.F32, "", false}, {"F16", ggml.F16, "", false}, {"bf16", ggml.BF16, "", false},
		{"q8_0", ggml.Q8_0, "", false}, {"Q4_K_M", ggml.Q4_K, "q4_k_m", false}, {"q6_k", ggml.Q6_K, "", false},
		{"q2_k", ggml.Q2_K, "q2_k", false}, {"IQ4_XS", ggml.IQ4_XS, "iq4_xs", false},
		{"q3_k", ggml.Q3_K, "", false}, {"mxfp4", ggml.MXFP4, "", false},
		{"iq2_xxs", 0, "", true}, {"nonsense", 0, "", true},
	} {
		typ, mix, err := ParseType(tc.in)
		if tc.fail {
			require.ErrorContains(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.typ, typ, tc.in)
		assert.Equal(t, tc.mix, mix, tc.in)
	}
}

func typeCounts(t *testing.T, shape string, opts Options) map[ggml.DType]int {
	t.Helper()
	s, err := Lookup(shape)
	require.NoError(t, err)
	pol, err := newTypePolicy(opts)
	require.NoError(t, err)
	infos, err := tensorInfos(s.archKV(s.NVocab, pol), s.tensors(s.NVocab), pol)
	require.NoError(t, err)
	counts := map[ggml.DType]int{}
	for _, ti := range infos {
		counts[ti.Type]++
	}
	return counts
}

func TestQuantizedTinyShapes(t *testing.T) {
	for _, shape := range tinyShapes() {
		for _, typ := range []string{"f16", "q8_0", "q4_0", "q4_k_m", "q5_k_s"} {
			dt, mix, err := ParseType(typ)
			require.NoError(t, err)
			f := writeOpen(t, shape, Options{Seed: 2, Type: dt, Mix: mix})
			requireLlamaCppLoadable(t, f)
			for _, ti := range f.Tensors {
				if len(ti.Dims) == 1 {
					assert.Equal(t, ggml.F32, ti.Type, ti.Name)
				}
				_, err := ti.Type.RowSize(int(ti.Dims[0]))
				require.NoError(t, err, "%s %s %s", shape, typ, ti.Name)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Generate("nope", Options{})
	require.ErrorContains(t, err, `unknown shape "nope"`)
	_, err = Generate("tiny-qwen3-0.6b", Options{Type: ggml.IQ2_XXS})
	require.ErrorContains(t, err, "IQ2_XXS")
	_, err = Generate("tiny-qwen3-0.6b", Options{Mix: "q3_k_xl"})
	require.ErrorContains(t, err, "q3_k_xl")
	_, err = Generate("tiny-qwen3-0.6b", Options{VocabFile: filepath.Join(dir, "missing.gguf")})
	require.ErrorContains(t, err, "missing.gguf")
	bad := filepath.Join(dir, "bad.gguf")
	require.NoError(t, os.WriteFile(bad, []byte("GGUF not really"), 0o644))
	_, err = Generate("tiny-qwen3-0.6b", Options{VocabFile: bad})
	require.ErrorContains(t, err, "bad.gguf")
	require.Error(t, WriteFile(filepath.Join(dir, "no", "such", "dir.gguf"), "tiny-qwen3-0.6b", Options{}))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "cancelled.gguf")
	err = WriteFileContext(ctx, out, "tiny-qwen3-0.6b", Options{})
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	_, statErr := os.Stat(out)
	assert.True(t, os.IsNotExist(statErr), "a failed write leaves no file")
	_, err = GenerateContext(ctx, "tiny-qwen3-0.6b", Options{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestTypeNamesParse(t *testing.T) {
	for _, n := range TypeNames() {
		_, _, err := ParseType(n)
		require.NoError(t, err, n)
	}
	assert.True(t, slices.Contains(TypeNames(), "q4_k_m"))
}
