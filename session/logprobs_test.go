package session

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/engine"
)

// llamaLogits reads llama.cpp's logits of the greedy run after "Once upon a
// time" (fixtures README.md): one row per step.
func llamaLogits(t *testing.T) [][]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(stories), "stories260K.once_upon.logits.jsonl"))
	if err != nil {
		t.Skipf("llama.cpp logits fixture absent: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var rows [][]float64
	for sc.Scan() {
		var step struct {
			Logits []float64 `json:"logits"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &step))
		if step.Logits != nil {
			rows = append(rows, step.Logits)
		}
	}
	require.NoError(t, sc.Err())
	return rows
}

// logSoftmax64 is the reference: log-softmax in float64, written out.
func logSoftmax64(lg []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range lg {
		m = math.Max(m, v)
	}
	var z float64
	for _, v := range lg {
		z += math.Exp(v - m)
	}
	out := make([]float64, len(lg))
	for i, v := range lg {
		out[i] = v - m - math.Log(z)
	}
	return out
}

func float64s(lg []float32) []float64 {
	out := make([]float64, len(lg))
	for i, v := range lg {
		out[i] = float64(v)
	}
	return out
}

// The reported log-probabilities are the log-softmax of the model's logits
// at each step: equal within 1e-4 to those of the session's own logits for
// the same tokens, within llama.cpp's tolerance to llama.cpp's, and the
// same whatever the temperature.
func TestGenerateReportsLogprobs(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	ref := llamaLogits(t)
	const steps, top = 8, 5
	for _, temp := range []float32{0, 0.7} {
		s := newPrefilled(t, eng, prompt)
		var got []Token
		report := TokenReport{Func: func(tk Token) { got = append(got, tk) }, TopLogprobs: top}
		toks := collect(t, s, GenerateOptions{MaxTokens: steps, Sampler: Sampler{Temperature: temp, TopK: 1, Seed: 3}, IgnoreEOG: true, Report: report})
		require.Equal(t, greedy[:steps], toks, "top-k 1 is greedy at any temperature")
		require.Len(t, got, steps)

		own := newPrefilled(t, eng, prompt)
		var worstOwn, worstLlama float64
		for i, tk := range got {
			assert.Equal(t, toks[i], tk.ID)
			mine := logSoftmax64(float64s(own.Logits()))
			theirs := logSoftmax64(ref[i])
			assert.InDelta(t, mine[tk.ID], float64(tk.Logprob), 1e-4, "step %d: the session's logits", i)
			assert.InDelta(t, theirs[tk.ID], float64(tk.Logprob), 0.005, "step %d: llama.cpp's logits (4e-4 seen)", i)
			worstOwn = math.Max(worstOwn, math.Abs(mine[tk.ID]-float64(tk.Logprob)))
			worstLlama = math.Max(worstLlama, math.Abs(theirs[tk.ID]-float64(tk.Logprob)))
			require.Len(t, tk.Top, top)
			order := make([]int, len(mine))
			for j := range order {
				order[j] = j
			}
			sort.SliceStable(order, func(a, b int) bool { return mine[order[a]] > mine[order[b]] })
			for j, alt := range tk.Top {
				assert.Equal(t, int32(order[j]), alt.ID, "step %d: alternative %d", i, j)
				assert.InDelta(t, mine[alt.ID], float64(alt.Logprob), 1e-4)
			}
			assert.Equal(t, tk.ID, tk.Top[0].ID, "greedy picks the most likely")
			require.NoError(t, own.Decode(context.Background(), tk.ID))
		}
		t.Logf("temperature %g: largest logprob difference %.2g from the session's logits, %.2g from llama.cpp's", temp, worstOwn, worstLlama)
	}
}

// A stop string drops tokens that were sampled: they are not reported
// either, so reports and yielded tokens stay one to one.
func TestReportFollowsYieldedTokens(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	s := newPrefilled(t, eng, prompt)
	var reported []int32
	report := TokenReport{Func: func(tk Token) {
		reported = append(reported, tk.ID)
		assert.Zero(t, tk.Logprob, "no logprobs asked: only ids")
		assert.Nil(t, tk.Top)
	}}
	toks := collect(t, s, GenerateOptions{MaxTokens: 32, StopStrings: []string{"Lily"}, Report: report})
	require.NotEmpty(t, toks)
	assert.Equal(t, greedy[:len(toks)], toks)
	assert.Less(t, len(toks), 10, "stopped at \"Lily\"")
	assert.Equal(t, toks, reported)
}

func TestLogSoftmaxEdges(t *testing.T) {
	inf := float32(math.Inf(1))
	lp, top := LogSoftmax([]float32{0, float32(math.Log(3)), -inf, float32(math.NaN())}, 1, 3)
	assert.InDelta(t, math.Log(0.75), float64(lp), 1e-6)
	require.Len(t, top, 3)
	assert.Equal(t, []int32{1, 0}, []int32{top[0].ID, top[1].ID})
	assert.InDelta(t, math.Log(0.25), float64(top[1].Logprob), 1e-6)
	assert.True(t, math.IsInf(float64(top[2].Logprob), -1), "masked tokens have probability 0")
	lp, top = LogSoftmax([]float32{1, 2}, 5, 0)
	assert.True(t, math.IsInf(float64(lp), -1), "an id out of range")
	assert.Nil(t, top)
}
