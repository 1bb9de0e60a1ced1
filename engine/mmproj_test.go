package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
)

// TestMMProj opens an mmproj beside a model: its encoder is the engine's;
// one whose embeddings are not the model's width, a file that is no
// mmproj and a missing file are refused when the engine opens, naming
// the file and the widths.
func TestMMProj(t *testing.T) {
	dir := t.TempDir()
	gemma, smol := filepath.Join(dir, "gemma.gguf"), filepath.Join(dir, "smol.gguf")
	mmproj := filepath.Join(dir, "gemma3-mmproj.gguf")
	require.NoError(t, synth.WriteFile(gemma, "tiny-gemma3-270m", synth.Options{Seed: 1}))
	require.NoError(t, synth.WriteFile(smol, "tiny-smollm2-135m", synth.Options{Seed: 1}))
	require.NoError(t, synth.WriteMMProj(mmproj, "gemma3", 1, ggml.F32))
	ctx := context.Background()

	eng, err := Open(ctx, gemma, Settings{Backend: CPUGo, MMProj: mmproj})
	require.NoError(t, err)
	require.NotNil(t, eng.Encoder())
	assert.True(t, eng.Encoder().Vision())
	assert.Equal(t, eng.Model().Params().Dim, eng.Encoder().EmbeddingDim())
	require.NoError(t, eng.Close())

	plain, err := Open(ctx, gemma, Settings{Backend: CPUGo})
	require.NoError(t, err)
	assert.Nil(t, plain.Encoder())
	require.NoError(t, plain.Close())

	for _, tc := range []struct {
		model, mmproj, want string
	}{
		{smol, mmproj, "gemma3-mmproj.gguf: encoder: gemma3 projector gives 128-wide embeddings but the language model's width is 192"},
		{gemma, smol, `smol.gguf: encoder: general.architecture is "llama", not an mmproj`},
		{gemma, filepath.Join(dir, "absent.gguf"), "absent.gguf"},
	} {
		_, err := Open(ctx, tc.model, Settings{Backend: CPUGo, MMProj: tc.mmproj})
		assert.ErrorContains(t, err, tc.want)
	}
}
