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
)

// completionRequest is the body of POST /v1/completions.
type completionRequest struct {
	commonParams
	Prompt json.RawMessage `json:"prompt"`
	// Refused: not supported by this server.
	Echo     bool            `json:"echo"`
	Logprobs json.RawMessage `json:"logprobs"`
	Suffix   *string         `json:"suffix"`
	BestOf   *int            `json:"best_of"`
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
	case len(req.Logprobs) > 0 && string(req.Logprobs) != "null":
		writeError(w, invalid("logprobs", "unsupported_parameter", "logprobs are not supported"))
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
	if len(prompt) == 0 {
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
	maxTokens, aerr := s.maxTokens(req.MaxTokens, len(prompt))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	opts := []conversation.Option{conversation.WithSampler(smp), conversation.WithMaxTokens(maxTokens)}
	if len(req.Stop) > 0 {
		opts = append(opts, conversation.WithStop(req.Stop...))
	}
	head := textCompletion{ID: newID("cmpl-"), Object: "text_completion", Created: time.Now().Unix(), Model: s.modelID, SystemFingerprint: fingerprint}
	if req.Stream {
		s.streamCompletion(ctx, w, head, text, prompt, opts, maxTokens, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	var reply *conversation.Reply
	err := s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		var err error
		reply, err = c.Complete(ctx, text, opts...)
		return keepIncomplete(reply, err)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	head.Choices = []textChoice{{Text: reply.Text, FinishReason: ptr(finishReason(reply, maxTokens))}}
	head.Usage = toUsage(reply.Usage)
	writeJSON(w, http.StatusOK, head)
}

// streamCompletion answers a completion request with text_completion
// events.
func (s *Server) streamCompletion(ctx context.Context, w http.ResponseWriter, head textCompletion, text string, prompt []int32,
	opts []conversation.Option, maxTokens int, includeUsage bool) {
	out := newSSE(w)
	send := func(text string, finish *string) error {
		ev := head
		ev.Choices = []textChoice{{Text: text, FinishReason: finish}}
		if err := out.send(ev); err != nil {
			return fmt.Errorf("server: client gone: %w (%w)", context.Canceled, err)
		}
		return nil
	}
	var reply *conversation.Reply
	err := s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		for ch, err := range c.CompleteStream(ctx, text, opts...) {
			if err != nil {
				reply = ch.Reply
				return keepIncomplete(reply, err)
			}
			if ch.Done {
				reply = ch.Reply
				break
			}
			if err := send(ch.Text, nil); err != nil {
				return err
			}
		}
		return nil
	})
	var incomplete *conversation.IncompleteError
	if reply == nil && errors.As(err, &incomplete) {
		reply, err = &conversation.Reply{FinishReason: incomplete.Reason}, nil
	}
	if err == nil && reply == nil {
		err = fmt.Errorf("server: the completion stream ended without a reply")
	}
	if err != nil {
		out.fail(err)
		return
	}
	if send("", ptr(finishReason(reply, maxTokens))) != nil {
		return
	}
	if includeUsage {
		ev := head
		ev.Choices = []textChoice{}
		ev.Usage = toUsage(reply.Usage)
		if out.send(ev) != nil {
			return
		}
	}
	out.done()
}
