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

// turnUsage counts the tokens of a turn.
type turnUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// turnResult is what one user message produced.
type turnResult struct {
	Text             string       `json:"text"`
	Reasoning        string       `json:"reasoning,omitempty"`
	ToolCalls        []toolRecord `json:"tool_calls"`
	ToolLimitReached bool         `json:"tool_limit_reached,omitempty"`
	Usage            turnUsage    `json:"usage"`
	Seconds          float64      `json:"seconds"`
	TokensPerSecond  float64      `json:"tokens_per_second"`
}

// display shows a turn as it happens.
type display interface {
	text(s string)
	reasoning(s string)
	toolCall(call conversation.ToolCall)
	toolResult(rec toolRecord)
	malformed(err error)
	done(res *turnResult)
}

// turn sends one user message and runs the tool loop: the model's calls
// are shown, run concurrently and answered until it replies in text or the
// tool-turn limit forces it to. A failure keeps the history of what
// happened before it (tool calls are always answered).
func (c *chat) turn(ctx context.Context, text string, out display) (*turnResult, error) {
	if err := c.maybeCompact(ctx, false); err != nil {
		return nil, err
	}
	start := time.Now()
	res := &turnResult{ToolCalls: []toolRecord{}}
	msg := conversation.UserText(text)
	var pending []conversation.Message // tool results not yet in the history
	limit := false
	for round := 0; ; round++ {
		opts := []conversation.Option{}
		if c.grammar != nil {
			opts = append(opts, conversation.WithConstraint(c.grammar))
		}
		if c.tools != nil {
			choice := conversation.ToolChoiceAuto
			switch {
			case limit:
				choice = conversation.ToolChoiceNone
			case round == 0:
				choice = conversation.ToolChoice(c.flags.toolChoice)
			}
			opts = append(opts, conversation.WithReturnToolRequests(), conversation.WithToolChoice(choice),
				conversation.WithParallelToolCalls(c.flags.parallel))
		}
		if len(pending) > 0 {
			if err := c.conv.Restore(append(c.conv.History(), pending...)); err != nil {
				return nil, err
			}
			pending = nil
		}
		var reply *conversation.Reply
		var err error
		for ch, cerr := range c.conv.SendMessageStream(ctx, msg, opts...) {
			if cerr != nil {
				err = cerr // the stream holds the conversation's lock until it ends
				break
			}
			if ch.Reasoning != "" {
				out.reasoning(ch.Reasoning)
			}
			if ch.Text != "" {
				out.text(ch.Text)
			}
			if ch.Done {
				reply = ch.Reply
			}
		}
		if err == nil && reply == nil {
			err = errors.New("the reply ended without a result")
		}
		if err != nil {
			if msg.Role == conversation.RoleTool {
				// Keep the answered calls: the tools did run.
				_ = c.conv.Restore(append(c.conv.History(), msg))
			}
			return nil, err
		}
		res.Usage.PromptTokens += reply.Usage.PromptTokens
		res.Usage.CachedTokens += reply.Usage.CachedTokens
		res.Usage.CompletionTokens += reply.Usage.CompletionTokens
		if t := strings.TrimSpace(reply.Text); t != "" {
			if res.Text != "" {
				res.Text += "\n"
			}
			res.Text += t
		}
		res.Reasoning += reply.ReasoningContent
		if c.tools == nil {
			break
		}
		if reply.ToolCallErr != nil && !limit {
			// Show the model its malformed call so it can try again.
			out.malformed(reply.ToolCallErr)
			msg = conversation.Message{Role: conversation.RoleTool, Name: "error", Text: reply.ToolCallErr.Error()}
			limit = round+1 >= c.flags.maxToolTurns
			res.ToolLimitReached = limit
			continue
		}
		if len(reply.ToolCalls) == 0 {
			break
		}
		for _, call := range reply.ToolCalls {
			out.toolCall(call)
		}
		results := c.tools.run(ctx, reply.ToolCalls)
		msgs := make([]conversation.Message, len(results))
		for i, r := range results {
			out.toolResult(r)
			res.ToolCalls = append(res.ToolCalls, r)
			content := string(r.Result)
			if r.Error != "" {
				b, _ := json.Marshal(map[string]string{"error": r.Error})
				content = string(b)
			}
			msgs[i] = conversation.ToolResult(reply.ToolCalls[i], content)
		}
		pending, msg = msgs[:len(msgs)-1], msgs[len(msgs)-1]
		if err := ctx.Err(); err != nil {
			_ = c.conv.Restore(append(c.conv.History(), msgs...))
			return nil, fmt.Errorf("after running the tools: %w", err)
		}
		limit = round+1 >= c.flags.maxToolTurns
		res.ToolLimitReached = limit
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
	c.total.genTime += elapsed
	out.done(res)
	return res, nil
}
