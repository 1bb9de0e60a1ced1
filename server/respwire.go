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
	Logprobs     *chatLogprobs `json:"logprobs"`
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

// outToolCall is a tool call of a message, or a piece of one in a stream
// (where only the first piece has the id, type and name).
type outToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
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
	Index        int           `json:"index"`
	Text         string        `json:"text"`
	Logprobs     *textLogprobs `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
}

// fingerprint is the system_fingerprint of every response.
const fingerprint = "litert-go"

// Finish reasons.
const (
	finishStop      = "stop"
	finishLength    = "length"
	finishToolCalls = "tool_calls"
)

// finishReason says why the reply's last generation ended, as the
// conversation reports it: the model stopping (end of turn, a stop
// string, a finished constraint), tool calls, or the token budget (also
// when it cut a tool call; the calls before it are kept).
func finishReason(r *conversation.Reply, maxTokens int) string {
	switch r.FinishReason {
	case conversation.FinishStop:
		return finishStop
	case conversation.FinishLength:
		return finishLength
	case conversation.FinishToolCalls:
		return finishToolCalls
	case "":
		// A conversation that does not say: judge by the reply.
		switch {
		case len(r.ToolCalls) > 0:
			return finishToolCalls
		case r.Usage.CompletionTokens >= maxTokens:
			return finishLength
		}
		return finishStop
	}
	return string(r.FinishReason)
}

// positionalID matches the ids the conversation numbers its calls with
// (call00001, call_0); a response replaces them with unique ones.
var positionalID = regexp.MustCompile(`^call_?\d+$`)

// callIDs gives the calls of one response their ids: the model's own, or
// a unique one in place of a positional or missing id, the same for a call
// every time it is asked (streamed deltas and the final calls agree).
// The zero value is ready to use.
type callIDs struct{ byIndex map[int]string }

func (ids *callIDs) get(i int, own string) string {
	if id, ok := ids.byIndex[i]; ok {
		return id
	}
	id := own
	if id == "" || positionalID.MatchString(id) {
		id = newID("call_")
	}
	if ids.byIndex == nil {
		ids.byIndex = map[int]string{}
	}
	ids.byIndex[i] = id
	return id
}

// toolCall converts a call; index is set in streamed deltas.
func toolCall(c conversation.ToolCall, id string, index *int) outToolCall {
	var out outToolCall
	out.ID, out.Type, out.Index = id, "function", index
	out.Function.Name = c.Name
	out.Function.Arguments = string(c.Arguments)
	if len(c.Arguments) == 0 && index == nil {
		out.Function.Arguments = "{}"
	}
	return out
}

func ptr[T any](v T) *T { return &v }
