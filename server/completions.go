package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/session"
)

// completionRequest is the body of POST /v1/completions.
type completionRequest struct {
	commonParams
	Prompt json.RawMessage `json:"prompt"`
	// Logprobs is the number of alternatives to list with each token's
	// log-probability (0: the token's alone).
	Logprobs *int `json:"logprobs"`
	// Refused: not supported by this server.
	Echo   bool    `json:"echo"`
	Suffix *string `json:"suffix"`
	BestOf *int    `json:"best_of"`
}

// defaultCompletionTokens is OpenAI's max_tokens default for completions.
const defaultCompletionTokens = 16

// promptText reads "prompt": a string or an array of one string.
func promptText(raw json.RawMessage) (string, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", invalid("prompt", "missing_required_parameter", "you must provide a prompt")
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return one, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return "", invalid("prompt", "invalid_type", "prompt must be a string or an array of one string")
	}
	if len(many) != 1 {
		return "", invalid("prompt", "unsupported_parameter", "prompt holds %d strings; this server completes one prompt per request", len(many))
	}
	return many[0], nil
}

// handleCompletions serves POST /v1/completions.
func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	var req completionRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	if err := req.check(s); err != nil {
		writeError(w, err)
		return
	}
	switch {
	case req.Echo:
		writeError(w, invalid("echo", "unsupported_parameter", "echo is not supported"))
		return
	case req.Logprobs != nil && (*req.Logprobs < 0 || *req.Logprobs > session.MaxTopLogprobs):
		writeError(w, invalid("logprobs", "invalid_value", "logprobs must be between 0 and %d, got %d", session.MaxTopLogprobs, *req.Logprobs))
		return
	case req.Suffix != nil && *req.Suffix != "":
		writeError(w, invalid("suffix", "unsupported_parameter", "suffix is not supported"))
		return
	case req.BestOf != nil && *req.BestOf != 1:
		writeError(w, invalid("best_of", "unsupported_parameter", "best_of = %d is not supported", *req.BestOf))
		return
	}
	text, aerr := promptText(req.Prompt)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if aerr := s.checkTextLength("prompt", len(text)); aerr != nil {
		writeError(w, aerr)
		return
	}
	prompt := s.prompter.Text(text)
	if prompt.Len() == 0 {
		writeError(w, invalid("prompt", "invalid_value", "the prompt has no tokens"))
		return
	}
	smp, aerr := req.sampler(*s.cfg.Sampler)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if req.MaxTokens == nil {
		req.MaxTokens = ptr(defaultCompletionTokens)
	}
	maxTokens, aerr := s.maxTokens(req.MaxTokens, prompt.Len())
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	run := &textRun{prompt: text, sampler: smp, n: req.choices(), maxTokens: maxTokens, start: start,
		opts: []conversation.Option{conversation.WithMaxTokens(maxTokens)}}
	if req.Logprobs != nil {
		run.logprobs, run.top = true, *req.Logprobs
	}
	if len(req.Stop) > 0 {
		run.opts = append(run.opts, conversation.WithStop(req.Stop...))
	}
	head := textCompletion{ID: newID("cmpl-"), Object: "text_completion", Created: time.Now().Unix(), Model: s.modelID, SystemFingerprint: fingerprint}
	if req.Stream {
		s.streamCompletion(ctx, w, head, run, prompt, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	var total conversation.Usage
	err := s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		for i := range run.n {
			log := s.newTokenLog(start, i, run.logprobs, run.top)
			reply, err := c.Complete(ctx, text, run.choiceOpts(i, log)...)
			if err := keepIncomplete(reply, err); err != nil {
				return err
			}
			s.metrics.generation(reply.Usage, log)
			addUsage(&total, reply.Usage, i)
			head.Choices = append(head.Choices, textChoice{Index: i, Text: reply.Text, Logprobs: log.text(log.take(), len(text)),
				FinishReason: ptr(finishReason(reply, maxTokens))})
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	head.Usage = toUsage(total)
	writeJSON(w, http.StatusOK, head)
}

// textRun is a checked completion request.
type textRun struct {
	prompt    string
	sampler   session.Sampler // choice 0's; see choiceSampler
	opts      []conversation.Option
	n         int
	maxTokens int
	start     time.Time
	logprobs  bool
	top       int
}

func (t *textRun) choiceOpts(i int, log *tokenLog) []conversation.Option {
	return append(t.opts[:len(t.opts):len(t.opts)], conversation.WithSampler(choiceSampler(t.sampler, i)), log.option())
}

// streamCompletion answers a completion request with text_completion
// events, the choices one after another.
func (s *Server) streamCompletion(ctx context.Context, w http.ResponseWriter, head textCompletion, run *textRun, prompt session.Prompt, includeUsage bool) {
	out := newSSE(w)
	var usageEvent func(*usage) any
	if includeUsage {
		usageEvent = func(u *usage) any {
			ev := head
			ev.Choices = []textChoice{}
			ev.Usage = u
			return ev
		}
	}
	s.streamChoices(ctx, out, prompt, run.n, func(ctx context.Context, c *conversation.Conversation, i int) (*conversation.Reply, error) {
		return s.streamCompletionChoice(ctx, c, out, head, run, i)
	}, usageEvent)
}

// streamCompletionChoice streams choice i of a completion on c.
func (s *Server) streamCompletionChoice(ctx context.Context, c *conversation.Conversation, out *sse, head textCompletion, run *textRun, i int) (*conversation.Reply, error) {
	log := s.newTokenLog(run.start, i, run.logprobs, run.top)
	offset := len(run.prompt)
	send := func(text string, finish *string) error {
		ev := head
		lp := log.text(log.take(), offset)
		offset += len(text)
		ev.Choices = []textChoice{{Index: i, Text: text, Logprobs: lp, FinishReason: finish}}
		if err := out.send(ev); err != nil {
			return fmt.Errorf("server: client gone: %w (%w)", context.Canceled, err)
		}
		return nil
	}
	var reply *conversation.Reply
	var err error
	for ch, cerr := range c.CompleteStream(ctx, run.prompt, run.choiceOpts(i, log)...) {
		if cerr != nil {
			reply, err = ch.Reply, keepIncomplete(ch.Reply, cerr)
			break
		}
		if ch.Done {
			reply = ch.Reply
			break
		}
		if err = send(ch.Text, nil); err != nil {
			break
		}
	}
	var incomplete *conversation.IncompleteError
	if reply == nil && errors.As(err, &incomplete) {
		reply, err = &conversation.Reply{FinishReason: incomplete.Reason}, nil
	}
	if err == nil && reply == nil {
		err = fmt.Errorf("server: the completion stream ended without a reply")
	}
	if err != nil {
		return nil, err
	}
	s.metrics.generation(reply.Usage, log)
	if err := send("", ptr(finishReason(reply, run.maxTokens))); err != nil {
		return nil, err
	}
	return reply, nil
}
