package models

import (
	"fmt"
	"math"
)

// NonFiniteError reports a forward pass whose logits are NaN or infinite,
// and where in the model the first non-finite value appeared: a sign of
// broken weights (a NaN or an overflow in a tensor) rather than of
// anything the caller did.
type NonFiniteError struct {
	Arch  string
	Stage string  // "token_embd", "attention" or "feed-forward" (of block Layer), "output_norm" or "output"
	Layer int     // the block, -1 outside the blocks
	Pos   int     // the first position, of the call that was checked, whose values are not finite
	Value float32 // the first non-finite value
}

func (e *NonFiniteError) Error() string {
	where := e.Stage
	if e.Layer >= 0 {
		where = fmt.Sprintf("blk.%d %s", e.Layer, e.Stage)
	}
	return fmt.Sprintf("models: %s: the forward pass produced %g first in the output of %s (position %d); the model's weights are broken",
		e.Arch, e.Value, where, e.Pos)
}

// ForwardChecked is m.Forward that, when logits are asked for, checks that
// they are finite: one pass over the VocabSize logits, nothing per layer.
// When one is not, it runs the tokens again with a check after every
// stage to name the first stage that produced a non-finite value, and
// returns a *NonFiniteError; the state then holds the positions it held
// before the call.
//
// A State with convolution or recurrent state cannot be set back by its
// length alone: there the failed call's positions are dropped with
// Truncate(pos0), which may resume earlier (the caller re-runs its tokens
// from s.Len() on), and the stage is not searched for (Stage "output").
func ForwardChecked(m Model, s *State, in Input, logits []float32) error {
	pos0 := s.n
	m.Forward(s, in, logits)
	i := -1
	if logits != nil {
		i = firstNonFinite(logits)
	}
	if i < 0 {
		return nil
	}
	first := logits[i]
	if s.stateful {
		s.restore(pos0)
		return &NonFiniteError{Arch: m.Params().Arch, Layer: -1, Stage: "output", Pos: pos0 + in.Len() - 1, Value: first}
	}
	s.n = pos0
	s.trace = &NonFiniteError{Arch: m.Params().Arch, Layer: -1}
	defer func() { s.trace, s.n = nil, pos0 }()
	m.Forward(s, in, logits)
	e := s.trace
	if e.Stage == "" {
		// The second run came out finite (a kernel's order of operations
		// can differ between runs): report the logits of the first.
		e.Stage, e.Pos, e.Value = "output", pos0+in.Len()-1, first
	}
	return e
}

// traced is called by Forward after each stage: when ForwardChecked is
// tracing, it records the first stage whose output v, rows of rowLen
// values for positions pos, pos+1, …, holds a non-finite value.
func (s *State) traced(stage string, layer int, v []float32, rowLen, pos int) {
	if s.trace == nil || s.trace.Stage != "" {
		return
	}
	if i := firstNonFinite(v); i >= 0 {
		s.trace.Stage, s.trace.Layer, s.trace.Pos, s.trace.Value = stage, layer, pos+i/rowLen, v[i]
	}
}

// firstNonFinite returns the index of the first NaN or ±Inf in v, or -1.
func firstNonFinite(v []float32) int {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}
