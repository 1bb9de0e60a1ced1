package litert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/tools"
)

// toMessages maps Genkit messages to conversation messages. A Genkit tool
// message holding several responses becomes one message per response. The
// inputs of requests for the tools in wrapped (whose schemas toDecls
// wrapped) are wrapped as the model writes them.
func toMessages(in []*ai.Message, wrapped map[string]bool) ([]conversation.Message, error) {
	var out []conversation.Message
	for i, m := range in {
		if m == nil {
			return nil, fmt.Errorf("litert: message %d is nil", i)
		}
		switch m.Role {
		case ai.RoleSystem, ai.RoleUser, ai.RoleModel:
			cm := conversation.Message{Role: map[ai.Role]string{ai.RoleSystem: conversation.RoleSystem, ai.RoleUser: conversation.RoleUser, ai.RoleModel: conversation.RoleAssistant}[m.Role]}
			var text, reasoning strings.Builder
			for j, p := range m.Content {
				switch {
				case p.IsText() || p.IsData():
					text.WriteString(p.Text)
				case p.IsReasoning():
					reasoning.WriteString(p.Text)
				case p.IsToolRequest() && m.Role == ai.RoleModel:
					args, err := json.Marshal(p.ToolRequest.Input)
					if err != nil {
						return nil, fmt.Errorf("litert: message %d part %d: tool request %q input: %w", i, j, p.ToolRequest.Name, err)
					}
					switch {
					case wrapped[p.ToolRequest.Name]:
						args = tools.WrapArguments(args)
					case string(args) == "null":
						args = []byte("{}")
					}
					cm.ToolCalls = append(cm.ToolCalls, conversation.ToolCall{ID: p.ToolRequest.Ref, Name: p.ToolRequest.Name, Arguments: args})
				default:
					return nil, fmt.Errorf("litert: message %d (%s) part %d: unsupported part (%s)", i, m.Role, j, partKind(p))
				}
			}
			cm.Text, cm.ReasoningContent = text.String(), reasoning.String()
			out = append(out, cm)
		case ai.RoleTool:
			for j, p := range m.Content {
				if !p.IsToolResponse() {
					return nil, fmt.Errorf("litert: message %d (tool) part %d: want a tool response, got %s", i, j, partKind(p))
				}
				res, err := json.Marshal(p.ToolResponse.Output)
				if err != nil {
					return nil, fmt.Errorf("litert: message %d part %d: tool %q output: %w", i, j, p.ToolResponse.Name, err)
				}
				out = append(out, conversation.Message{Role: conversation.RoleTool, ToolCallID: p.ToolResponse.Ref, Name: p.ToolResponse.Name, Text: string(res)})
			}
		default:
			return nil, fmt.Errorf("litert: message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func partKind(p *ai.Part) string {
	switch {
	case p == nil:
		return "nil"
	case p.IsMedia():
		return "media " + p.ContentType
	case p.IsToolRequest():
		return "tool request"
	case p.IsToolResponse():
		return "tool response"
	case p.IsCustom():
		return "custom"
	case p.IsResource():
		return "resource"
	}
	return fmt.Sprintf("kind %d", p.Kind)
}

// toDecls maps Genkit tool definitions to declarations. An input schema
// that is not an object (Genkit's DefineTool with a string input) is
// wrapped by tools.WrapSchema; wrapped names those tools.
func toDecls(defs []*ai.ToolDefinition) (decls []conversation.ToolDecl, wrapped map[string]bool, err error) {
	wrapped = map[string]bool{}
	for _, d := range defs {
		if d == nil {
			return nil, nil, errors.New("litert: a tool definition is nil")
		}
		var params json.RawMessage
		if len(d.InputSchema) > 0 {
			b, err := json.Marshal(d.InputSchema)
			if err != nil {
				return nil, nil, fmt.Errorf("litert: tool %q input schema: %w", d.Name, err)
			}
			params = b
			if w, ok := tools.WrapSchema(b); ok {
				params, wrapped[d.Name] = w, true
			}
		}
		decls = append(decls, conversation.ToolDecl{Name: d.Name, Description: d.Description, Parameters: params})
	}
	return decls, wrapped, nil
}

// toolRequest maps a call of the model to a Genkit tool request, unwrapping
// the input of a tool in wrapped.
func toolRequest(c conversation.ToolCall, wrapped map[string]bool) (*ai.ToolRequest, error) {
	args := c.Arguments
	if wrapped[c.Name] {
		var err error
		if args, err = tools.UnwrapArguments(args); err != nil {
			return nil, fmt.Errorf("litert: tool call %q arguments: %w", c.Name, err)
		}
	}
	var input any
	if err := json.Unmarshal(args, &input); err != nil {
		return nil, fmt.Errorf("litert: tool call %q arguments: %w", c.Name, err)
	}
	return &ai.ToolRequest{Name: c.Name, Input: input, Ref: c.ID}, nil
}

// toResponse maps a reply to a Genkit response.
func toResponse(req *ai.ModelRequest, r *conversation.Reply, wrapped map[string]bool) (*ai.ModelResponse, error) {
	msg := &ai.Message{Role: ai.RoleModel}
	if r.ReasoningContent != "" {
		msg.Content = append(msg.Content, ai.NewReasoningPart(r.ReasoningContent, nil))
	}
	if text := strings.TrimSpace(r.Text); text != "" {
		msg.Content = append(msg.Content, ai.NewTextPart(text))
	}
	for _, c := range r.ToolCalls {
		tr, err := toolRequest(c, wrapped)
		if err != nil {
			return nil, err
		}
		msg.Content = append(msg.Content, ai.NewToolRequestPart(tr))
	}
	resp := &ai.ModelResponse{
		Request:      req,
		Message:      msg,
		FinishReason: finishReason(r.FinishReason),
		Usage: &ai.GenerationUsage{
			InputTokens:         r.Usage.PromptTokens,
			CachedContentTokens: r.Usage.CachedTokens,
			OutputTokens:        r.Usage.CompletionTokens,
			TotalTokens:         r.Usage.PromptTokens + r.Usage.CompletionTokens,
		},
	}
	switch {
	case r.ToolCallErr != nil:
		resp.FinishReason, resp.FinishMessage = ai.FinishReasonOther, r.ToolCallErr.Error()
	case r.Truncated != nil:
		resp.FinishReason = ai.FinishReasonLength
		resp.FinishMessage = fmt.Sprintf("the token limit cut off the call of %q; the %d calls before it are complete", r.Truncated.Name, len(r.ToolCalls))
	case r.FinishReason == conversation.FinishCancelled:
		resp.FinishMessage = "the request was cancelled"
	}
	return resp, nil
}

// finishReason maps the reason the reply's last generation ended. A reply
// asking for tool calls ended normally: Genkit reads the tool requests
// from the message.
func finishReason(r conversation.FinishReason) ai.FinishReason {
	switch r {
	case conversation.FinishStop, conversation.FinishToolCalls:
		return ai.FinishReasonStop
	case conversation.FinishLength:
		return ai.FinishReasonLength
	case conversation.FinishCancelled:
		return ai.FinishReasonInterrupted
	case "":
		return ai.FinishReasonUnknown
	}
	return ai.FinishReasonOther
}
