package session

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler configures how the next token is chosen from the logits. The
// zero value is greedy decoding with no penalties.
//
// The steps run in llama.cpp's default order: penalties, top-k, top-p,
// min-p, temperature, then a draw. Temperature 0 (or less) picks the
// argmax after penalties and the constraint mask.
type Sampler struct {
	Temperature float32 // 0: greedy
	TopK        int     // keep the K most likely tokens; 0: all
	TopP        float32 // keep the smallest set with probability ≥ P; 0 or 1: off
	MinP        float32 // drop tokens less likely than MinP × the top probability; 0: off

	RepeatPenalty    float32 // divide positive logits (multiply negative) of recent tokens; 0 or 1: off
	FrequencyPenalty float32 // subtract count × this from recent tokens' logits
	PresencePenalty  float32 // subtract this from logits of tokens seen recently
	PenaltyWindow    int     // how many recent tokens count; 0: 64, -1: the whole context

	// Seed makes draws reproducible: equal seeds, prompts and settings give
	// equal tokens. 0 draws a random seed.
	Seed uint64
}

// Validate reports settings out of range.
func (c Sampler) Validate() error {
	switch {
	case c.Temperature < 0 || math.IsNaN(float64(c.Temperature)) || math.IsInf(float64(c.Temperature), 1):
		return fmt.Errorf("session: temperature %g is not a finite number ≥ 0", c.Temperature)
	case c.TopK < 0:
		return fmt.Errorf("session: top-k %d is negative", c.TopK)
	case c.TopP < 0 || c.TopP > 1:
		return fmt.Errorf("session: top-p %g is outside [0, 1]", c.TopP)
	case c.MinP < 0 || c.MinP > 1:
		return fmt.Errorf("session: min-p %g is outside [0, 1]", c.MinP)
	case c.RepeatPenalty < 0:
		return fmt.Errorf("session: repeat penalty %g is negative", c.RepeatPenalty)
	case c.PenaltyWindow < -1:
		return fmt.Errorf("session: penalty window %d is below -1", c.PenaltyWindow)
	}
	return nil
}

// candidate is a token and its logit (later its probability).
type candidate struct {
	id int32
	v  float32
}

// sampler is the state of one generation: its random source and buffers.
type sampler struct {
	cfg    Sampler
	rng    *rand.Rand
	logits []float32
	cands  []candidate
	counts map[int32]int
}

func newSampler(cfg Sampler, vocab int) *sampler {
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	return &sampler{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)),
		logits: make([]float32, vocab),
		cands:  make([]candidate, 0, vocab),
		counts: map[int32]int{},
	}
}

// sample picks a token from logits (not modified). history is the
// session's tokens, for penalties; allowed, if not nil, is a bit mask of
// the tokens a constraint permits. It returns -1 if no token is allowed.
func (s *sampler) sample(logits []float32, history []int32, allowed []uint64) int32 {
	lg := s.logits[:len(logits)]
	copy(lg, logits)
	if allowed != nil {
		for i := range lg {
			if allowed[i/64]&(1<<(i%64)) == 0 {
				lg[i] = float32(math.Inf(-1))
			}
		}
	}
	s.penalize(lg, history)
	best := int32(-1)
	for i, v := range lg {
		if !math.IsInf(float64(v), -1) && !math.IsNaN(float64(v)) && (best < 0 || v > lg[best]) {
			best = int32(i)
		}
	}
	if best < 0 || s.cfg.Temperature <= 0 {
		return best
	}

	// candidates, dropping tokens whose probability is below e^-60 of the
	// best even after temperature (they can never be drawn in float32)
	cut := lg[best] - 60*max(1, s.cfg.Temperature)
	c := s.cands[:0]
	for i, v := range lg {
		if v >= cut {
			c = append(c, candidate{int32(i), v})
		}
	}
	// Truncation needs only the best candidates in order, so they are
	// selected rather than the whole vocabulary sorted; without truncation
	// nothing is sorted at all.
	sorted := false
	// top-k
	if k := s.cfg.TopK; k > 0 && k < len(c) {
		selectTop(c, k)
		c, sorted = c[:k], true
	}
	// top-p on the untempered distribution: the smallest prefix of the
	// sorted candidates whose probability reaches p, found by selecting
	// ever larger prefixes
	if p := s.cfg.TopP; p > 0 && p < 1 {
		m := lg[best]
		var z float64
		for _, x := range c {
			z += math.Exp(float64(x.v - m))
		}
		for n := min(64, len(c)); ; n = min(4*n, len(c)) {
			if !sorted {
				selectTop(c, n)
			}
			var sum float64
			keep := -1
			for i := range n {
				sum += math.Exp(float64(c[i].v - m))
				if sum >= float64(p)*z {
					keep = i + 1
					break
				}
			}
			if keep > 0 || n == len(c) {
				if keep > 0 {
					c = c[:keep]
				}
				sorted = true
				break
			}
		}
	}
	// min-p relative to the most likely token: keep p ≥ MinP × p_max, that
	// is logit ≥ best logit + ln(MinP)
	if mp := s.cfg.MinP; mp > 0 {
		floor := lg[best] + float32(math.Log(float64(mp)))
		kept := c[:0]
		for _, x := range c {
			if x.v >= floor || x.id == best {
				kept = append(kept, x)
			}
		}
		c = kept
	}
	// temperature, then draw
	probs(c, s.cfg.Temperature)
	r := s.rng.Float32()
	for _, x := range c {
		r -= x.v
		if r < 0 {
			return x.id
		}
	}
	return c[len(c)-1].id
}

// selectTop reorders c so that its first k elements are the k best
// (highest logit, then lowest id), in order: a quickselect, then a sort of
// the prefix.
func selectTop(c []candidate, k int) {
	better := func(a, b candidate) bool { return a.v > b.v || a.v == b.v && a.id < b.id }
	lo, hi := 0, len(c)-1
	for lo < hi {
		// median of three as pivot, moved to hi
		mid := lo + (hi-lo)/2
		if better(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if better(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if better(c[mid], c[hi]) {
			c[mid], c[hi] = c[hi], c[mid]
		}
		pivot := c[hi]
		i := lo
		for j := lo; j < hi; j++ {
			if better(c[j], pivot) {
				c[i], c[j] = c[j], c[i]
				i++
			}
		}
		c[i], c[hi] = c[hi], c[i]
		switch {
		case i == k || i == k-1:
			lo = hi // done: c[:k] holds the k best
		case i < k:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
	slices.SortFunc(c[:k], func(a, b candidate) int {
		if r := cmp.Compare(b.v, a.v); r != 0 {
			return r
		}
		return cmp.Compare(a.id, b.id)
	})
}

// penalize applies the repetition, frequency and presence penalties for
// the tokens of the penalty window of history.
func (s *sampler) penalize(lg []float32, history []int32) {
	rp, fp, pp := s.cfg.RepeatPenalty, s.cfg.FrequencyPenalty, s.cfg.PresencePenalty
	if (rp == 0 || rp == 1) && fp == 0 && pp == 0 {
		return
	}
	w := s.cfg.PenaltyWindow
	if w == 0 {
		w = 64
	}
	if w > 0 && len(history) > w {
		history = history[len(history)-w:]
	}
	clear(s.counts)
	for _, t := range history {
		if t >= 0 && int(t) < len(lg) {
			s.counts[t]++
		}
	}
	for t, n := range s.counts {
		v := lg[t]
		if rp != 0 && rp != 1 {
			if v > 0 {
				v /= rp
			} else {
				v *= rp
			}
		}
		lg[t] = v - float32(n)*fp - pp
	}
}

// probs turns the logits of c into probabilities at temperature temp.
func probs(c []candidate, temp float32) {
	m := c[0].v
	for _, x := range c {
		m = max(m, x.v)
	}
	var sum float64
	for i := range c {
		e := math.Exp(float64((c[i].v - m) / temp))
		c[i].v = float32(e)
		sum += e
	}
	for i := range c {
		c[i].v = float32(float64(c[i].v) / sum)
	}
}
