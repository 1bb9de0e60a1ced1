package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/litert-go/litert-go/conversation"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	var req chatRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	plan, aerr := s.planChat(&req)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	prompt, err := s.prompter.Chat(plan.history, plan.decls, plan.extra...)
	if err != nil {
		writeError(w, requestError("messages", err))
		return
	}
	maxTokens, aerr := s.maxTokens(req.MaxTokens, len(prompt))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	opts := append(plan.opts, conversation.WithMaxTokens(maxTokens))
	head := chatCompletion{ID: newID("chatcmpl-"), Created: time.Now().Unix(), Model: s.modelID, SystemFingerprint: fingerprint}
	if req.Stream {
		includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
		s.streamChat(ctx, w, head, plan, prompt, opts, maxTokens, includeUsage)
		return
	}
	var reply *conversation.Reply
	err = s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		var err error
		reply, err = c.Respond(ctx, plan.history, plan.decls, opts...)
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	msg := &outMessage{Role: conversation.RoleAssistant, ReasoningContent: reply.ReasoningContent}
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		msg.Content = ptr(reply.Text)
	}
	if len(reply.ToolCalls) > 0 {
		msg.ToolCalls = toolCalls(reply.ToolCalls, false)
	}
	head.Object = "chat.completion"
	head.Choices = []chatChoice{{Message: msg, FinishReason: ptr(finishReason(reply, maxTokens))}}
	head.Usage = toUsage(reply.Usage)
	writeJSON(w, http.StatusOK, head)
}

// streamChat answers a chat request with chat.completion.chunk events.
func (s *Server) streamChat(ctx context.Context, w http.ResponseWriter, head chatCompletion, plan *chatPlan, prompt []int32,
	opts []conversation.Option, maxTokens int, includeUsage bool) {
	head.Object = "chat.completion.chunk"
	out := newSSE(w)
	roleSent := false
	send := func(d deltaMessage, finish *string) error {
		if !roleSent {
			d.Role, roleSent = conversation.RoleAssistant, true
		}
		ev := head
		ev.Choices = []chatChoice{{Delta: &d, FinishReason: finish}}
		if err := out.send(ev); err != nil {
			return fmt.Errorf("server: client gone: %w (%w)", context.Canceled, err)
		}
		return nil
	}
	var reply *conversation.Reply
	err := s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		// The role comes first, at once, as OpenAI sends it; the model may
		// hold its first text back (leading whitespace, a possible tool
		// call).
		if err := send(deltaMessage{Content: ptr("")}, nil); err != nil {
			return err
		}
		for ch, err := range c.RespondStream(ctx, plan.history, plan.decls, opts...) {
			if err != nil {
				return err
			}
			if ch.Done {
				reply = ch.Reply
				break
			}
			d := deltaMessage{ReasoningContent: ch.Reasoning}
			if ch.Text != "" {
				d.Content = ptr(ch.Text)
			}
			if err := send(d, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && reply == nil {
		err = fmt.Errorf("server: the reply stream ended without a reply")
	}
	if err != nil {
		out.fail(err)
		return
	}
	if len(reply.ToolCalls) > 0 {
		if err := send(deltaMessage{ToolCalls: toolCalls(reply.ToolCalls, true)}, nil); err != nil {
			return
		}
	}
	if err := send(deltaMessage{}, ptr(finishReason(reply, maxTokens))); err != nil {
		return
	}
	if includeUsage {
		ev := head
		ev.Choices = []chatChoice{}
		ev.Usage = toUsage(reply.Usage)
		if out.send(ev) != nil {
			return
		}
	}
	out.done()
}

// withConversation runs fn on a pooled conversation once a slot is free.
// The conversation goes back to the prompt cache afterwards, unless fn
// failed unexpectedly.
func (s *Server) withConversation(ctx context.Context, prompt []int32, fn func(context.Context, *conversation.Conversation) error) error {
	if err := s.lim.acquire(ctx); err != nil {
		return err
	}
	defer s.lim.release()
	c, err := s.cache.get(ctx, prompt)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			s.cache.drop(c) // its state is unknown
			panic(p)
		}
	}()
	err = fn(ctx, c)
	if err != nil && asError(err).Status >= http.StatusInternalServerError && asError(err).Status != http.StatusGatewayTimeout {
		s.cache.drop(c)
		s.log.Warn("dropping a cached session after an error", "err", err)
		return err
	}
	s.cache.put(c)
	return err
}

// requestError classifies an error about the request's content: a 400
// about param unless asError knows better.
func requestError(param string, err error) *apiError {
	e := asError(err)
	if e.Status == http.StatusInternalServerError {
		return invalid(param, "invalid_value", "%v", err)
	}
	return e
}
