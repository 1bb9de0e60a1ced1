package session

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
)

// tokenRows returns the rows of token_embd.weight for ids: what the token
// lookup feeds the first layer.
func tokenRows(t *testing.T, eng *engine.Engine, ids ...int32) []float32 {
	t.Helper()
	ti, ok := eng.File().Tensor("token_embd.weight")
	require.True(t, ok)
	dim := int(ti.Dims[0])
	data := eng.File().TensorData(ti)
	rowBytes := len(data) / ti.Rows()
	out := make([]float32, len(ids)*dim)
	for i, id := range ids {
		require.NoError(t, ggml.DequantizeRow(ti.Type, data[int(id)*rowBytes:(int(id)+1)*rowBytes], out[i*dim:(i+1)*dim]))
	}
	return out
}

// randomRows returns n rows of the model's width, seeded.
func randomRows(eng *engine.Engine, n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, n*eng.Model().Params().Dim)
	for i := range out {
		out[i] = float32(r.NormFloat64()) * 0.1
	}
	return out
}

// TestPrefillEmbeddingsIsTheTokenLookup: rows of embeddings enter where the
// token lookup's output would, so prefilling the token_embd rows of two
// prompt tokens as a media chunk gives the logits of prefilling the
// tokens, and llama.cpp's greedy continuation (fixtures README).
func TestPrefillEmbeddingsIsTheTokenLookup(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	ctx := context.Background()
	ref := newPrefilled(t, eng, prompt)

	s, err := New(eng, Config{BatchSize: 4})
	require.NoError(t, err)
	rows := tokenRows(t, eng, prompt[2:4]...)
	require.NoError(t, s.PrefillPrompt(ctx, Prompt{
		{Tokens: prompt[:2]},
		{Embeddings: rows, N: 2, Key: 7},
		{Tokens: prompt[4:]},
	}))
	assert.Equal(t, []int32{1, 403, MediaToken, MediaToken, 378}, s.Tokens())
	assert.InDeltaSlice(t, ref.Logits(), s.Logits(), 1e-5)
	assert.Equal(t, greedy[:16], collect(t, s, GenerateOptions{MaxTokens: 16}))
}

// TestMediaChunkIsOneUnit: Common matches a media chunk whole by its key
// and length, Rewind into it removes it whole, the logits after it are
// computed again from the kept rows, and Clone keeps it.
func TestMediaChunkIsOneUnit(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	ctx := context.Background()
	rows := randomRows(eng, 5, 1)
	p := Prompt{{Tokens: prompt[:3]}, {Embeddings: rows, N: 5, Key: 42}}
	s, err := New(eng, Config{BatchSize: 4}) // the chunk runs in two batches
	require.NoError(t, err)
	require.NoError(t, s.PrefillPrompt(ctx, p))
	after := append([]float32(nil), s.Logits()...)
	assert.Equal(t, 8, s.TokenCount())
	assert.Equal(t, p.Tokens(), s.Tokens())

	more := append(p[:2:2], Chunk{Tokens: greedy[:4]})
	require.NoError(t, s.Prefill(ctx, greedy[:4]))
	assert.Equal(t, 12, s.Common(more), "the whole prompt")
	assert.Equal(t, 3, s.Common(Prompt{{Tokens: prompt[:3]}, {Embeddings: rows, N: 5, Key: 43}}), "another key")
	assert.Equal(t, 3, s.Common(Prompt{{Tokens: prompt[:3]}, {Embeddings: rows[:4*len(rows)/5], N: 4, Key: 42}}), "another length")
	assert.Equal(t, 2, s.Common(Prompt{{Tokens: prompt[:2]}, {Embeddings: rows, N: 5, Key: 42}}), "another position")
	assert.Equal(t, 3, s.Common(TokenPrompt(append(prompt[:3:3], MediaToken, MediaToken))), "MediaToken is no token")
	assert.Equal(t, more[2:], more.From(8))
	assert.Equal(t, more[1:], more.From(3))

	c, err := s.Clone()
	require.NoError(t, err)
	assert.Equal(t, 12, c.Common(more))

	// Back to the end of the chunk: its last row runs again.
	require.NoError(t, s.Rewind(4))
	assert.InDeltaSlice(t, after, s.Logits(), 1e-5)
	// Into the chunk: all of it goes.
	require.NoError(t, s.Rewind(2))
	assert.Equal(t, 3, s.TokenCount())
	assert.Equal(t, prompt[:3], s.Tokens())
	assert.Equal(t, 3, s.Common(more))
	require.NoError(t, s.PrefillPrompt(ctx, more.From(3)))
	assert.Equal(t, 12, s.Common(more))
	// The clone continues as the original did.
	assert.InDeltaSlice(t, c.Logits(), s.Logits(), 1e-5)
}

func TestPrefillEmbeddingsBadInput(t *testing.T) {
	eng := openStories(t, engine.Settings{ContextLength: 16})
	ctx := context.Background()
	dim := eng.Model().Params().Dim
	s := newPrefilled(t, eng, prompt)
	rows := randomRows(eng, 3, 2)

	assert.ErrorContains(t, s.PrefillEmbeddings(ctx, Chunk{Embeddings: rows, N: 0, Key: 1}), "media chunk of 0 embedding rows")
	assert.ErrorContains(t, s.PrefillEmbeddings(ctx, Chunk{Embeddings: rows[:len(rows)-1], N: 3, Key: 1}),
		"is not 3 rows of the model's width")
	bad := append([]float32(nil), rows...)
	bad[dim+5] = float32(math.NaN())
	assert.EqualError(t, s.PrefillEmbeddings(ctx, Chunk{Embeddings: bad, N: 3, Key: 1}), "session: media chunk embedding row 1, column 5 is NaN")
	err := s.PrefillEmbeddings(ctx, Chunk{Embeddings: randomRows(eng, 12, 3), N: 12, Key: 1})
	assert.True(t, errors.Is(err, ErrContextFull), "%v", err)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, s.PrefillEmbeddings(cancelled, Chunk{Embeddings: rows, N: 3, Key: 1}), context.Canceled)
	assert.Equal(t, prompt, s.Tokens(), "no failed chunk is kept")
	assert.Equal(t, len(prompt), s.Common(Prompt{{Tokens: prompt}, {Embeddings: rows, N: 3, Key: 1}}))
	require.NoError(t, s.PrefillEmbeddings(ctx, Chunk{Embeddings: rows, N: 3, Key: 1}))
	assert.Equal(t, len(prompt)+3, s.TokenCount())
}

// TestNonCausalMediaChunk: a NonCausal chunk runs as one batch with
// models.Input.NonCausal, so its logits are the model's own for that
// batch, not the causal chunk's; Logits after a Rewind to its end (which
// runs the last row again, alone: it sees what it saw in the batch) are
// the same, and a chunk larger than the batch size is refused before
// anything is prefilled.
func TestNonCausalMediaChunk(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	ctx := context.Background()
	m := eng.Model()
	rows := randomRows(eng, 5, 4)

	// the reference: the model itself, the prompt then the rows as one
	// non-causal call
	st, err := models.NewState(m, 64, 8, ggml.F32)
	require.NoError(t, err)
	want := make([]float32, m.Params().VocabSize)
	m.Forward(st, models.Tokens(prompt[:3]), want)
	m.Forward(st, models.Input{Embeddings: rows, Dim: m.Params().Dim, NonCausal: true}, want)

	run := func(nonCausal bool) *Session {
		s, err := New(eng, Config{BatchSize: 8})
		require.NoError(t, err)
		require.NoError(t, s.PrefillPrompt(ctx, Prompt{{Tokens: prompt[:3]}, {Embeddings: rows, N: 5, Key: 9, NonCausal: nonCausal}}))
		return s
	}
	s := run(true)
	assert.InDeltaSlice(t, want, s.Logits(), 1e-5)
	causal := run(false).Logits()
	assert.Greater(t, maxDiff(causal, want), float32(1e-3), "the mask matters")

	require.NoError(t, s.Prefill(ctx, greedy[:2]))
	require.NoError(t, s.Rewind(2))
	assert.InDeltaSlice(t, want, s.Logits(), 1e-5, "the last row run again")

	s, err = New(eng, Config{BatchSize: 4})
	require.NoError(t, err)
	err = s.PrefillEmbeddings(ctx, Chunk{Embeddings: rows, N: 5, Key: 9, NonCausal: true})
	assert.EqualError(t, err, "session: a non-causal media chunk of 5 rows is decoded as one batch, larger than the batch size 4: raise session.Config.BatchSize to at least 5")
	assert.Equal(t, 0, s.TokenCount())
}

func maxDiff(a, b []float32) float32 {
	var d float32
	for i := range a {
		d = max(d, abs32(a[i]-b[i]))
	}
	return d
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
