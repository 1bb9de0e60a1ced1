package session

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models"
)

// MediaToken stands in Tokens for every position PrefillEmbeddings filled:
// it is no token id, so it never equals one.
const MediaToken int32 = -1

// mediaSpan is a media chunk the session holds: n positions from start,
// prefilled with the rows of emb under key.
type mediaSpan struct {
	start, n  int
	key       uint64
	emb       []float32 // kept to run the positions again (after a Rewind, for fresh logits)
	nonCausal bool      // run as one non-causal batch
}

// Chunk is a run of a prompt's positions: token ids, or one media chunk
// (N rows of input embeddings of the model's Dim, from a vision or audio
// encoder) identified by Key, a hash of the media's bytes. A NonCausal
// media chunk is decoded as one batch whose rows all see each other, as
// llama.cpp's mtmd does when the encoder asks for it
// (mtmd_decode_use_non_causal: Gemma 3 images).
type Chunk struct {
	Tokens     []int32
	Embeddings []float32
	N          int
	Key        uint64
	NonCausal  bool
}

// Len is the number of positions of c.
func (c Chunk) Len() int {
	if c.Embeddings != nil {
		return c.N
	}
	return len(c.Tokens)
}

// Prompt is a sequence of positions to prefill: runs of tokens and media
// chunks, in order.
type Prompt []Chunk

// TokenPrompt is the prompt of token ids alone.
func TokenPrompt(ids []int32) Prompt { return Prompt{{Tokens: ids}} }

// Len is the number of positions of p.
func (p Prompt) Len() int {
	n := 0
	for _, c := range p {
		n += c.Len()
	}
	return n
}

// Tokens returns p's positions as Session.Tokens reports them once
// prefilled: the token ids, and MediaToken for each media position.
func (p Prompt) Tokens() []int32 {
	ids := make([]int32, 0, p.Len())
	for _, c := range p {
		if c.Embeddings == nil {
			ids = append(ids, c.Tokens...)
			continue
		}
		for range c.N {
			ids = append(ids, MediaToken)
		}
	}
	return ids
}

// Media is the number of media chunks in p.
func (p Prompt) Media() int {
	n := 0
	for _, c := range p {
		if c.Embeddings != nil {
			n++
		}
	}
	return n
}

// From returns p without its first n positions. n must not fall inside a
// media chunk (Session.Common never returns such a position); if it does,
// the chunk is kept whole.
func (p Prompt) From(n int) Prompt {
	for i, c := range p {
		l := c.Len()
		if n < l {
			if c.Embeddings != nil || n == 0 {
				return p[i:]
			}
			return append(Prompt{{Tokens: c.Tokens[n:]}}, p[i+1:]...)
		}
		n -= l
	}
	return nil
}

// SplitTail returns p with its last n token positions as a chunk of their
// own, so that PrefillPrompt ends the chunk before them with a checkpoint
// (a turn boundary). p is returned as it is when its last chunk is media
// or holds no more than n tokens.
func (p Prompt) SplitTail(n int) Prompt {
	if len(p) == 0 || n <= 0 {
		return p
	}
	last := p[len(p)-1]
	if last.Embeddings != nil || len(last.Tokens) <= n {
		return p
	}
	cut := len(last.Tokens) - n
	return append(p[:len(p)-1:len(p)-1], Chunk{Tokens: last.Tokens[:cut]}, Chunk{Tokens: last.Tokens[cut:]})
}

// Common is the number of leading positions of p the session already
// holds: tokens equal one by one, and media chunks whole (the same key and
// length at the same position). A chunk that matches only in part does
// not count: it is run again whole.
func (s *Session) Common(p Prompt) int {
	n := 0
	for _, c := range p {
		if c.Embeddings != nil {
			sp := s.spanAt(n)
			if sp == nil || sp.start != n || sp.key != c.Key || sp.n != c.N {
				return n
			}
			n += c.N
			continue
		}
		for _, id := range c.Tokens {
			if n >= len(s.tokens) || s.tokens[n] != id || id == MediaToken {
				return n
			}
			n++
		}
	}
	return n
}

// PrefillPrompt appends p to the session: token runs as Append does them
// but the last, which Prefill does, and media chunks as PrefillEmbeddings.
// The logits after the prompt's last position are computed.
func (s *Session) PrefillPrompt(ctx context.Context, p Prompt) error {
	for i, c := range p {
		var err error
		switch {
		case c.Embeddings != nil:
			err = s.PrefillEmbeddings(ctx, c)
		case i == len(p)-1:
			err = s.Prefill(ctx, c.Tokens)
		default:
			err = s.Append(ctx, c.Tokens)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// PrefillEmbeddings appends the media chunk c: c.N positions whose inputs
// are the c.N rows of c.Embeddings (each the model's Dim wide) in place of
// token embeddings, as a vision or audio encoder produces them, and
// computes the logits after the last. The positions are one media chunk
// identified by c.Key (a hash of the media's bytes): Common matches it
// whole, Rewind into it removes it whole, and Tokens reports its positions
// as MediaToken. A c.NonCausal chunk runs as one batch with
// models.Input.NonCausal, so it must fit Config.BatchSize (llama.cpp
// likewise requires n_ubatch ≥ the chunk's tokens for a non-causal
// decode); otherwise the rows run in batches like tokens. The session
// keeps c.Embeddings (to run positions again when needed), so the caller
// must not change it afterwards. A failed or cancelled call adds none of
// the chunk.
func (s *Session) PrefillEmbeddings(ctx context.Context, c Chunk) error {
	emb, n, key := c.Embeddings, c.N, c.Key
	dim := s.model.Params().Dim
	switch {
	case n <= 0:
		return fmt.Errorf("session: media chunk of %d embedding rows", n)
	case len(emb) != n*dim:
		return fmt.Errorf("session: media chunk of %d values is not %d rows of the model's width %d", len(emb), n, dim)
	case c.NonCausal && n > s.st.MaxBatch():
		return fmt.Errorf("session: a non-causal media chunk of %d rows is decoded as one batch, larger than the batch size %d: raise session.Config.BatchSize to at least %d",
			n, s.st.MaxBatch(), n)
	case len(s.tokens)+n > s.st.Cap():
		return fmt.Errorf("session: %d positions + a media chunk of %d exceed the context length %d: %w",
			len(s.tokens), n, s.st.Cap(), ErrContextFull)
	}
	for i, v := range emb {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("session: media chunk embedding row %d, column %d is %v", i/dim, i%dim, v)
		}
	}
	start := len(s.tokens)
	for range n {
		s.tokens = append(s.tokens, MediaToken)
	}
	s.media = append(s.media, mediaSpan{start: start, n: n, key: key, emb: emb, nonCausal: c.NonCausal})
	if err := s.catchUp(ctx, true, false); err != nil {
		// All or nothing: the chunk goes, and the state with it.
		if s.st.Len() > start {
			if _, terr := s.st.Truncate(start); terr != nil {
				err = errors.Join(err, terr)
			}
		}
		s.tokens = s.tokens[:start]
		s.media = s.media[:len(s.media)-1]
		return fmt.Errorf("session: media chunk of %d rows at position %d: %w", n, start, errors.Unwrap(err))
	}
	s.st.Checkpoint()
	return nil
}

// spanAt returns the media span holding position pos, or nil.
func (s *Session) spanAt(pos int) *mediaSpan {
	for i := len(s.media) - 1; i >= 0; i-- {
		sp := &s.media[i]
		if pos >= sp.start+sp.n {
			return nil
		}
		if pos >= sp.start {
			return sp
		}
	}
	return nil
}

// input returns the model input for the positions from pos on, at most
// max of them: token ids up to the next media chunk, or rows of the media
// chunk holding pos. A non-causal chunk comes whole, as one non-causal
// batch (PrefillEmbeddings checked that it fits one); the only part of it
// ever run again alone is its last row (for fresh logits), which sees the
// same positions either way.
func (s *Session) input(pos, max int) models.Input {
	if sp := s.spanAt(pos); sp != nil {
		dim := s.model.Params().Dim
		off := pos - sp.start
		k := min(sp.n-off, max)
		in := models.Embeds(sp.emb[off*dim:(off+k)*dim], dim)
		in.NonCausal = sp.nonCausal && off == 0 && k == sp.n
		return in
	}
	end := min(pos+max, len(s.tokens))
	for i := pos; i < end; i++ {
		if s.tokens[i] == MediaToken {
			end = i
			break
		}
	}
	return models.Tokens(s.tokens[pos:end])
}

// mediaKeep returns where a cut to keep positions really falls: at the
// start of the media chunk keep falls inside, else keep. It also forgets
// the chunks from there on.
func (s *Session) mediaKeep(keep int) int {
	if sp := s.spanAt(keep); sp != nil && sp.start < keep {
		keep = sp.start
	}
	k := len(s.media)
	for k > 0 && s.media[k-1].start >= keep {
		k--
	}
	s.media = s.media[:k]
	return keep
}
