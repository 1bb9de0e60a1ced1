package conversation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
)

type forecastIn struct {
	Location string `json:"location" description:"city name" enum:"Paris,Rome,Tokyo"`
	Days     int    `json:"days" description:"forecast days" enum:"1,3,7"`
}

// For every format a grammar can force, a random-weight model at
// temperature 1 writes, on every seed, a call that parses in that format
// and whose arguments validate against the tool's schema.
func TestForcedCallsEveryFormat(t *testing.T) {
	eng := testEngine(t, "")
	forecast := tools.Define("get_forecast", "Gets the forecast for a city", func(ctx context.Context, in forecastIn) (string, error) {
		return "sunny", nil
	})
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	forced := 0
	for _, name := range toolcall.Names() {
		f, err := toolcall.Lookup(name)
		require.NoError(t, err)
		if !toolcall.Forcible(f) {
			t.Logf("%s: no grammar", name)
			continue
		}
		forced++
		t.Run(name, func(t *testing.T) {
			// One conversation per format, reset between seeds, so the
			// prompt stays in the KV cache.
			c, err := New(context.Background(), eng, Config{ToolFormat: name, MaxTokens: 200})
			require.NoError(t, err)
			called := 0
			for seed := range seeds {
				c.Reset()
				r, err := c.SendMessage(context.Background(), UserText("forecast?"), WithTools(forecast),
					WithSampler(session.Sampler{Temperature: 1, Seed: uint64(seed) + 1}),
					WithToolChoice(ToolChoiceRequired), WithReturnToolRequests(), WithParallelToolCalls(seed%2 == 0))
				require.NoError(t, err)
				require.NoError(t, r.ToolCallErr, "seed %d", seed)
				if len(r.ToolCalls) == 0 && r.FinishReason == FinishLength && r.ReasoningContent != "" {
					// The grammar lets a family think before its call; a
					// random model rarely writes the closing marker.
					t.Logf("seed %d: the token limit cut the reasoning before the call", seed)
					continue
				}
				// Parallel replies may be cut by the token limit after
				// some calls; those calls are complete and kept.
				require.NotEmpty(t, r.ToolCalls, "seed %d (%s): %+v", seed, r.FinishReason, r.Added)
				called++
				for _, call := range r.ToolCalls {
					assert.Equal(t, "get_forecast", call.Name)
					_, err := forecast.RunRaw(context.Background(), call.Arguments)
					assert.NoError(t, err, "seed %d: arguments %s", seed, call.Arguments)
				}
			}
			assert.Positive(t, called, "no seed reached a call")
		})
	}
	assert.Greater(t, forced, 0)
}
