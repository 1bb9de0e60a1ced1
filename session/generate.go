package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
)

// Constraint restricts which tokens may come next, such as a
// *constrain.Matcher for a grammar or JSON schema.
type Constraint interface {
	// FillMask sets bit i of mask (mask[i/64] & 1<<(i%64)) for each token
	// i allowed next and clears the others.
	FillMask(mask []uint64)
	// Accept advances the constraint past tok.
	Accept(tok int32) error
	// Done reports that the constrained text is complete.
	Done() bool
}

// GenerateOptions configure one Generate call.
type GenerateOptions struct {
	Sampler Sampler
	// MaxTokens caps the tokens generated; 0 means until the context is
	// full.
	MaxTokens int
	// StopTokens end generation besides the model's end-of-generation
	// tokens; like those, they are neither yielded nor kept.
	StopTokens []int32
	// StopStrings end generation when the generated text contains one
	// (empty strings are ignored). The tokens that complete or overlap the
	// stop string are not yielded and are removed from the session; tokens
	// that could begin a stop string are held back until that is decided.
	StopStrings []string
	// IgnoreEOG keeps generating past end-of-generation tokens.
	IgnoreEOG bool
	// Constraint, if set, masks the logits before sampling; generation ends
	// when it is Done.
	Constraint Constraint
	// Report, if its Func is set, receives each token before it is
	// yielded, with its log-probabilities if asked.
	Report TokenReport
}

// Generate samples tokens one after another, appending each to the
// session, and yields them until a stop condition. The session must hold
// at least one token. Errors (cancellation, a full context, a constraint
// that allows nothing) are yielded once with token -1, and end the
// sequence. Breaking out of the loop leaves every yielded token in the
// session.
func (s *Session) Generate(ctx context.Context, opts GenerateOptions) iter.Seq2[int32, error] {
	return func(yield func(int32, error) bool) {
		fail := func(err error) { yield(-1, err) }
		if err := opts.Sampler.Validate(); err != nil {
			fail(err)
			return
		}
		if err := s.ensureLogits(ctx); err != nil {
			fail(fmt.Errorf("session: generate needs logits: %w", err))
			return
		}
		// An empty stop string would match before the first token.
		opts.StopStrings = slices.DeleteFunc(slices.Clone(opts.StopStrings), func(s string) bool { return s == "" })
		var pieces func(int32) []byte
		if len(opts.StopStrings) > 0 {
			var err error
			if pieces, err = tokenBytes(s.eng); err != nil {
				fail(fmt.Errorf("session: stop strings: %w", err))
				return
			}
		}
		vocab := len(s.logits)
		smp := newSampler(opts.Sampler, vocab)
		stops := map[int32]bool{}
		if !opts.IgnoreEOG {
			for _, id := range s.eng.Info().EOG {
				stops[id] = true
			}
		}
		for _, id := range opts.StopTokens {
			stops[id] = true
		}
		var mask []uint64
		if opts.Constraint != nil {
			mask = make([]uint64, (vocab+63)/64)
		}
		held := &holdback{stops: opts.StopStrings, pieces: pieces}
		// reports of the sampled tokens not yet yielded, in order
		var reports []Token
		emit := func(t int32) bool {
			if opts.Report.Func != nil {
				opts.Report.Func(reports[0])
				reports = reports[1:]
			}
			return yield(t, nil)
		}
		for n := 0; opts.MaxTokens <= 0 || n < opts.MaxTokens; n++ {
			if err := ctx.Err(); err != nil {
				fail(fmt.Errorf("session: generate: %w", err))
				return
			}
			if opts.Constraint != nil {
				if opts.Constraint.Done() {
					break
				}
				opts.Constraint.FillMask(mask)
			}
			tok := smp.sample(s.logits, s.tokens, mask)
			if tok < 0 {
				fail(errors.New("session: no token is allowed: the constraint or penalties masked every logit"))
				return
			}
			if stops[tok] {
				break
			}
			if opts.Constraint != nil {
				if err := opts.Constraint.Accept(tok); err != nil {
					fail(fmt.Errorf("session: constraint rejected sampled token %d: %w", tok, err))
					return
				}
			}
			if len(s.tokens) >= s.st.Cap() {
				fail(fmt.Errorf("session: generated %d tokens: %w", n, ErrContextFull))
				return
			}
			if opts.Report.Func != nil {
				reports = append(reports, opts.Report.token(s.logits, tok))
			}
			if err := s.Decode(ctx, tok); err != nil {
				fail(err)
				return
			}
			ready, stopped := held.add(tok)
			for _, t := range ready {
				if !emit(t) {
					return
				}
			}
			if stopped {
				if drop := held.pending(); drop > 0 {
					if err := s.Rewind(drop); err != nil {
						fail(err)
					}
				}
				return
			}
		}
		for _, t := range held.flush() {
			if !emit(t) {
				return
			}
		}
	}
}

// holdback delays tokens whose text might begin a stop string.
type holdback struct {
	stops  []string
	pieces func(int32) []byte
	toks   []int32 // not yet yielded
	text   []byte  // text of toks
	ends   []int   // end offset in text of each of toks
}

// add appends tok and returns the tokens now safe to yield, and whether a
// stop string was found (the remaining tokens are then dropped).
func (h *holdback) add(tok int32) (ready []int32, stopped bool) {
	if len(h.stops) == 0 {
		return []int32{tok}, false
	}
	h.toks = append(h.toks, tok)
	h.text = append(h.text, h.pieces(tok)...)
	h.ends = append(h.ends, len(h.text))
	cut := len(h.text) // text from cut on must be held
	for _, s := range h.stops {
		if i := bytes.Index(h.text, []byte(s)); i >= 0 {
			stopped = true
			cut = min(cut, i)
			continue
		}
		for k := min(len(s)-1, len(h.text)); k > 0; k-- {
			if bytes.HasSuffix(h.text, []byte(s[:k])) {
				cut = min(cut, len(h.text)-k)
				break
			}
		}
	}
	n := 0
	for n < len(h.toks) && h.ends[n] <= cut {
		n++
	}
	ready = slices.Clone(h.toks[:n])
	if n > 0 {
		shift := h.ends[n-1]
		h.text = h.text[shift:]
		h.toks = h.toks[n:]
		h.ends = h.ends[n:]
		for i := range h.ends {
			h.ends[i] -= shift
		}
	}
	return ready, stopped
}

// pending is the number of held tokens.
func (h *holdback) pending() int { return len(h.toks) }

// flush returns the held tokens at the end of generation.
func (h *holdback) flush() []int32 {
	t := h.toks
	h.toks, h.text, h.ends = nil, nil, nil
	return t
}
