package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
)

const stories = "../../shared/testdata/models/stories260K.gguf"

// prompt is "Once upon a time" with BOS; greedy are llama.cpp's 32 greedy
// tokens after it (fixtures README.md).
var (
	prompt = []int32{1, 403, 407, 261, 378}
	greedy = []int32{432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337,
		410, 408, 419, 292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394}
)

func openStories(t testing.TB, s engine.Settings) *engine.Engine {
	t.Helper()
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	s.Backend = engine.CPUGo
	if s.Threads == 0 {
		s.Threads = 2
	}
	eng, err := engine.Open(context.Background(), stories, s)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

func collect(t testing.TB, s *Session, opts GenerateOptions) []int32 {
	t.Helper()
	var out []int32
	for tok, err := range s.Generate(context.Background(), opts) {
		require.NoError(t, err)
		out = append(out, tok)
	}
	return out
}

func newPrefilled(t testing.TB, eng *engine.Engine, ids []int32) *Session {
	t.Helper()
	s, err := New(eng, Config{BatchSize: 4})
	require.NoError(t, err)
	require.NoError(t, s.Prefill(context.Background(), ids))
	return s
}

func TestGreedyMatchesLlamaCpp(t *testing.T) {
	for _, kv := range []ggml.DType{ggml.F32, ggml.F16} {
		eng := openStories(t, engine.Settings{KVType: kv})
		s := newPrefilled(t, eng, prompt)
		got := collect(t, s, GenerateOptions{MaxTokens: 32})
		assert.Equal(t, greedy, got, "KV %s", kv)
		assert.Equal(t, append(slices.Clone(prompt), greedy...), s.Tokens())
	}
}

func TestCloneRewindIncremental(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	ctx := context.Background()
	s := newPrefilled(t, eng, prompt)
	before := slices.Clone(s.Logits())

	c, err := s.Clone()
	require.NoError(t, err)
	assert.Equal(t, greedy[:10], collect(t, s, GenerateOptions{MaxTokens: 10}))
	assert.Equal(t, greedy[:10], collect(t, c, GenerateOptions{MaxTokens: 10}), "clone continues like its source")

	require.NoError(t, s.Rewind(10))
	assert.Equal(t, len(prompt), s.TokenCount())
	assert.InDeltaSlice(t, before, s.Logits(), 1e-4)
	assert.Equal(t, greedy[:3], collect(t, s, GenerateOptions{MaxTokens: 3}))

	// incremental prefill: prompt in two calls, then feed the reference
	inc, err := New(eng, Config{})
	require.NoError(t, err)
	require.NoError(t, inc.Prefill(ctx, prompt[:2]))
	require.NoError(t, inc.Prefill(ctx, prompt[2:]))
	require.NoError(t, inc.Prefill(ctx, greedy[:5]))
	assert.Equal(t, greedy[5:8], collect(t, inc, GenerateOptions{MaxTokens: 3}))

	require.Error(t, s.Rewind(100))
	require.NoError(t, s.Rewind(s.TokenCount()))
	assert.Nil(t, s.Logits())
	for _, err := range s.Generate(ctx, GenerateOptions{}) {
		require.ErrorContains(t, err, "prefill")
	}
}

func TestErrors(t *testing.T) {
	eng := openStories(t, engine.Settings{ContextLength: 8})
	s, err := New(eng, Config{})
	require.NoError(t, err)
	ctx := context.Background()
	require.ErrorContains(t, s.Prefill(ctx, []int32{1, 9999}), "token 9999 at index 1")
	err = s.Prefill(ctx, make([]int32, 9))
	require.ErrorIs(t, err, ErrContextFull)
	require.NoError(t, s.Prefill(ctx, prompt))
	var got []int32
	var last error
	for tok, err := range s.Generate(ctx, GenerateOptions{}) {
		if err != nil {
			last = err
			break
		}
		got = append(got, tok)
	}
	require.ErrorIs(t, last, ErrContextFull)
	assert.Equal(t, greedy[:3], got)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	s2, err := New(eng, Config{})
	require.NoError(t, err)
	require.ErrorIs(t, s2.Prefill(cancelled, prompt), context.Canceled)
	require.NoError(t, s2.Prefill(ctx, prompt))
	for _, err := range s2.Generate(cancelled, GenerateOptions{}) {
		require.ErrorIs(t, err, context.Canceled)
	}
	for _, err := range s2.Generate(ctx, GenerateOptions{Sampler: Sampler{TopP: 2}}) {
		require.ErrorContains(t, err, "top-p")
	}
}

func TestStops(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	s := newPrefilled(t, eng, prompt)
	got := collect(t, s, GenerateOptions{MaxTokens: 32, StopTokens: []int32{greedy[4]}})
	assert.Equal(t, greedy[:4], got)
	assert.Equal(t, len(prompt)+4, s.TokenCount(), "the stop token is not kept")

	s = newPrefilled(t, eng, prompt)
	got = collect(t, s, GenerateOptions{MaxTokens: 4, StopStrings: []string{""}})
	assert.Equal(t, greedy[:4], got, "an empty stop string is ignored")
}

// allowOnly is a Constraint that permits a fixed set of tokens and is done
// after limit tokens.
type allowOnly struct {
	ok       []int32
	limit, n int
}

func (a *allowOnly) FillMask(mask []uint64) {
	clear(mask)
	for _, t := range a.ok {
		mask[t/64] |= 1 << (t % 64)
	}
}

func (a *allowOnly) Accept(tok int32) error {
	if !slices.Contains(a.ok, tok) {
		return errors.New("not allowed")
	}
	a.n++
	return nil
}

func (a *allowOnly) Done() bool { return a.n >= a.limit }

func TestConstraint(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	s := newPrefilled(t, eng, prompt)
	c := &allowOnly{ok: []int32{300, 301, 302}, limit: 5}
	got := collect(t, s, GenerateOptions{MaxTokens: 32, Constraint: c, Sampler: Sampler{Temperature: 1, Seed: 3}})
	require.Len(t, got, 5)
	for _, tok := range got {
		assert.Contains(t, c.ok, tok)
	}
}

func TestSeedReproducible(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	opts := GenerateOptions{MaxTokens: 24, Sampler: Sampler{Temperature: 1, TopK: 40, TopP: 0.95, MinP: 0.02, RepeatPenalty: 1.1, Seed: 42}}
	a := collect(t, newPrefilled(t, eng, prompt), opts)
	b := collect(t, newPrefilled(t, eng, prompt), opts)
	assert.Equal(t, a, b)
	opts.Sampler.Seed = 43
	c := collect(t, newPrefilled(t, eng, prompt), opts)
	assert.NotEqual(t, a, c)
}

// TestConcurrentSessions runs several sessions at once on one engine of
// every synthetic architecture; each must give what it gives alone.
func TestConcurrentSessions(t *testing.T) {
	for _, shape := range []string{"tiny-smollm2-135m", "tiny-qwen2.5-0.5b", "tiny-qwen3-0.6b", "tiny-gemma3-270m"} {
		t.Run(shape, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), shape+".gguf")
			require.NoError(t, synth.WriteFile(path, shape, synth.Options{Seed: 1, Type: ggml.Q8_0}))
			eng, err := engine.Open(context.Background(), path, engine.Settings{Backend: engine.CPUGo, Threads: 2, ContextLength: 64})
			require.NoError(t, err)
			defer eng.Close()
			prompts := [][]int32{{1, 2, 3, 4, 5, 6, 7}, {9, 8, 7}, {100, 200, 300, 400, 500, 17, 3, 3, 3, 3}}
			opts := GenerateOptions{MaxTokens: 6, IgnoreEOG: true, Sampler: Sampler{Temperature: 0.9, Seed: 7}}
			want := make([][]int32, len(prompts))
			for i, p := range prompts {
				want[i] = collect(t, newPrefilled(t, eng, p), opts)
			}
			got := make([][]int32, len(prompts))
			var wg sync.WaitGroup
			for i, p := range prompts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := New(eng, Config{BatchSize: 3})
					if err != nil {
						t.Error(err)
						return
					}
					if err := s.Prefill(context.Background(), p); err != nil {
						t.Error(err)
						return
					}
					for tok, err := range s.Generate(context.Background(), opts) {
						if err != nil {
							t.Error(err)
							return
						}
						got[i] = append(got[i], tok)
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, want, got)
		})
	}
}

// Append skips the output head; logits asked for afterwards are computed
// then and equal Prefill's.
func TestAppendLazyLogits(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	a := newPrefilled(t, eng, prompt)
	b, err := New(eng, Config{BatchSize: 4})
	require.NoError(t, err)
	require.NoError(t, b.Append(context.Background(), prompt))
	assert.Equal(t, a.Logits(), b.Logits())
	require.NoError(t, b.Append(context.Background(), greedy[:3]))
	require.NoError(t, a.Prefill(context.Background(), greedy[:3]))
	assert.Equal(t, a.Tokens(), b.Tokens())
	assert.Equal(t, collect(t, a, GenerateOptions{MaxTokens: 8}), collect(t, b, GenerateOptions{MaxTokens: 8}))
}
