package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
)

// stateShapes are the synthetic models the rewind and clone checks run on:
// a plain transformer, whose KV cache is cut where asked, and the hybrid
// architectures, whose conv and recurrent states go back to a checkpoint
// and are re-fed (skipped while synth or models lack them).
var stateShapes = []string{"tiny-qwen3-0.6b", "tiny-lfm2-350m", "tiny-qwen3.5-0.8b"}

func openSynth(t *testing.T, shape string) *engine.Engine {
	t.Helper()
	if _, err := synth.Lookup(shape); err != nil {
		t.Skipf("synth has no shape %s yet", shape)
	}
	path := filepath.Join(t.TempDir(), shape+".gguf")
	require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1, Type: ggml.F32}))
	eng, err := engine.Open(context.Background(), path, engine.Settings{Backend: engine.CPUGo, Threads: 1, ContextLength: 128})
	var unsupported *models.UnsupportedError
	if errors.As(err, &unsupported) {
		t.Skipf("models has no architecture for %s yet", shape)
	}
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestRewindCloneEqualFresh checks that, on every kind of layer state,
// a session rewound (to before, between and after its checkpoints) or
// cloned and continued gives the logits of a fresh session of the same
// tokens.
func TestRewindCloneEqualFresh(t *testing.T) {
	ctx := context.Background()
	for _, shape := range stateShapes {
		t.Run(shape, func(t *testing.T) {
			eng := openSynth(t, shape)
			vocab := eng.Info().VocabSize
			ids := make([]int32, 48)
			for i := range ids {
				ids[i] = int32((i*7919 + 13) % vocab)
			}
			other := []int32{5, 6, 7, 8, 9}
			cfg := Config{BatchSize: 8, CheckpointEvery: 16, MaxCheckpoints: 2}
			fresh := func(toks ...[]int32) []float32 {
				s, err := New(eng, cfg)
				require.NoError(t, err)
				var all []int32
				for _, ts := range toks {
					all = append(all, ts...)
				}
				require.NoError(t, s.Prefill(ctx, all))
				return s.Logits()
			}
			near := func(want, got []float32, what string) {
				t.Helper()
				require.Len(t, got, len(want), what)
				d := 0.0
				for i := range want {
					d = math.Max(d, math.Abs(float64(want[i]-got[i])))
				}
				require.LessOrEqual(t, d, 1e-4, "%s: max |Δlogit| %g", what, d)
			}

			s, err := New(eng, cfg)
			require.NoError(t, err)
			require.NoError(t, s.Prefill(ctx, ids[:20])) // a turn: checkpoint at 20 (and one past 16)
			require.NoError(t, s.Append(ctx, ids[20:30]))
			near(fresh(ids[:30]), s.Logits(), "logits after Append")
			for _, keep := range []int{27, 21, 20, 12} {
				require.NoError(t, s.Rewind(s.TokenCount()-keep))
				require.Equal(t, keep, s.TokenCount())
				near(fresh(ids[:keep]), s.Logits(), fmt.Sprintf("rewound to %d", keep))
				require.NoError(t, s.Prefill(ctx, ids[keep:keep+5]))
				near(fresh(ids[:keep+5]), s.Logits(), fmt.Sprintf("rewound to %d and re-fed", keep))
			}

			// Rewind then Prefill: the tokens after the checkpoint run with the new ones
			require.NoError(t, s.Rewind(s.TokenCount()-14))
			require.NoError(t, s.Prefill(ctx, ids[14:40]))
			near(fresh(ids[:40]), s.Logits(), "rewind then prefill")

			c, err := s.Clone()
			require.NoError(t, err)
			require.NoError(t, s.Prefill(ctx, other))
			require.NoError(t, c.Prefill(ctx, ids[40:]))
			near(fresh(ids), c.Logits(), "clone")
			near(fresh(ids[:40], other), s.Logits(), "original after clone")
			require.NoError(t, c.Rewind(10))
			near(fresh(ids[:38]), c.Logits(), "clone rewound")
		})
	}
}
