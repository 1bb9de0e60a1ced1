package litert

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/litert-go/litert-go/conversation"
)

// toMessages maps Genkit messages to conversation messages. A Genkit tool
// message holding several responses becomes one message per response.
func toMessages(in []*ai.Message) ([]conversation.Message, error) {
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
					if string(args) == "null" {
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

// toDecls maps Genkit tool definitions to declarations.
func toDecls(defs []*ai.ToolDefinition) ([]conversation.ToolDecl, error) {
	var out []conversation.ToolDecl
	for _, d := range defs {
		var params json.RawMessage
		if len(d.InputSchema) > 0 {
			b, err := json.Marshal(d.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("litert: tool %q input schema: %w", d.Name, err)
			}
			params = b
		}
		out = append(out, conversation.ToolDecl{Name: d.Name, Description: d.Description, Parameters: params})
	}
	return out, nil
}

// toResponse maps a reply to a Genkit response.
func toResponse(req *ai.ModelRequest, r *conversation.Reply, maxTokens int) (*ai.ModelResponse, error) {
	msg := &ai.Message{Role: ai.RoleModel}
	if r.ReasoningContent != "" {
		msg.Content = append(msg.Content, ai.NewReasoningPart(r.ReasoningContent, nil))
	}
	if text := strings.TrimSpace(r.Text); text != "" {
		msg.Content = append(msg.Content, ai.NewTextPart(text))
	}
	for _, c := range r.ToolCalls {
		var input any
		if err := json.Unmarshal(c.Arguments, &input); err != nil {
			return nil, fmt.Errorf("litert: tool call %q arguments: %w", c.Name, err)
		}
		msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: c.Name, Input: input, Ref: c.ID}))
	}
	resp := &ai.ModelResponse{
		Request:      req,
		Message:      msg,
		FinishReason: ai.FinishReasonStop,
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
	case len(r.ToolCalls) == 0 && r.Usage.CompletionTokens >= maxTokens:
		resp.FinishReason = ai.FinishReasonLength
	}
	return resp, nil
}
