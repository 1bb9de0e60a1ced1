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
	"slices"
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
	// CheckpointEvery is how often, in tokens, the state of a model with
	// convolution or recurrent layers is checkpointed (besides the end of
	// every Prefill and Append), so that Rewind re-runs at most that many
	// tokens; 0 means models.DefaultCheckpointEvery, a negative value
	// only at Prefill ends. Checkpoints cost State.CheckpointBytes each.
	CheckpointEvery int
	// MaxCheckpoints bounds the checkpoints kept (the oldest go first);
	// 0 means models.DefaultMaxCheckpoints.
	MaxCheckpoints int
}

// Session is a sequence of tokens and the model's state for them (KV
// caches, and convolution and recurrent states where the model has them).
//
// The state may hold fewer positions than the session has tokens: after a
// Rewind on a model whose state is checkpointed rather than cut, it
// resumes at a checkpoint, and the tokens from there on are run again,
// with whatever comes next, by the next call that needs them.
type Session struct {
	eng    *engine.Engine
	model  models.Model
	st     *models.State
	cfg    Config
	tokens []int32
	logits []float32
	valid  bool        // logits belong to the last token
	media  []mediaSpan // the media chunks among the tokens, in order (media.go)
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
	if cfg.MaxCheckpoints < 0 {
		return nil, fmt.Errorf("session: negative checkpoint count %d", cfg.MaxCheckpoints)
	}
	st, err := eng.NewState(cfg.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	switch {
	case cfg.CheckpointEvery > 0:
		st.CheckpointEvery = cfg.CheckpointEvery
	case cfg.CheckpointEvery < 0:
		st.CheckpointEvery = 0
	}
	if cfg.MaxCheckpoints > 0 {
		st.MaxCheckpoints = cfg.MaxCheckpoints
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
// the state is set back before the last token (to a checkpoint at or
// before it, for a model that needs one) and the tokens from there on are
// run again.
func (s *Session) ensureLogits(ctx context.Context) error {
	if s.valid {
		return nil
	}
	if len(s.tokens) == 0 {
		return errors.New("session: no logits: prefill at least one token first")
	}
	if s.st.Len() < len(s.tokens) {
		return s.catchUp(ctx, true, false)
	}
	// a checkpoint at the end (an Append's turn boundary) is dropped by
	// the Truncate: take it again after
	remark := slices.Contains(s.st.Checkpoints(), len(s.tokens))
	if _, err := s.st.Truncate(len(s.tokens) - 1); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if err := s.catchUp(ctx, true, false); err != nil {
		return err
	}
	if remark {
		s.st.Checkpoint()
	}
	return nil
}

// catchUp runs the session's tokens the state does not hold yet through
// the model, in batches of Config.BatchSize tokens, with the logits of
// the last one if logits is set. Cancellation is checked between batches.
// After an error the state holds a prefix of the tokens (the rest are run
// by the next call) and there are no logits.
//
// Each forward pass counts in the session's Stats: as decode if decode is
// set, else as prefill.
func (s *Session) catchUp(ctx context.Context, logits, decode bool) error {
	s.valid = false
	for s.st.Len() < len(s.tokens) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		pos := s.st.Len()
		in := s.input(pos, s.st.MaxBatch())
		n := in.Len()
		var out []float32
		if pos+n == len(s.tokens) && logits {
			out = s.logits
		}
		start := time.Now()
		if err := models.ForwardChecked(s.model, s.st, in, out); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		s.stats.add(decode, n, time.Since(start))
		s.valid = out != nil
	}
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
	return s.prefill(ctx, ids, true, true)
}

// Append is Prefill without computing the logits of the last token, for
// text that will be followed by more before anything is sampled (the end
// of a chat turn, say): it skips the output head. Logits computes them
// later if they are asked for after all.
func (s *Session) Append(ctx context.Context, ids []int32) error {
	return s.prefill(ctx, ids, false, true)
}

func (s *Session) prefill(ctx context.Context, ids []int32, logits, mark bool) error {
	if err := s.check(ids); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	before := len(s.tokens)
	s.tokens = append(s.tokens, ids...)
	if err := s.catchUp(ctx, logits, !mark); err != nil {
		// The batch that failed is not kept: the session holds the
		// tokens the state holds, and those it held before the call.
		s.tokens = s.tokens[:max(before, s.st.Len())]
		return fmt.Errorf("session: prefill stopped after %d tokens: %w", len(s.tokens), errors.Unwrap(err))
	}
	if mark {
		// a turn boundary: where a later Rewind is likely to return
		s.st.Checkpoint()
	}
	return nil
}

// Decode appends one token and computes the logits after it.
func (s *Session) Decode(ctx context.Context, id int32) error {
	return s.prefill(ctx, []int32{id}, true, false)
}

// HasRecurrentState reports whether the model carries convolution or
// recurrent state (LFM2, Qwen3.5), which Rewind cannot cut: it restores a
// checkpoint (taken at the end of each Prefill and Append, and every
// Config.CheckpointEvery tokens) and runs the tokens after it again.
func (s *Session) HasRecurrentState() bool { return s.st.CheckpointBytes() > 0 }

// Rewind removes the last n tokens, and the whole of a media chunk the
// cut falls inside (TokenCount says where it fell). The logits of the new
// last token are computed when next needed (by Logits or Generate), so a
// Rewind followed by Prefill costs nothing extra. On a model with convolution or recurrent
// state, the state goes back to the newest checkpoint at or before the
// new end (Prefill takes one at its end, and the state one every
// models.State.CheckpointEvery tokens), and the tokens after it are run
// again with the next Prefill or Logits.
func (s *Session) Rewind(n int) error {
	if n < 0 || n > len(s.tokens) {
		return fmt.Errorf("session: rewind %d of %d tokens", n, len(s.tokens))
	}
	if n == 0 {
		return nil
	}
	keep := s.mediaKeep(len(s.tokens) - n)
	if keep < s.st.Len() {
		if _, err := s.st.Truncate(keep); err != nil {
			return fmt.Errorf("session: %w", err)
		}
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
		media:  append([]mediaSpan(nil), s.media...),
		logits: append([]float32(nil), s.logits...),
		valid:  s.valid,
	}, nil
}
