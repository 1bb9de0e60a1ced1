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
	if testing.Short() || raceEnabled {
		seeds = 2
	}
	forced, total, reached := 0, 0, 0
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
			c, err := New(context.Background(), eng, Config{ToolFormat: name, MaxTokens: 600})
			require.NoError(t, err)
			called := 0
			for seed := range seeds {
				c.Reset()
				r, err := c.SendMessage(context.Background(), UserText("forecast?"), WithTools(forecast),
					WithSampler(session.Sampler{Temperature: 1, Seed: uint64(seed) + 1}),
					WithToolChoice(ToolChoiceRequired), WithReturnToolRequests(), WithParallelToolCalls(seed%5 == 1))
				require.NoError(t, err)
				require.NoError(t, r.ToolCallErr, "seed %d", seed)
				total++
				if len(r.ToolCalls) == 0 && r.FinishReason == FinishLength {
					// Families that may think before a call (or whose
					// prompt may open the reasoning) let the grammar write
					// reasoning first; a random model rarely closes it.
					t.Logf("seed %d: the token limit cut the reasoning before the call", seed)
					continue
				}
				// Parallel replies may be cut by the token limit after
				// some calls; those calls are complete and kept.
				require.NotEmpty(t, r.ToolCalls, "seed %d (%s): %+v", seed, r.FinishReason, r.Added)
				called++
				reached++
				for _, call := range r.ToolCalls {
					assert.Equal(t, "get_forecast", call.Name)
					_, err := forecast.RunRaw(context.Background(), call.Arguments)
					assert.NoError(t, err, "seed %d: arguments %s", seed, call.Arguments)
				}
			}
			if called == 0 {
				// command-r7b, hy3 and kimi-k3 read reasoning their prompt
				// may open, so their grammars allow bare reasoning before
				// the call; a random model seldom closes it.
				t.Logf("%s: no seed reached the call within the budget", name)
			}
		})
	}
	assert.Greater(t, forced, 0)
	t.Logf("%d formats forced; %d of %d replies reached their calls within the budget", forced, reached, total)
	assert.GreaterOrEqual(t, reached*10, total*7, "most forced replies reach their calls")
}
