package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/engine"
)

// TestStats checks that a session counts its prefilled and decoded tokens
// apart, with their times and rates, on stories260K: Prefill and Append
// count as prefill (so does the last token run again for logits after an
// Append), Generate's tokens as decode, and a Clone starts at zero.
func TestStats(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	s, err := New(eng, Config{BatchSize: 2})
	require.NoError(t, err)
	assert.Equal(t, Stats{}, s.Stats())
	assert.Zero(t, s.Stats().PrefillTokensPerSecond())

	require.NoError(t, s.Prefill(context.Background(), prompt))
	st := s.Stats()
	assert.Equal(t, len(prompt), st.PrefillTokens)
	assert.Positive(t, st.PrefillTime)
	assert.Zero(t, st.DecodeTokens)
	assert.InEpsilon(t, float64(len(prompt))/st.PrefillTime.Seconds(), st.PrefillTokensPerSecond(), 1e-9)

	got := collect(t, s, GenerateOptions{MaxTokens: 6})
	require.Equal(t, greedy[:6], got)
	st = s.Stats()
	assert.Equal(t, len(prompt), st.PrefillTokens)
	assert.Equal(t, 6, st.DecodeTokens, "one forward pass per generated token")
	assert.Positive(t, st.DecodeTime)
	assert.InEpsilon(t, 6/st.DecodeTime.Seconds(), st.DecodeTokensPerSecond(), 1e-9)

	c, err := s.Clone()
	require.NoError(t, err)
	assert.Equal(t, Stats{}, c.Stats())

	require.NoError(t, s.Append(context.Background(), greedy[6:8]))
	require.NotNil(t, s.Logits())
	require.NoError(t, s.Decode(context.Background(), greedy[8]))
	st = s.Stats()
	assert.Equal(t, len(prompt)+3, st.PrefillTokens, "2 appended, then the last one again for its logits")
	assert.Equal(t, 7, st.DecodeTokens)
}
