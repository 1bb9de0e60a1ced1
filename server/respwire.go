package server

import (
	"regexp"

	"github.com/litert-go/litert-go/conversation"
)

// chatCompletion is a chat.completion or a chat.completion.chunk.
type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []chatChoice `json:"choices"`
	Usage             *usage       `json:"usage,omitempty"`
}

type chatChoice struct {
	Index        int           `json:"index"`
	Message      *outMessage   `json:"message,omitempty"`
	Delta        *deltaMessage `json:"delta,omitempty"`
	Logprobs     *struct{}     `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
}

// outMessage is the assistant message of a chat.completion.
type outMessage struct {
	Role             string        `json:"role"`
	Content          *string       `json:"content"`
	Refusal          *string       `json:"refusal"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
	ToolCalls        []outToolCall `json:"tool_calls,omitempty"`
}

// deltaMessage is the delta of a chat.completion.chunk.
type deltaMessage struct {
	Role             string        `json:"role,omitempty"`
	Content          *string       `json:"content,omitempty"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
	ToolCalls        []outToolCall `json:"tool_calls,omitempty"`
}

type outToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func toUsage(u conversation.Usage) *usage {
	out := &usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	out.PromptTokensDetails.CachedTokens = u.CachedTokens
	return out
}

// textCompletion is a text_completion (also its stream chunks).
type textCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []textChoice `json:"choices"`
	Usage             *usage       `json:"usage,omitempty"`
}

type textChoice struct {
	Index        int       `json:"index"`
	Text         string    `json:"text"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// fingerprint is the system_fingerprint of every response.
const fingerprint = "litert-go"

// Finish reasons.
const (
	finishStop      = "stop"
	finishLength    = "length"
	finishToolCalls = "tool_calls"
)

// finishReason says why a reply ended: tool calls, the token budget, or
// the model stopping (end of turn, a stop string, a finished constraint).
func finishReason(r *conversation.Reply, maxTokens int) string {
	switch {
	case len(r.ToolCalls) > 0:
		return finishToolCalls
	case r.Usage.CompletionTokens >= maxTokens:
		return finishLength
	}
	return finishStop
}

var placeholderID = regexp.MustCompile(`^call_\d+$`)

// toolCalls converts a reply's calls, replacing the conversation's
// positional ids (call_0, …) with unique ones.
func toolCalls(calls []conversation.ToolCall, withIndex bool) []outToolCall {
	out := make([]outToolCall, len(calls))
	for i, c := range calls {
		id := c.ID
		if id == "" || placeholderID.MatchString(id) {
			id = newID("call_")
		}
		out[i].ID, out[i].Type = id, "function"
		out[i].Function.Name = c.Name
		out[i].Function.Arguments = string(c.Arguments)
		if len(c.Arguments) == 0 {
			out[i].Function.Arguments = "{}"
		}
		if withIndex {
			out[i].Index = &i
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
