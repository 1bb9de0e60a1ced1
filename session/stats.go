package session

import "time"

// Stats counts the forward passes of a session since it was made, as
// LiteRT-LM's BenchmarkInfo does per session: prefill is the tokens that
// Prefill and Append ran through the model (and a last token run again for
// its logits), decode the tokens that Decode and Generate appended one at
// a time. A Clone starts with zero stats.
type Stats struct {
	PrefillTokens int
	PrefillTime   time.Duration
	DecodeTokens  int
	DecodeTime    time.Duration
}

// PrefillTokensPerSecond is PrefillTokens per second of PrefillTime, or 0
// before any prefill.
func (s Stats) PrefillTokensPerSecond() float64 { return rate(s.PrefillTokens, s.PrefillTime) }

// DecodeTokensPerSecond is DecodeTokens per second of DecodeTime, or 0
// before any decode.
func (s Stats) DecodeTokensPerSecond() float64 { return rate(s.DecodeTokens, s.DecodeTime) }

// Stats returns the session's counts so far.
func (s *Session) Stats() Stats { return s.stats }

// add counts one forward pass of n tokens that took d to the prefill or
// the decode counts.
func (s *Stats) add(decode bool, n int, d time.Duration) {
	if decode {
		s.DecodeTokens += n
		s.DecodeTime += d
		return
	}
	s.PrefillTokens += n
	s.PrefillTime += d
}

// rate returns n per second of d, 0 when d is not positive.
func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
