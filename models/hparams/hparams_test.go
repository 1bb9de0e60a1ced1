package hparams_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/hparams"
)

// parse writes kv as a GGUF file without tensors and parses it.
func parse(t *testing.T, kv []gguf.KV) *gguf.File {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, gguf.Write(&buf, &gguf.Model{KV: kv}))
	f, err := gguf.Parse(buf.Bytes())
	require.NoError(t, err)
	return f
}

// TestRoundTrip checks that the writer and the reader share one table:
// for every synthetic shape, Read of the keys Params.KV writes returns the
// Params the shape describes.
func TestRoundTrip(t *testing.T) {
	for _, name := range synth.Shapes() {
		s, err := synth.Lookup(name)
		require.NoError(t, err)
		want := s.Params(s.NVocab)
		got, err := hparams.Read(parse(t, want.KV()))
		require.NoError(t, err, name)
		want.VocabSize = 0 // from token_embd.weight, which parse's file lacks
		assert.Equal(t, want, got, name)
	}
}

// TestDefaults checks the defaults of absent keys against llama.cpp's
// (llama-hparams.h, llama_model::load_hparams and each architecture's
// load_arch_hparams).
func TestDefaults(t *testing.T) {
	base := func(arch string, extra ...gguf.KV) []gguf.KV {
		return append([]gguf.KV{
			{Key: "general.architecture", Value: gguf.String(arch)},
			{Key: arch + ".context_length", Value: gguf.Uint32(2048)},
			{Key: arch + ".embedding_length", Value: gguf.Uint32(256)},
			{Key: arch + ".feed_forward_length", Value: gguf.Int32s([]int32{512, 512, 512, 512, 512, 512})},
			{Key: arch + ".block_count", Value: gguf.Uint32(6)},
			{Key: arch + ".attention.head_count", Value: gguf.Uint32(8)},
		}, extra...)
	}
	p, err := hparams.Read(parse(t, base("llama")))
	require.NoError(t, err)
	assert.Equal(t, hparams.Params{Arch: "llama", Dim: 256, HiddenDim: 512, NLayers: 6, NHeads: 8, NKVHeads: 8,
		HeadDim: 32, ValueDim: 32, CtxLen: 2048, NormEps: 1e-5, RopeDim: 32, RopeBase: 10000, RopeOrigCtx: 2048,
		RopeAttnFactor: 1}, p)

	// gemma2: a window of 4096 on layers 0, 2, 4; gemma3: layers 0-4 of
	// every 6, local base 10000.
	p, err = hparams.Read(parse(t, base("gemma2", gguf.KV{Key: "gemma2.rope.freq_base", Value: gguf.Float32(1e6)})))
	require.NoError(t, err)
	assert.Equal(t, [3]any{4096, 2, 1e6}, [3]any{p.Window, p.SWAPeriod, p.RopeBaseSWA})
	assert.Equal(t, []bool{true, false, true, false, true, false}, locals(p))
	p, err = hparams.Read(parse(t, base("gemma3", gguf.KV{Key: "gemma3.attention.sliding_window", Value: gguf.Uint32(512)})))
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true, true, true, true, false}, locals(p))
	assert.Equal(t, 10000.0, p.RopeBaseSWA)
	// a pattern of one bool per layer
	p, err = hparams.Read(parse(t, base("gemma3", gguf.KV{Key: "gemma3.attention.sliding_window", Value: gguf.Uint32(512)},
		gguf.KV{Key: "gemma3.attention.sliding_window_pattern", Value: gguf.Value{Type: gguf.TypeArray, Elem: gguf.TypeBool,
			Data: []bool{false, true, false, true, false, true}}})))
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, false, true, false, true}, locals(p))
	// smollm3: no RoPE in layers 3, 7, …, whatever the file says
	p, err = hparams.Read(parse(t, base("smollm3")))
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, false, true, false, false}, []bool{p.NoRoPE(0), p.NoRoPE(1), p.NoRoPE(2), p.NoRoPE(3), p.NoRoPE(4), p.NoRoPE(5)})
	// LFM2's per-layer KV heads: 0 for the convolution layers
	p, err = hparams.Read(parse(t, base("lfm2", gguf.KV{Key: "lfm2.attention.head_count_kv", Value: gguf.Int32s([]int32{0, 0, 2, 0, 2, 0})})))
	require.NoError(t, err)
	assert.Equal(t, 2, p.NKVHeads)
	// granite: logit_scale is required
	_, err = hparams.Read(parse(t, base("granite")))
	require.ErrorContains(t, err, `key "granite.logit_scale" missing`)
	assert.True(t, hparams.Incomplete(err))
}

func locals(p hparams.Params) []bool {
	out := make([]bool, p.NLayers)
	for il := range out {
		out[il] = p.IsLocal(il)
	}
	return out
}

// TestReadErrors checks that a bad key is reported by name, with every
// problem of the file.
func TestReadErrors(t *testing.T) {
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("qwen3moe")},
		{Key: "qwen3moe.context_length", Value: gguf.String("long")},
		{Key: "qwen3moe.embedding_length", Value: gguf.Uint32(0)},
		{Key: "qwen3moe.attention.head_count", Value: gguf.Int32s([]int32{8, 8, 4})},
		{Key: "qwen3moe.rope.freq_base", Value: gguf.Float32(-1)},
		{Key: "qwen3moe.expert_count", Value: gguf.Uint32(8)},
	}
	_, err := hparams.Read(parse(t, kv))
	for _, want := range []string{
		`key "qwen3moe.context_length" is string, want integer`,
		`key "qwen3moe.embedding_length" is 0, want a positive count`,
		`key "qwen3moe.feed_forward_length" missing`,
		`key "qwen3moe.attention.head_count" varies per layer (8 in layer 0, 4 in layer 2)`,
		`key "qwen3moe.rope.freq_base" is -1, want a finite number above 0`,
	} {
		assert.ErrorContains(t, err, want)
	}
	assert.False(t, hparams.Incomplete(err))
	_, err = hparams.Read(parse(t, nil))
	require.ErrorContains(t, err, `"general.architecture" missing`)
}

// FuzzRead checks, on any file gguf.Parse accepts, that Read reports
// problems as errors (no panic) and that what it reads round-trips: Read of
// the keys Params.KV writes returns the same Params.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"tiny-gemma2-2b", "tiny-gpt-oss-20b", "tiny-granite3.3-2b", "tiny-exaone4-32b", "tiny-smollm3-3b"} {
		s, err := synth.Lookup(name)
		require.NoError(f, err)
		p := s.Params(s.NVocab)
		var buf bytes.Buffer
		require.NoError(f, gguf.Write(&buf, &gguf.Model{KV: p.KV()}))
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gf, err := gguf.Parse(data)
		if err != nil {
			return
		}
		p, err := hparams.Read(gf)
		if err != nil {
			return
		}
		p.VocabSize = 0
		got, err := hparams.Read(parse(t, p.KV()))
		require.NoError(t, err)
		require.Equal(t, p, got)
	})
}
