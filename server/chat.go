package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/session"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	var req chatRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	plan, aerr := s.planChat(ctx, &req)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	req.Messages = nil // converted into plan.history: let the raw contents go
	if aerr := s.checkTextLength("messages", historyText(plan.history)); aerr != nil {
		writeError(w, aerr)
		return
	}
	prompt, err := s.prompter.Chat(ctx, plan.history, plan.decls, plan.extra...)
	if err != nil {
		writeError(w, requestError("messages", err))
		return
	}
	maxTokens, aerr := s.maxTokens(req.MaxTokens, prompt.Len())
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	plan.opts = append(plan.opts, conversation.WithMaxTokens(maxTokens))
	head := chatCompletion{ID: newID("chatcmpl-"), Created: time.Now().Unix(), Model: s.modelID, SystemFingerprint: fingerprint}
	if req.Stream {
		includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
		s.streamChat(ctx, w, start, head, plan, prompt, maxTokens, includeUsage)
		return
	}
	head.Object = "chat.completion"
	var total conversation.Usage
	// The choices run one after another on the request's conversation:
	// the first prefills the prompt, the next ones find it in the KV cache
	// (they run its last token again) and differ by their seeds.
	err = s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		for i := range plan.n {
			log := s.newTokenLog(start, i, plan.logprobs, plan.top)
			reply, err := c.Respond(ctx, plan.history, plan.decls, plan.choiceOpts(i, log)...)
			if err := keepIncomplete(reply, err); err != nil {
				return err
			}
			s.metrics.generation(reply.Usage, log)
			addUsage(&total, reply.Usage, i)
			head.Choices = append(head.Choices, chatChoice{Index: i, Message: replyMessage(reply),
				Logprobs: log.chat(log.take()), FinishReason: ptr(finishReason(reply, maxTokens))})
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

// choiceOpts are the conversation options of choice i, its tokens
// reported to log.
func (p *chatPlan) choiceOpts(i int, log *tokenLog) []conversation.Option {
	return append(p.opts[:len(p.opts):len(p.opts)], conversation.WithSampler(choiceSampler(p.sampler, i)), log.option())
}

// addUsage adds choice i's usage to a request's: the prompt counts once,
// the completions of every choice.
func addUsage(total *conversation.Usage, u conversation.Usage, i int) {
	if i == 0 {
		total.PromptTokens, total.CachedTokens = u.PromptTokens, u.CachedTokens
	}
	total.CompletionTokens += u.CompletionTokens
}

// replyMessage is the assistant message of a reply.
func replyMessage(reply *conversation.Reply) *outMessage {
	calls := replyCalls(reply)
	msg := &outMessage{Role: conversation.RoleAssistant, ReasoningContent: reply.ReasoningContent}
	if reply.Text != "" || len(calls) == 0 {
		msg.Content = ptr(reply.Text)
	}
	if len(calls) > 0 {
		var ids callIDs
		msg.ToolCalls = make([]outToolCall, len(calls))
		for i, c := range calls {
			msg.ToolCalls[i] = toolCall(c, ids.get(i, c.ID), nil)
		}
	}
	return msg
}

// streamChat answers a chat request with chat.completion.chunk events, the
// choices one after another.
func (s *Server) streamChat(ctx context.Context, w http.ResponseWriter, start time.Time, head chatCompletion, plan *chatPlan, prompt session.Prompt,
	maxTokens int, includeUsage bool) {
	head.Object = "chat.completion.chunk"
	out := newSSE(w)
	var usageEvent func(*usage) any
	if includeUsage {
		usageEvent = func(u *usage) any {
			ev := head
			ev.Choices = []chatChoice{}
			ev.Usage = u
			return ev
		}
	}
	s.streamChoices(ctx, out, prompt, plan.n, func(ctx context.Context, c *conversation.Conversation, i int) (*conversation.Reply, error) {
		return s.streamChatChoice(ctx, c, out, start, head, plan, i, maxTokens)
	}, usageEvent)
}

// streamChoices streams n choices one after another on the request's
// conversation (each later one finds the prompt cached), then, when
// usageEvent is set, the event carrying the usage summed over the choices,
// then [DONE]. An error ends the stream with an error event.
func (s *Server) streamChoices(ctx context.Context, out *sse, prompt session.Prompt, n int,
	choice func(ctx context.Context, c *conversation.Conversation, i int) (*conversation.Reply, error), usageEvent func(*usage) any) {
	var total conversation.Usage
	err := s.withConversation(ctx, prompt, func(ctx context.Context, c *conversation.Conversation) error {
		for i := range n {
			reply, err := choice(ctx, c, i)
			if err != nil {
				return err
			}
			addUsage(&total, reply.Usage, i)
		}
		return nil
	})
	if err != nil {
		out.fail(err)
		return
	}
	if usageEvent != nil && out.send(usageEvent(toUsage(total))) != nil {
		return
	}
	out.done()
}

// streamChatChoice streams choice i of a chat request on c.
func (s *Server) streamChatChoice(ctx context.Context, c *conversation.Conversation, out *sse, start time.Time, head chatCompletion,
	plan *chatPlan, i, maxTokens int) (*conversation.Reply, error) {
	log := s.newTokenLog(start, i, plan.logprobs, plan.top)
	roleSent := false
	send := func(d deltaMessage, finish *string) error {
		if !roleSent {
			d.Role, roleSent = conversation.RoleAssistant, true
		}
		ev := head
		ev.Choices = []chatChoice{{Index: i, Delta: &d, FinishReason: finish}}
		if d.Content != nil && *d.Content != "" || d.ReasoningContent != "" || finish != nil {
			// The tokens written since the last text: a content piece
			// carries those that spelled it.
			ev.Choices[0].Logprobs = log.chat(log.take())
		}
		if err := out.send(ev); err != nil {
			return fmt.Errorf("server: client gone: %w (%w)", context.Canceled, err)
		}
		return nil
	}
	// The role comes first, at once, as OpenAI sends it; the model may
	// hold its first text back (leading whitespace, a possible tool call).
	if err := send(deltaMessage{Content: ptr("")}, nil); err != nil {
		return nil, err
	}
	var reply *conversation.Reply
	calls := &streamedCalls{send: func(tc outToolCall) error { return send(deltaMessage{ToolCalls: []outToolCall{tc}}, nil) }}
	var err error
	for ch, cerr := range c.RespondStream(ctx, plan.history, plan.decls, plan.choiceOpts(i, log)...) {
		if cerr != nil {
			reply, err = ch.Reply, keepIncomplete(ch.Reply, cerr)
			break
		}
		if ch.Done {
			reply = ch.Reply
			break
		}
		if ch.Text != "" || ch.Reasoning != "" {
			d := deltaMessage{ReasoningContent: ch.Reasoning}
			if ch.Text != "" {
				d.Content = ptr(ch.Text)
			}
			if err = send(d, nil); err != nil {
				break
			}
		}
		if ch.ToolCall != nil {
			if err = calls.delta(*ch.ToolCall); err != nil {
				break
			}
		}
	}
	var incomplete *conversation.IncompleteError
	if reply == nil && errors.As(err, &incomplete) {
		// The stream gave no reply with the error: the text went out
		// already; only the reason is left to say.
		reply, err = &conversation.Reply{FinishReason: incomplete.Reason}, nil
	}
	if err == nil && reply == nil {
		err = fmt.Errorf("server: the reply stream ended without a reply")
	}
	if err != nil {
		return nil, err
	}
	s.metrics.generation(reply.Usage, log)
	if err := calls.finish(replyCalls(reply)); err != nil {
		if !errors.Is(err, context.Canceled) {
			s.log.Warn("streamed tool calls", "err", err)
		}
		return nil, err
	}
	if err := send(deltaMessage{}, ptr(finishReason(reply, maxTokens))); err != nil {
		return nil, err
	}
	return reply, nil
}

// historyText is the bytes of text of the messages, which the rendered
// prompt holds (reasoning and tool calls not counted: templates may drop
// them).
func historyText(history []conversation.Message) int {
	n := 0
	for _, m := range history {
		n += len(m.Text)
		for _, p := range m.Parts {
			n += len(p.Text)
		}
	}
	return n
}

// withConversation runs fn on a pooled conversation once a slot is free.
// The conversation goes back to the prompt cache afterwards, unless fn
// failed unexpectedly.
func (s *Server) withConversation(ctx context.Context, prompt session.Prompt, fn func(context.Context, *conversation.Conversation) error) error {
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
// about param unless asError knows better (a chat template over its budget
// stays a 500).
func requestError(param string, err error) *apiError {
	e := asError(err)
	if e.Status == http.StatusInternalServerError && e.Code == nil {
		return invalid(param, "invalid_value", "%v", err)
	}
	return e
}

// keepIncomplete turns a constrained reply that did not complete (the
// token limit cut the JSON) into a success, as OpenAI answers it: the
// partial text with finish_reason "length". Other errors pass.
func keepIncomplete(reply *conversation.Reply, err error) error {
	var ie *conversation.IncompleteError
	if reply != nil && errors.As(err, &ie) {
		if reply.FinishReason == "" {
			reply.FinishReason = ie.Reason
		}
		return nil
	}
	return err
}

// replyCalls is the calls a response carries: the reply's complete calls,
// then the one the token limit cut off, with the arguments written so far
// (finish_reason "length" says so), as OpenAI returns a cut-off call.
func replyCalls(r *conversation.Reply) []conversation.ToolCall {
	if r.Truncated == nil || r.Truncated.Name == "" {
		return r.ToolCalls
	}
	return append(r.ToolCalls[:len(r.ToolCalls):len(r.ToolCalls)], *r.Truncated)
}

// streamedCalls turns the conversation's tool-call deltas into OpenAI's
// streamed tool_calls: a call's first delta carries its index, id, type
// and name with empty arguments, the next ones pieces of the arguments.
type streamedCalls struct {
	send func(outToolCall) error
	ids  callIDs
	sent []sentCall // per call index
}

type sentCall struct {
	started bool   // the header went out
	args    string // the arguments sent
}

// header sends call i's first delta.
func (s *streamedCalls) header(i int, id, name string) error {
	for len(s.sent) <= i {
		s.sent = append(s.sent, sentCall{})
	}
	s.sent[i].started = true
	return s.send(toolCall(conversation.ToolCall{Name: name}, s.ids.get(i, id), &i))
}

// args sends a piece of call i's arguments.
func (s *streamedCalls) args(i int, piece string) error {
	if piece == "" {
		return nil
	}
	s.sent[i].args += piece
	var tc outToolCall
	tc.Index = &i
	tc.Function.Arguments = piece
	return s.send(tc)
}

func (s *streamedCalls) delta(d conversation.ToolCallDelta) error {
	if d.Index < 0 {
		return fmt.Errorf("server: tool-call delta with index %d", d.Index)
	}
	if d.Index >= len(s.sent) || !s.sent[d.Index].started {
		if err := s.header(d.Index, d.ID, d.Name); err != nil {
			return err
		}
	}
	return s.args(d.Index, d.Arguments)
}

// finish sends what the deltas did not of the reply's final calls: a
// call never streamed, or the rest of its arguments. It fails when a call
// streamed differs from the final one (the client has it wrong).
func (s *streamedCalls) finish(calls []conversation.ToolCall) error {
	for i, c := range calls {
		final := string(c.Arguments)
		if len(final) == 0 {
			final = "{}"
		}
		if i >= len(s.sent) || !s.sent[i].started {
			if err := s.header(i, c.ID, c.Name); err != nil {
				return err
			}
		}
		sent := s.sent[i].args
		if !strings.HasPrefix(final, sent) {
			return fmt.Errorf("server: call %d (%s): streamed arguments %q are not a prefix of the final %q", i, c.Name, sent, final)
		}
		if err := s.args(i, final[len(sent):]); err != nil {
			return err
		}
	}
	return nil
}
