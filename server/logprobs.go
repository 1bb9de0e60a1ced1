package server

import (
	"math"
	"time"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/session"
)

// Logprobs are the log-softmax of the model's logits at each step, the
// distribution the sampler starts from: before repetition penalties, the
// grammar mask of a constrained reply and temperature, as OpenAI and
// llama-server (post_sampling_probs off) report them. They cover every
// generated token of the reply in order, reasoning and tool-call markup
// included, not the end-of-turn token.

// chatLogprobs is a chat choice's "logprobs".
type chatLogprobs struct {
	Content []logprobEntry `json:"content"`
	Refusal []logprobEntry `json:"refusal"`
}

// logprobEntry is one token of logprobs.content.
type logprobEntry struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []topLogprob `json:"top_logprobs"`
}

type topLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// textLogprobs is a text completion choice's "logprobs", in the legacy
// shape: parallel lists, text_offset counted from the prompt's start.
type textLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// tokenLog watches one choice's generation through the conversation's
// token report: when its tokens came (for the metrics) and, if asked,
// their logprobs.
type tokenLog struct {
	s        *Server
	logprobs bool
	top      int
	start    time.Time // the request's start; zero for the choices after the first
	first    time.Time // the first token's
	last     time.Time
	n        int
	entries  []logprobEntry // not yet taken
}

// newTokenLog returns the log of choice i of a request that started at
// start.
func (s *Server) newTokenLog(start time.Time, i int, logprobs bool, top int) *tokenLog {
	l := &tokenLog{s: s, logprobs: logprobs, top: top}
	if i == 0 {
		l.start = start
	}
	return l
}

// option is the conversation option that feeds the log.
func (l *tokenLog) option() conversation.Option {
	return conversation.WithTokenReport(session.TokenReport{Func: l.add, Logprobs: l.logprobs, TopLogprobs: l.top})
}

func (l *tokenLog) add(t session.Token) {
	now := time.Now()
	if l.n == 0 {
		l.first = now
	}
	l.last = now
	l.n++
	if !l.logprobs {
		return
	}
	text, b := l.s.tokenText(t.ID)
	e := logprobEntry{Token: text, Logprob: jsonLogprob(t.Logprob), Bytes: b, TopLogprobs: make([]topLogprob, len(t.Top))}
	for i, alt := range t.Top {
		at, ab := l.s.tokenText(alt.ID)
		e.TopLogprobs[i] = topLogprob{Token: at, Logprob: jsonLogprob(alt.Logprob), Bytes: ab}
	}
	l.entries = append(l.entries, e)
}

// take returns the entries logged since the last take.
func (l *tokenLog) take() []logprobEntry {
	e := l.entries
	l.entries = nil
	return e
}

// chat returns a chat choice's logprobs for entries; nil when none were
// asked.
func (l *tokenLog) chat(entries []logprobEntry) *chatLogprobs {
	if !l.logprobs {
		return nil
	}
	if entries == nil {
		entries = []logprobEntry{}
	}
	return &chatLogprobs{Content: entries}
}

// text returns a completion choice's logprobs for entries, whose text
// starts at byte offset of the prompt and reply; nil when none were asked.
func (l *tokenLog) text(entries []logprobEntry, offset int) *textLogprobs {
	if !l.logprobs {
		return nil
	}
	out := &textLogprobs{Tokens: []string{}, TokenLogprobs: []float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
	for _, e := range entries {
		out.Tokens = append(out.Tokens, e.Token)
		out.TokenLogprobs = append(out.TokenLogprobs, e.Logprob)
		top := make(map[string]float64, len(e.TopLogprobs))
		for _, alt := range e.TopLogprobs {
			if _, dup := top[alt.Token]; !dup { // two tokens may spell the same text
				top[alt.Token] = alt.Logprob
			}
		}
		out.TopLogprobs = append(out.TopLogprobs, top)
		out.TextOffset = append(out.TextOffset, offset)
		offset += len(e.Bytes)
	}
	return out
}

// tokenText is a token's text and bytes as logprobs show them: its piece
// of text, or for a control token its spelling ("<|im_end|>").
func (s *Server) tokenText(id int32) (string, []int) {
	tok := s.eng.Tokenizer()
	piece := tok.TokenPiece(id)
	if piece == "" {
		piece, _ = tok.DecodeSpecial([]int32{id})
	}
	b := make([]int, len(piece))
	for i := range len(piece) {
		b[i] = int(piece[i])
	}
	return piece, b
}

// jsonLogprob makes a log-probability encodable: JSON has no -Inf, so a
// token of probability 0 (a masked alternative) gets -9999, as OpenAI
// reports such tokens.
func jsonLogprob(lp float32) float64 {
	if math.IsInf(float64(lp), -1) || math.IsNaN(float64(lp)) {
		return -9999
	}
	return float64(lp)
}
