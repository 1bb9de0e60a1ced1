package session

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSamplerGreedyAndMask(t *testing.T) {
	lg := []float32{1, 5, 3, 5.5, -2}
	s := newSampler(Sampler{}, len(lg))
	assert.Equal(t, int32(3), s.sample(lg, nil, nil))
	mask := []uint64{1<<0 | 1<<2}
	assert.Equal(t, int32(2), s.sample(lg, nil, mask))
	assert.Equal(t, int32(-1), s.sample(lg, nil, []uint64{0}))
	assert.Equal(t, []float32{1, 5, 3, 5.5, -2}, lg, "logits are not modified")
	// top-k 1 at any temperature is greedy
	s = newSampler(Sampler{Temperature: 5, TopK: 1, Seed: 1}, len(lg))
	for range 20 {
		assert.Equal(t, int32(3), s.sample(lg, nil, nil))
	}
}

func TestSamplerPenalties(t *testing.T) {
	lg := []float32{2, 1.9, -1}
	s := newSampler(Sampler{RepeatPenalty: 2}, len(lg))
	assert.Equal(t, int32(1), s.sample(lg, []int32{0}, nil), "2/2 < 1.9")
	s = newSampler(Sampler{FrequencyPenalty: 0.06}, len(lg))
	assert.Equal(t, int32(0), s.sample(lg, []int32{0}, nil))
	assert.Equal(t, int32(1), s.sample(lg, []int32{0, 0}, nil))
	s = newSampler(Sampler{PresencePenalty: 0.2, PenaltyWindow: 1}, len(lg))
	assert.Equal(t, int32(1), s.sample(lg, []int32{0}, nil))
	assert.Equal(t, int32(0), s.sample(lg, []int32{0, 2}, nil), "token 0 is outside the window")
}

// TestSamplerDistribution draws many tokens and compares frequencies with
// the distribution the settings define.
func TestSamplerDistribution(t *testing.T) {
	lg := []float32{0, float32(math.Log(2)), float32(math.Log(3)), float32(math.Log(4)), -10}
	const n = 40000
	for _, tc := range []struct {
		name string
		cfg  Sampler
		want []float64
	}{
		{"temperature 1", Sampler{Temperature: 1}, []float64{0.1, 0.2, 0.3, 0.4, 0}},
		{"top-k 2", Sampler{Temperature: 1, TopK: 2}, []float64{0, 0, 3.0 / 7, 4.0 / 7, 0}},
		{"top-p 0.6", Sampler{Temperature: 1, TopP: 0.6}, []float64{0, 0, 3.0 / 7, 4.0 / 7, 0}},
		{"min-p 0.45", Sampler{Temperature: 1, MinP: 0.45}, []float64{0, 2.0 / 9, 3.0 / 9, 4.0 / 9, 0}},
		{"temperature 0.5", Sampler{Temperature: 0.5}, []float64{1.0 / 30, 4.0 / 30, 9.0 / 30, 16.0 / 30, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Seed = 99
			s := newSampler(tc.cfg, len(lg))
			counts := make([]float64, len(lg))
			for range n {
				counts[s.sample(lg, nil, nil)]++
			}
			for i := range counts {
				assert.InDelta(t, tc.want[i], counts[i]/n, 0.012, "token %d", i)
			}
		})
	}
}

func TestSamplerValidate(t *testing.T) {
	require.NoError(t, Sampler{Temperature: 0.7, TopK: 40, TopP: 0.9, MinP: 0.05}.Validate())
	require.ErrorContains(t, Sampler{Temperature: -1}.Validate(), "temperature")
	require.ErrorContains(t, Sampler{Temperature: float32(math.Inf(1))}.Validate(), "temperature")
	require.ErrorContains(t, Sampler{TopK: -1}.Validate(), "top-k")
	require.ErrorContains(t, Sampler{MinP: 2}.Validate(), "min-p")
}

// TestHoldback checks stop strings against token texts, including stop
// strings that span tokens and text that only looks like their start.
func TestHoldback(t *testing.T) {
	texts := map[int32]string{1: "Hello", 2: " wor", 3: "ld", 4: "<", 5: "|end", 6: "|>", 7: "x", 8: "<|", 9: "end|>tail"}
	pieces := func(id int32) []byte { return []byte(texts[id]) }
	for _, tc := range []struct {
		name    string
		toks    []int32
		yielded []int32
		stopped bool
		dropped int
	}{
		{"no stop", []int32{1, 2, 3}, []int32{1, 2, 3}, false, 0},
		{"spans three tokens", []int32{1, 4, 5, 6, 7}, []int32{1}, true, 3},
		{"false start released", []int32{4, 7, 1}, []int32{4, 7, 1}, false, 0},
		{"inside one token", []int32{1, 8, 9}, []int32{1}, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &holdback{stops: []string{"<|end|>"}, pieces: pieces}
			var got []int32
			stopped := false
			for _, tok := range tc.toks {
				ready, s := h.add(tok)
				got = append(got, ready...)
				if s {
					stopped = true
					break
				}
			}
			if !stopped {
				got = append(got, h.flush()...)
			}
			assert.Equal(t, tc.yielded, got)
			assert.Equal(t, tc.stopped, stopped)
			if stopped {
				assert.Equal(t, tc.dropped, h.pending())
			}
		})
	}
}

// The selection-based truncation keeps exactly the tokens a full sort
// would: compare against a reference on random logits.
func TestTruncationMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(3000)
		lg := make([]float32, n)
		for i := range lg {
			lg[i] = float32(rng.NormFloat64() * 3)
			if rng.IntN(10) == 0 {
				lg[i] = float32(rng.IntN(4)) // ties
			}
		}
		cfg := Sampler{Temperature: 1, TopK: rng.IntN(60), TopP: []float32{0, 0.5, 0.9, 0.99}[rng.IntN(4)], MinP: []float32{0, 0.05, 0.2}[rng.IntN(3)]}
		// Reference: sort everything, then cut as llama.cpp's chain does.
		ref := make([]candidate, n)
		for i, v := range lg {
			ref[i] = candidate{int32(i), v}
		}
		slices.SortFunc(ref, func(a, b candidate) int {
			if a.v != b.v {
				return cmp.Compare(b.v, a.v)
			}
			return cmp.Compare(a.id, b.id)
		})
		if cfg.TopK > 0 && cfg.TopK < len(ref) {
			ref = ref[:cfg.TopK]
		}
		if cfg.TopP > 0 {
			var z, sum float64
			for _, x := range ref {
				z += math.Exp(float64(x.v - ref[0].v))
			}
			for i, x := range ref {
				sum += math.Exp(float64(x.v - ref[0].v))
				if sum >= float64(cfg.TopP)*z {
					ref = ref[:i+1]
					break
				}
			}
		}
		want := map[int32]bool{}
		for _, x := range ref {
			if cfg.MinP == 0 || math.Exp(float64(x.v-ref[0].v)) >= float64(cfg.MinP) || x.id == ref[0].id {
				want[x.id] = true
			}
		}
		// Every token the sampler draws must be in the reference set.
		s := newSampler(Sampler{Temperature: cfg.Temperature, TopK: cfg.TopK, TopP: cfg.TopP, MinP: cfg.MinP, Seed: uint64(trial + 1)}, n)
		for range 300 {
			id := s.sample(lg, nil, nil)
			require.True(t, want[id], "trial %d %+v: drew %d outside the reference set", trial, cfg, id)
		}
	}
}
