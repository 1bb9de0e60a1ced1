// Package session runs one conversation's worth of state on a shared
// engine: a KV cache filled by batched prefill, single-token decode, and
// generation with a sampler, stop conditions and an optional constraint.
// Sessions are independent; many may run concurrently on one Engine, but
// one Session must not be used from two goroutines at once.
package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models"
)

// ErrContextFull is wrapped by errors about tokens that do not fit in the
// context.
var ErrContextFull = errors.New("context full")

// DefaultBatchSize is the prefill batch when Config.BatchSize is 0.
const DefaultBatchSize = 256

// Config configures a Session.
type Config struct {
	// BatchSize is the most tokens prefilled in one forward pass (a matrix
	// product per weight); 0 means DefaultBatchSize.
	BatchSize int
}

// Session is a sequence of tokens and the model's KV cache for them.
type Session struct {
	eng    *engine.Engine
	model  models.Model
	st     *models.State
	cfg    Config
	tokens []int32
	logits []float32
	valid  bool // logits belong to the last token
	stats  Stats
}

// New returns an empty session on eng with a KV cache of the engine's
// context length.
func New(eng *engine.Engine, cfg Config) (*Session, error) {
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("session: negative batch size %d", cfg.BatchSize)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	st, err := eng.NewState(cfg.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	m := eng.Model()
	return &Session{eng: eng, model: m, st: st, cfg: cfg, logits: make([]float32, m.Params().VocabSize)}, nil
}

// Engine returns the engine the session runs on.
func (s *Session) Engine() *engine.Engine { return s.eng }

// TokenCount is the number of tokens in the session.
func (s *Session) TokenCount() int { return len(s.tokens) }

// ContextLength is the most tokens the session holds.
func (s *Session) ContextLength() int { return s.st.Cap() }

// Tokens returns a copy of the session's tokens.
func (s *Session) Tokens() []int32 { return append([]int32(nil), s.tokens...) }

// Logits returns the logits after the last token, or nil if there is no
// token yet. After Append or Rewind they are computed here, on first use,
// by running the last token again. The slice is the session's own and
// changes with the next call that adds a token.
func (s *Session) Logits() []float32 {
	if err := s.ensureLogits(context.Background()); err != nil {
		return nil
	}
	return s.logits
}

// ensureLogits computes the logits of the last token if they are stale:
// the last token is dropped from the cache and run again.
func (s *Session) ensureLogits(ctx context.Context) error {
	if s.valid {
		return nil
	}
	if len(s.tokens) == 0 {
		return errors.New("session: no logits: prefill at least one token first")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	last := len(s.tokens) - 1
	if err := s.st.Truncate(last); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	start := time.Now()
	if err := models.ForwardChecked(s.model, s.st, s.tokens[last:], s.logits); err != nil {
		// Keep the cache whole: the last token goes back in, without logits.
		s.model.Forward(s.st, s.tokens[last:], nil)
		return fmt.Errorf("session: %w", err)
	}
	s.stats.add(false, 1, time.Since(start))
	s.valid = true
	return nil
}

// check validates tokens about to be appended.
func (s *Session) check(ids []int32) error {
	vocab := s.model.Params().VocabSize
	for i, id := range ids {
		if id < 0 || int(id) >= vocab {
			return fmt.Errorf("session: token %d at index %d is outside the vocabulary of %d", id, i, vocab)
		}
	}
	if len(s.tokens)+len(ids) > s.st.Cap() {
		return fmt.Errorf("session: %d tokens + %d new exceed the context length %d: %w",
			len(s.tokens), len(ids), s.st.Cap(), ErrContextFull)
	}
	return nil
}

// Prefill appends ids to the session, running them through the model in
// batches of Config.BatchSize tokens. It may be called again to append
// more. Cancellation is checked between batches; a cancelled prefill keeps
// the batches already done (TokenCount says how many) and leaves no logits.
func (s *Session) Prefill(ctx context.Context, ids []int32) error {
	return s.prefill(ctx, ids, true, false)
}

// Append is Prefill without computing the logits of the last token, for
// text that will be followed by more before anything is sampled (the end
// of a chat turn, say): it skips the output head. Logits computes them
// later if they are asked for after all.
func (s *Session) Append(ctx context.Context, ids []int32) error {
	return s.prefill(ctx, ids, false, false)
}

// prefill runs ids through the model in batches, computing the logits of
// the last one if logits is set, and counts them as decode or prefill.
func (s *Session) prefill(ctx context.Context, ids []int32, logits, decode bool) error {
	if err := s.check(ids); err != nil {
		return err
	}
	for len(ids) > 0 {
		if err := ctx.Err(); err != nil {
			s.valid = false
			return fmt.Errorf("session: prefill stopped after %d tokens: %w", len(s.tokens), err)
		}
		n := min(len(ids), s.st.MaxBatch())
		var out []float32
		if n == len(ids) && logits {
			out = s.logits
		}
		start := time.Now()
		if err := models.ForwardChecked(s.model, s.st, ids[:n], out); err != nil {
			// The batch is not kept: the cache holds the tokens before it.
			s.valid = false
			return fmt.Errorf("session: prefill stopped after %d tokens: %w", len(s.tokens), err)
		}
		s.stats.add(decode, n, time.Since(start))
		s.tokens = append(s.tokens, ids[:n]...)
		s.valid = out != nil
		ids = ids[n:]
	}
	return nil
}

// Decode appends one token and computes the logits after it.
func (s *Session) Decode(ctx context.Context, id int32) error {
	return s.prefill(ctx, []int32{id}, true, true)
}

// Rewind removes the last n tokens. The logits of the new last token are
// computed when next needed (by Logits or Generate), so a Rewind followed
// by Prefill costs nothing extra.
func (s *Session) Rewind(n int) error {
	if n < 0 || n > len(s.tokens) {
		return fmt.Errorf("session: rewind %d of %d tokens", n, len(s.tokens))
	}
	if n == 0 {
		return nil
	}
	keep := len(s.tokens) - n
	if err := s.st.Truncate(keep); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.tokens = s.tokens[:keep]
	s.valid = false
	return nil
}

// Clone returns an independent session with the same tokens, cache and
// logits; both continue identically given the same calls.
func (s *Session) Clone() (*Session, error) {
	st, err := s.st.Clone()
	if err != nil {
		return nil, fmt.Errorf("session: clone: %w", err)
	}
	return &Session{
		eng: s.eng, model: s.model, st: st, cfg: s.cfg,
		tokens: append([]int32(nil), s.tokens...),
		logits: append([]float32(nil), s.logits...),
		valid:  s.valid,
	}, nil
}
