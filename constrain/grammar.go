package constrain

import (
	"fmt"
	"sync"
)

// Grammar is a compiled constraint. It is immutable and safe for concurrent
// use; it keeps an internal cache (determinized states and token masks) per
// vocabulary, shared by all matchers created from it.
//
// The cache is also shared between separately compiled but identical
// grammars through the Vocab (for example the same tool schemas compiled for
// every request), so per-request compilation does not lose the warm cache.
type Grammar struct {
	nfa     *nfa
	key     [32]byte
	mu      sync.Mutex
	engines map[*Vocab]*engine
}

func (g *Grammar) engine(v *Vocab) *engine {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.engines[v]
	if !ok || e.oversized() {
		e = v.sharedEngine(g.key, g.nfa)
		g.engines[v] = e
	}
	return e
}

// NewMatcher starts a new generation constrained by g over vocabulary v.
func (g *Grammar) NewMatcher(v *Vocab) *Matcher {
	if g == nil || v == nil {
		return &Matcher{}
	}
	return &Matcher{e: g.engine(v), state: 0}
}

// Matcher is the per-generation state of a constraint. A Matcher is not safe
// for concurrent use; use Clone to branch.
type Matcher struct {
	e     *engine
	state int32
	ended bool // an EOS token was accepted
}

// FillMask sets bit i of mask iff token i may be sampled next; len(mask)
// should be (vocab size + 63) / 64. EOS tokens are allowed iff the text so
// far is a complete match. After an EOS token was accepted no bit is set.
func (m *Matcher) FillMask(mask []uint64) {
	clear(mask)
	if m.e == nil || m.ended {
		return
	}
	m.e.mu.Lock()
	m.e.fillMask(m.state, mask)
	m.e.mu.Unlock()
}

// Accept advances the matcher by token tok. It returns a *TokenError
// (wrapping ErrTokenRejected) and leaves the matcher unchanged if tok is not
// allowed.
func (m *Matcher) Accept(tok int32) error {
	if m.e == nil {
		return &TokenError{Token: tok, Reason: "matcher has no grammar or vocabulary"}
	}
	v := m.e.v
	if tok < 0 || int(tok) >= v.n {
		return &TokenError{Token: tok, Reason: fmt.Sprintf("token id out of range [0, %d)", v.n)}
	}
	if m.ended {
		return &TokenError{Token: tok, Reason: "generation already ended with an end-of-sequence token"}
	}
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	if v.isEOS[tok] {
		if !m.e.states[m.state].accepting {
			return &TokenError{Token: tok, Reason: "end of sequence before the constraint is complete"}
		}
		m.ended = true
		return nil
	}
	b := v.toks[tok]
	if len(b) == 0 {
		return &TokenError{Token: tok, Reason: "control token without text is never allowed"}
	}
	s := m.state
	for i, c := range b {
		s = m.e.step(s, c)
		if s < 0 {
			return &TokenError{Token: tok, Reason: fmt.Sprintf("text %q rejected at byte %d", b, i)}
		}
	}
	m.state = s
	return nil
}

// AcceptBytes advances the matcher by raw text (for example a forced prefix).
// It returns an error wrapping ErrTokenRejected and leaves the matcher
// unchanged if the text is not allowed.
func (m *Matcher) AcceptBytes(text []byte) error {
	if m.e == nil || m.ended {
		return &TokenError{Token: -1, Reason: "matcher cannot accept more text"}
	}
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	s := m.state
	for i, c := range text {
		s = m.e.step(s, c)
		if s < 0 {
			return &TokenError{Token: -1, Reason: fmt.Sprintf("text %q rejected at byte %d", text, i)}
		}
	}
	m.state = s
	return nil
}

// Accepting reports whether the text so far is a complete match.
func (m *Matcher) Accepting() bool {
	if m.e == nil {
		return false
	}
	if m.ended {
		return true
	}
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	return m.e.states[m.state].accepting
}

// Done reports whether generation must stop: an EOS token was accepted, or
// the text is a complete match that no byte can extend.
func (m *Matcher) Done() bool {
	if m.e == nil {
		return true
	}
	if m.ended {
		return true
	}
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	return m.e.states[m.state].done
}

// Clone returns an independent copy of the matcher (sharing the caches).
func (m *Matcher) Clone() *Matcher {
	c := *m
	return &c
}

// Reset returns the matcher to the start of the constraint.
func (m *Matcher) Reset() {
	m.state = 0
	m.ended = false
}
