package session

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/gguf"
)

// nanStories writes stories260K with one NaN in blk.2.ffn_down.weight.
func nanStories(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	f, err := gguf.Open(stories)
	require.NoError(t, err)
	defer f.Close()
	m := f.Model()
	found := false
	for i := range m.Tensors {
		if tn := &m.Tensors[i]; tn.Info.Name == "blk.2.ffn_down.weight" {
			tn.Data = append([]byte(nil), tn.Data...)
			binary.LittleEndian.PutUint32(tn.Data[4*(5*172+7):], math.Float32bits(float32(math.NaN())))
			found = true
		}
	}
	require.True(t, found)
	path := filepath.Join(t.TempDir(), "nan.gguf")
	out, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, gguf.Write(out, m))
	require.NoError(t, out.Close())
	return path
}

// TestNaNWeightsNamed: a model with a NaN weight once failed generation
// with "no token is allowed: the constraint or penalties masked every
// logit"; now prefill, lazy logits and generation name the block.
func TestNaNWeightsNamed(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, nanStories(t), engine.Settings{Backend: engine.CPUGo, Threads: 2, ContextLength: 64})
	require.NoError(t, err)
	defer eng.Close()
	const want = "the forward pass produced NaN first in the output of blk.2 feed-forward (position 4)"

	s, err := New(eng, Config{BatchSize: 4})
	require.NoError(t, err)
	err = s.Prefill(ctx, prompt)
	require.ErrorContains(t, err, want)
	var nf *models.NonFiniteError
	require.True(t, errors.As(err, &nf))
	assert.Equal(t, 2, nf.Layer)
	assert.Equal(t, 4, s.TokenCount(), "the batches before the failing one are kept")

	// Append computes no logits, so it succeeds; Generate then needs them.
	s2, err := New(eng, Config{})
	require.NoError(t, err)
	require.NoError(t, s2.Append(ctx, prompt))
	n := 0
	for _, err := range s2.Generate(ctx, GenerateOptions{MaxTokens: 4}) {
		require.ErrorContains(t, err, want)
		assert.NotContains(t, err.Error(), "no token is allowed")
		n++
	}
	assert.Equal(t, 1, n, "one error, no tokens")
	assert.Equal(t, len(prompt), s2.TokenCount())
	assert.Nil(t, s2.Logits())
}
