package session

import (
	"cmp"
	"math"
	"slices"
)

// MaxTopLogprobs is the most alternatives TokenReport.TopLogprobs may ask
// for, as in OpenAI's API.
const MaxTopLogprobs = 20

// Token is a generated token as TokenReport reports it.
type Token struct {
	ID int32
	// Logprob is ID's log-probability under the model: the log-softmax of
	// the logits the sampler saw, before penalties, the constraint mask and
	// temperature (what OpenAI and llama-server report). Set only with
	// TokenReport.Logprobs.
	Logprob float32
	// Top holds the TokenReport.TopLogprobs most likely tokens at that
	// step, most likely first (ties: lower id first).
	Top []TokenLogprob
}

// TokenLogprob is a token and its log-probability.
type TokenLogprob struct {
	ID      int32
	Logprob float32
}

// TokenReport asks Generate to report each token it yields.
type TokenReport struct {
	// Func, if set, is called with each token just before Generate yields
	// it (so never for a token a stop string drops).
	Func func(Token)
	// Logprobs fills Token.Logprob.
	Logprobs bool
	// TopLogprobs > 0 fills Token.Top with that many alternatives (at most
	// MaxTopLogprobs); it implies Logprobs.
	TopLogprobs int
}

// LogSoftmax returns the log-probability of token id under logits, and
// the top most likely tokens with theirs (top ≤ 0: none), computed in
// float64. Non-finite logits count as probability 0. An id out of range
// gets -Inf.
func LogSoftmax(logits []float32, id int32, top int) (float32, []TokenLogprob) {
	m := math.Inf(-1)
	for _, v := range logits {
		if f := float64(v); !math.IsNaN(f) && f > m {
			m = f
		}
	}
	var z float64
	for _, v := range logits {
		if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			z += math.Exp(f - m)
		}
	}
	lse := m + math.Log(z)
	lp := func(i int32) float32 {
		f := float64(logits[i])
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return float32(math.Inf(-1))
		}
		return float32(f - lse)
	}
	own := float32(math.Inf(-1))
	if id >= 0 && int(id) < len(logits) {
		own = lp(id)
	}
	top = min(top, len(logits))
	if top <= 0 {
		return own, nil
	}
	// The top few by one pass keeping a small sorted list: top ≤ 20, the
	// vocabulary is large.
	best := make([]TokenLogprob, 0, top+1)
	better := func(a, b TokenLogprob) int {
		if c := cmp.Compare(b.Logprob, a.Logprob); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	for i := range logits {
		c := TokenLogprob{ID: int32(i), Logprob: lp(int32(i))}
		if len(best) == top && better(c, best[top-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, c, better)
		best = slices.Insert(best, at, c)
		if len(best) > top {
			best = best[:top]
		}
	}
	return own, best
}

// token builds the report of id sampled from logits.
func (r TokenReport) token(logits []float32, id int32) Token {
	t := Token{ID: id}
	if r.Logprobs || r.TopLogprobs > 0 {
		t.Logprob, t.Top = LogSoftmax(logits, id, min(r.TopLogprobs, MaxTopLogprobs))
	}
	return t
}
