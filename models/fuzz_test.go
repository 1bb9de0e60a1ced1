package models

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// FuzzLoadParams edits the hyper-parameter keys of tiny synthetic models:
// Load either fails with an error or gives a model whose Forward runs. It
// never panics, and never allocates for a layer count the file cannot hold.
func FuzzLoadParams(f *testing.F) {
	files := map[bool][]byte{}
	for _, gemma := range []bool{false, true} {
		shape := "tiny-qwen3-0.6b"
		if gemma {
			shape = "tiny-gemma3-270m"
		}
		src, err := gguf.Open(writeTiny(f, shape, ggml.F32))
		require.NoError(f, err)
		var buf bytes.Buffer
		require.NoError(f, gguf.Write(&buf, src.Model()))
		src.Close()
		files[gemma] = buf.Bytes()
	}
	f.Add(false, uint32(4), uint32(4), uint32(2), uint32(16), uint32(16), uint32(0))
	f.Add(true, uint32(2), uint32(4), uint32(1), uint32(1<<30), uint32(7), uint32(3))
	f.Add(false, uint32(1<<31), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0))
	f.Add(true, uint32(4_000_000_000), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, gemma bool, blocks, heads, kvHeads, keyLen, ropeDim, window uint32) {
		src, err := gguf.Parse(files[gemma])
		require.NoError(t, err)
		m := src.Model()
		arch, err := src.Architecture()
		require.NoError(t, err)
		for k, v := range map[string]uint32{
			"block_count": blocks, "attention.head_count": heads, "attention.head_count_kv": kvHeads,
			"attention.key_length": keyLen, "attention.value_length": keyLen,
			"rope.dimension_count": ropeDim, "attention.sliding_window": window,
		} {
			if v != 0 {
				m.Set(arch+"."+k, gguf.Uint32(v))
			}
		}
		var buf bytes.Buffer
		require.NoError(t, gguf.Write(&buf, m))
		file, err := gguf.Parse(buf.Bytes())
		require.NoError(t, err)
		b := native.NewGo(1)
		defer b.Close()
		model, err := Load(file, b)
		if err != nil {
			return
		}
		p := model.Params()
		st, err := NewState(p, 8, 4, ggml.F32)
		require.NoError(t, err)
		logits := make([]float32, p.VocabSize)
		model.Forward(st, []int32{1, 2, 3}, logits)
		model.Forward(st, []int32{4}, logits)
	})
}
