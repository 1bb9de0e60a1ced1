package models

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// shapeModel is a Model of given hyper-parameters and layer caches (nil:
// the default layout) whose Forward does nothing but advance the State:
// for tests of the State alone.
type shapeModel struct {
	p      Params
	caches []LayerCache
	b      native.Backend
}

func (m shapeModel) Params() Params          { return m.p }
func (m shapeModel) Backend() native.Backend { return m.b }
func (m shapeModel) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	s.advance(in.Len())
}

// cachedModel is shapeModel with its own layer caches.
type cachedModel struct{ shapeModel }

func (m cachedModel) Caches() []LayerCache { return m.caches }

func TestStateLayout(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	p := Params{NLayers: 4, NKVHeads: 2, HeadDim: 4, Dim: 8, VocabSize: 10}
	m := cachedModel{shapeModel{b: b, p: p, caches: []LayerCache{
		{KVWidth: 8, SharedKV: -1},
		{Conv: 6, SharedKV: -1},
		{KVWidth: 16, SharedKV: -1},
		{SharedKV: 2, Recurrent: 5},
	}}}
	st, err := NewState(m, 8, 4, ggml.F32)
	require.NoError(t, err)
	require.Equal(t, 8, st.KV(0).Width())
	require.Nil(t, st.KV(1))
	require.Equal(t, 16, st.KV(2).Width())
	require.Same(t, st.KV(2), st.KV(3), "layer 3 reads layer 2's cache")
	require.Len(t, st.Conv(1), 6)
	require.Nil(t, st.Conv(0))
	require.Len(t, st.Recurrent(3), 5)
	require.Equal(t, 4*(6+5), st.CheckpointBytes())
	require.Equal(t, 2*4*8*(8+16)+4*(6+5), st.Bytes())

	buf := st.Buffer(100, 7)
	require.Len(t, buf, 7)
	buf[0] = 1
	require.Equal(t, float32(1), st.Buffer(100, 3)[0], "a buffer is reused")
	require.Len(t, st.Buffer(100, 20), 20)

	for _, bad := range [][]LayerCache{
		{{KVWidth: 8, SharedKV: -1}, {SharedKV: 0}, {SharedKV: 1}, {SharedKV: -1}}, // shares a shared cache
		{{SharedKV: 1}, {SharedKV: -1}, {SharedKV: -1}, {SharedKV: -1}},            // shares a cache that does not exist
		{{SharedKV: 4}, {SharedKV: -1}, {SharedKV: -1}, {SharedKV: -1}},            // … of a layer that does not exist
		{{KVWidth: 8, SharedKV: 0}, {SharedKV: -1}, {SharedKV: -1}, {SharedKV: -1}},
		{{KVWidth: 8, KeyWidth: 4, SharedKV: -1}, {SharedKV: -1}, {SharedKV: -1}, {SharedKV: -1}},
		{{SharedKV: -1}},
	} {
		_, err := NewState(cachedModel{shapeModel{b: b, p: p, caches: bad}}, 8, 4, ggml.F32)
		require.Error(t, err, "%+v", bad)
	}
}

func TestInputCheck(t *testing.T) {
	p := Params{Dim: 4, VocabSize: 10}
	require.NoError(t, Tokens([]int32{0, 9}).Check(p))
	require.Equal(t, 2, Tokens([]int32{0, 9}).Len())
	require.NoError(t, Embeds(make([]float32, 8), 4).Check(p))
	require.Equal(t, 2, Embeds(make([]float32, 8), 4).Len())
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Tokens([]int32{10}), "token 10 at batch index 0"},
		{Tokens([]int32{}), "no tokens"},
		{Input{}, "neither tokens nor embeddings"},
		{Input{Tokens: []int32{1}, Embeddings: make([]float32, 4), Dim: 4}, "both"},
		{Embeds(make([]float32, 6), 4), "not whole rows of 4"},
		{Input{Embeddings: make([]float32, 8)}, "rows of 0"},
	} {
		require.ErrorContains(t, tc.in.Check(p), tc.want)
	}
}

// TestInputEmbeddings feeds every architecture its own token-embedding
// rows as Input.Embeddings and checks that the logits are those of the
// tokens, bit for bit, on both backends: the input enters where the
// lookup's output does. Gemma scales token rows by √Dim and embeddings not
// at all (llama.cpp build_inp_embd scales only ubatch.token), so its
// equivalent input is the rows × √Dim, and the raw rows give other logits.
func TestInputEmbeddings(t *testing.T) {
	shapes := []string{"tiny-llama3.2-1b", "tiny-qwen3-0.6b", "tiny-gemma3-270m", "tiny-gemma2-2b", "tiny-granite3.3-2b",
		"tiny-olmo2-1b", "tiny-phi4-mini", "tiny-gpt-oss-20b", "tiny-qwen3moe-30b-a3b", "tiny-smollm3-3b", "tiny-exaone4-1.2b"}
	for _, shape := range shapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.Q8_0)
			for _, b := range llamaCppBackends(t) {
				m := openModel(t, path, b)
				p := m.Params()
				ids := testTokens(12, p.VocabSize)
				fwd := func(in ...Input) []float32 {
					st, err := NewState(m, 32, 16, ggml.F32)
					require.NoError(t, err)
					logits := make([]float32, p.VocabSize)
					for _, x := range in {
						m.Forward(st, x, logits)
					}
					return logits
				}
				rows := func(ids []int32, c float32) Input {
					w := m.(interface{ embedding() native.Weight }).embedding()
					e := make([]float32, len(ids)*p.Dim)
					for i, id := range ids {
						rs := w.RowBytes()
						row := e[i*p.Dim : (i+1)*p.Dim]
						require.NoError(t, ggml.DequantizeRow(w.Type, w.Data[int(id)*rs:(int(id)+1)*rs], row))
						scale(row, c)
					}
					return Embeds(e, p.Dim)
				}
				c := float32(1)
				if p.Arch == "gemma2" || p.Arch == "gemma3" {
					c = float32(math.Sqrt(float64(p.Dim)))
				}
				want := fwd(Tokens(ids[:8]), Tokens(ids[8:]))
				require.Equal(t, want, fwd(rows(ids[:8], c), rows(ids[8:], c)), "%s: embeddings then embeddings", b.Name())
				require.Equal(t, want, fwd(Tokens(ids[:8]), rows(ids[8:], c)), "%s: tokens then embeddings", b.Name())
				if c != 1 {
					require.NotEqual(t, want, fwd(rows(ids[:8], 1), rows(ids[8:], 1)), "%s: embeddings are not scaled", b.Name())
				}
			}
		})
	}
}
