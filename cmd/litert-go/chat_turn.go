package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/litert-go/litert-go/conversation"
)

// toolRecord is one tool call of a turn and what it returned.
type toolRecord struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// turnUsage counts the tokens of a turn and times its two phases.
type turnUsage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	PrefillSeconds   float64 `json:"prefill_seconds"`
	DecodeSeconds    float64 `json:"decode_seconds"`
}

// prefillRate is the prefill speed: uncached prompt tokens per second.
func (u turnUsage) prefillRate() float64 {
	return float64(u.PromptTokens-u.CachedTokens) / max(u.PrefillSeconds, 1e-9)
}

// decodeRate is the generation speed: generated tokens per second.
func (u turnUsage) decodeRate() float64 {
	return float64(u.CompletionTokens) / max(u.DecodeSeconds, 1e-9)
}

// speedLine is the dim line after each reply, as llama-cli prints
// [ Prompt: … t/s | Generation: … t/s ].
func (u turnUsage) speedLine() string {
	return fmt.Sprintf("[prompt %d tok (cached %d) · prefill %.1f t/s · decode %.1f t/s]",
		u.PromptTokens, u.CachedTokens, u.prefillRate(), u.decodeRate())
}

// turnResult is what one user message produced.
type turnResult struct {
	Text             string       `json:"text"`
	Reasoning        string       `json:"reasoning,omitempty"`
	ToolCalls        []toolRecord `json:"tool_calls"`
	ToolLimitReached bool         `json:"tool_limit_reached,omitempty"`
	Usage            turnUsage    `json:"usage"`
	Seconds          float64      `json:"seconds"`
	TokensPerSecond  float64      `json:"tokens_per_second"` // generated tokens over the whole turn's time
}

// interruptedMark ends the text of a reply stopped by Ctrl-C in the
// history, so the model (and a saved session) sees it was cut short.
const interruptedMark = "[interrupted by the user]"

// display shows a turn as it happens.
type display interface {
	text(s string)
	reasoning(s string)
	toolCall(call conversation.ToolCall)
	toolResult(rec toolRecord)
	malformed(err error)
	done(res *turnResult)
}

// turn sends one user message; with tools, the conversation's own tool
// loop runs them: the stream shows each call as the model finishes
// writing it and each result as its tool returns, until the model replies
// in text or the tool-turn limit forces it to. A failure after tools ran
// keeps their calls and results in the history (the conversation does).
func (c *chat) turn(ctx context.Context, text string, out display) (*turnResult, error) {
	if err := c.maybeCompact(ctx, false); err != nil {
		return nil, err
	}
	start := time.Now()
	var opts []conversation.Option
	if c.grammar != nil {
		opts = append(opts, conversation.WithConstraint(c.grammar))
	}
	if c.tools != nil {
		opts = append(opts, conversation.WithTools(c.tools.tools...), conversation.WithMaxToolTurns(c.flags.maxToolTurns),
			conversation.WithToolChoice(conversation.ToolChoice(c.flags.toolChoice)), conversation.WithParallelToolCalls(c.flags.parallel))
	}
	calls := &callStream{out: out}
	var reply *conversation.Reply
	var err error
	var shown, shownReasoning strings.Builder // what the user saw, kept if Ctrl-C stops the reply
	wait := &spinner{w: c.sio.out, label: "prefill", on: c.tty, delay: time.Second}
	wait.start()
	defer wait.end()
	msg := c.userMessage(text)
	for ch, cerr := range c.conv.SendMessageStream(ctx, msg, opts...) {
		wait.end()
		if cerr != nil {
			err = cerr // the stream holds the conversation's lock until it ends
			break
		}
		shown.WriteString(ch.Text)
		shownReasoning.WriteString(ch.Reasoning)
		if ch.Reasoning != "" || ch.Text != "" {
			calls.flush(-1)
			if ch.Reasoning != "" {
				out.reasoning(ch.Reasoning)
			}
			if ch.Text != "" {
				out.text(ch.Text)
			}
		}
		if ch.ToolCall != nil {
			calls.delta(*ch.ToolCall)
		}
		if r := ch.ToolResult; r != nil {
			if r.Call.Name == "error" && r.Err != nil {
				calls.flush(-1)
				out.malformed(r.Err) // a malformed call, shown to the model as it happens
			} else {
				calls.result(*r)
			}
		}
		if ch.Done {
			reply = ch.Reply
		}
	}
	wait.end()
	if err == nil && reply == nil {
		err = errors.New("the reply ended without a result")
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			if kerr := c.keepInterrupted(msg, shown.String(), shownReasoning.String(), err); kerr != nil {
				return nil, errors.Join(err, kerr)
			}
		}
		return nil, err
	}
	if reply.Truncated != nil && reply.Truncated.Name != "" && len(calls.pending) > calls.shown {
		calls.pending = calls.pending[:len(calls.pending)-1] // the cut-off call, reported below
	}
	calls.flush(-1)
	u := reply.Usage
	res := &turnResult{ToolCalls: []toolRecord{}, ToolLimitReached: reply.ToolLimitReached, Usage: turnUsage{
		PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens, CompletionTokens: u.CompletionTokens,
		PrefillSeconds: reply.Timings.Prefill.Seconds(), DecodeSeconds: reply.Timings.Decode.Seconds()}}
	for _, m := range reply.Added {
		if m.Role != conversation.RoleAssistant {
			continue
		}
		if t := strings.TrimSpace(m.Text); t != "" {
			if res.Text != "" {
				res.Text += "\n"
			}
			res.Text += t
		}
		res.Reasoning += m.ReasoningContent
	}
	for _, r := range reply.ToolRuns {
		res.ToolCalls = append(res.ToolCalls, recordOf(r))
	}
	if reply.ToolCallErr != nil {
		out.malformed(reply.ToolCallErr)
	}
	if t := reply.Truncated; t != nil {
		out.malformed(fmt.Errorf("the token limit (--max-tokens %d) cut off the call of %q after %d bytes of arguments", c.flags.maxTokens, t.Name, len(t.Arguments)))
	}
	elapsed := time.Since(start)
	res.Seconds = elapsed.Seconds()
	if elapsed > 0 {
		res.TokensPerSecond = float64(res.Usage.CompletionTokens) / elapsed.Seconds()
	}
	c.last = *res
	c.total.turns++
	c.total.prompt += res.Usage.PromptTokens
	c.total.cached += res.Usage.CachedTokens
	c.total.completion += res.Usage.CompletionTokens
	c.total.prefillTime += reply.Timings.Prefill
	c.total.decodeTime += reply.Timings.Decode
	out.done(res)
	return res, nil
}

// userMessage is the user's message of text, with the media attached by
// /image and /audio since the last one (which it takes).
func (c *chat) userMessage(text string) conversation.Message {
	if len(c.attached) == 0 {
		return conversation.UserText(text)
	}
	parts := append(c.attached, conversation.Part{Type: "text", Text: text})
	c.attached = nil
	return conversation.Message{Role: conversation.RoleUser, Parts: parts}
}

// attach checks the image or audio file at path and attaches it to the
// next message.
func (c *chat) attach(kind, path string) error {
	if path == "" {
		return fmt.Errorf("/%s needs a file name", kind)
	}
	p := conversation.Part{Type: kind, Path: path}
	m, err := conversation.LoadMedia(p)
	if err != nil {
		return err
	}
	c.attached = append(c.attached, p)
	switch kind {
	case "image":
		c.notice("[%s: %s image, %d×%d, attached to the next message]", path, m.Format, m.Width, m.Height)
	default:
		c.notice("[%s: %s audio, %d Hz, attached to the next message]", path, m.Format, m.SampleRate)
	}
	return nil
}

// keepInterrupted puts a reply that Ctrl-C stopped into the history, as
// ollama and llama-cli keep it: the user's message (unless the
// conversation kept it already, because tools ran) and an assistant
// message with the text shown so far followed by interruptedMark. The
// next prompt renders that message like any other reply, so the template
// sees "partial text [interrupted by the user]" as the assistant's turn
// and the roles still alternate.
func (c *chat) keepInterrupted(user conversation.Message, text, reasoning string, err error) error {
	hist := c.conv.History()
	var te *conversation.TurnError
	if !errors.As(err, &te) {
		hist = append(hist, user)
	}
	text = strings.TrimRight(text, " \t\r\n")
	if text != "" {
		text += " "
	}
	hist = append(hist, conversation.Message{Role: conversation.RoleAssistant, Text: text + interruptedMark, ReasoningContent: reasoning})
	if err := c.conv.Restore(hist); err != nil {
		return err
	}
	return c.autosave()
}

// recordOf is a tool run as the chat reports it.
func recordOf(r conversation.ToolRun) toolRecord {
	rec := toolRecord{Name: r.Call.Name, Arguments: r.Call.Arguments}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	} else {
		rec.Result = json.RawMessage(r.Result)
	}
	return rec
}

// callStream assembles the streamed tool calls of a generation and shows
// each once it is complete: when the model starts the next call, writes
// text, or a tool result arrives. A call cut off by the token limit is
// never shown as a call (the reply reports it).
type callStream struct {
	out     display
	pending []conversation.ToolCall // this generation's calls, by index
	shown   int                     // pending[:shown] are displayed
}

func (s *callStream) delta(d conversation.ToolCallDelta) {
	if d.Index < 0 {
		return
	}
	if d.Index < s.shown && d.ID != "" {
		s.pending, s.shown = nil, 0 // a new generation numbers its calls from 0
	}
	for len(s.pending) <= d.Index {
		s.pending = append(s.pending, conversation.ToolCall{})
	}
	c := &s.pending[d.Index]
	if d.ID != "" {
		c.ID, c.Name = d.ID, d.Name
	}
	c.Arguments = append(c.Arguments, d.Arguments...)
	s.flush(d.Index) // the calls before this one are complete
}

// flush shows the pending calls before index upTo (all of them for -1).
func (s *callStream) flush(upTo int) {
	if upTo < 0 || upTo > len(s.pending) {
		upTo = len(s.pending)
	}
	for ; s.shown < upTo; s.shown++ {
		s.out.toolCall(s.pending[s.shown])
	}
}

// result shows a tool's result, after the calls up to its own.
func (s *callStream) result(r conversation.ToolRun) {
	for i := s.shown; i < len(s.pending); i++ {
		if s.pending[i].ID == r.Call.ID {
			s.flush(i + 1)
			break
		}
	}
	if s.shown == 0 && len(s.pending) == 0 {
		s.out.toolCall(r.Call) // a call that was not streamed
	}
	s.out.toolResult(recordOf(r))
}
