package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/conversation/toolcall"
)

// Roles of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	// RoleModel is the assistant's role as Gemini, LiteRT-LM and Genkit
	// name it; it is read as RoleAssistant.
	RoleModel = "model"
)

// Part is one piece of multimodal content: text, an image or audio, given by
// a path or an inline blob (base64 in JSON).
type Part struct {
	Type string `json:"type"`           // "text", "image" or "audio"
	Text string `json:"text,omitempty"` // for Type "text"
	Path string `json:"path,omitempty"` // file to read, for image or audio
	Blob []byte `json:"blob,omitempty"` // inline data, for image or audio
}

// ToolCall is one function call requested by the model.
type ToolCall = toolcall.Call

// ToolCallError reports a tool call the model wrote that does not parse;
// it names the format and the offset in the reply.
type ToolCallError = toolcall.ToolCallError

// Message is one turn of a conversation. Content is either Text or Parts.
// JSON encoding follows the OpenAI / Hugging Face shape that chat templates
// expect: {"role", "content", "reasoning_content", "tool_calls":
// [{"id", "type": "function", "function": {"name", "arguments"}}],
// "tool_call_id", "name"}.
type Message struct {
	Role             string
	Text             string     // plain-text content
	Parts            []Part     // multimodal content; when set, Text is unused
	ReasoningContent string     // the model's thinking, kept apart from the answer
	ToolCalls        []ToolCall // calls requested by an assistant message
	ToolCallID       string     // for role "tool": the call answered
	Name             string     // for role "tool": the tool's name
}

// UserText returns a user message holding text.
func UserText(text string) Message { return Message{Role: RoleUser, Text: text} }

// SystemText returns a system message holding text.
func SystemText(text string) Message { return Message{Role: RoleSystem, Text: text} }

// ToolResult returns a tool message answering call with result (JSON or text).
func ToolResult(call ToolCall, result string) Message {
	return Message{Role: RoleTool, ToolCallID: call.ID, Name: call.Name, Text: result}
}

// Content returns the message's text: Text, or the text parts joined.
func (m Message) Content() string {
	if len(m.Parts) == 0 {
		return m.Text
	}
	var b bytes.Buffer
	for _, p := range m.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// MarshalJSON writes the message with a fixed key order.
func (m Message) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"role":`)
	writeJSON(&b, m.Role)
	b.WriteString(`,"content":`)
	if len(m.Parts) > 0 {
		if err := writeParts(&b, m.Parts); err != nil {
			return nil, err
		}
	} else {
		writeJSON(&b, m.Text)
	}
	if m.ReasoningContent != "" {
		b.WriteString(`,"reasoning_content":`)
		writeJSON(&b, m.ReasoningContent)
	}
	if len(m.ToolCalls) > 0 {
		b.WriteString(`,"tool_calls":[`)
		for i, c := range m.ToolCalls {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{`)
			if c.ID != "" {
				b.WriteString(`"id":`)
				writeJSON(&b, c.ID)
				b.WriteByte(',')
			}
			b.WriteString(`"type":"function","function":{"name":`)
			writeJSON(&b, c.Name)
			b.WriteString(`,"arguments":`)
			args := bytes.TrimSpace(c.Arguments)
			if len(args) == 0 {
				args = []byte("{}")
			}
			if !json.Valid(args) {
				return nil, fmt.Errorf("tool call %q: arguments are not valid JSON", c.Name)
			}
			b.Write(args)
			b.WriteString(`}}`)
		}
		b.WriteByte(']')
	}
	if m.ToolCallID != "" {
		b.WriteString(`,"tool_call_id":`)
		writeJSON(&b, m.ToolCallID)
	}
	if m.Name != "" {
		b.WriteString(`,"name":`)
		writeJSON(&b, m.Name)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeParts(b *bytes.Buffer, parts []Part) error {
	b.WriteByte('[')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":`)
		writeJSON(b, p.Type)
		switch {
		case p.Type == "text":
			b.WriteString(`,"text":`)
			writeJSON(b, p.Text)
		case p.Path != "":
			b.WriteString(`,"path":`)
			writeJSON(b, p.Path)
		default:
			b.WriteString(`,"blob":`)
			writeJSON(b, p.Blob)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return nil
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings and byte slices always encode
	b.Truncate(b.Len() - 1) // Encode appends a newline
}

// wireMessage is the decoding shape of Message.
type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
		// Flat form {"name", "arguments"} is accepted too.
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
}

// UnmarshalJSON reads a message in the shape MarshalJSON writes; content may
// be a string, null or a list of parts. String-encoded arguments (as the
// OpenAI API sends them) are unquoted into JSON objects.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	if w.Role == "" {
		return fmt.Errorf("message: missing role")
	}
	if w.Role == RoleModel {
		w.Role = RoleAssistant
	}
	*m = Message{Role: w.Role, ReasoningContent: w.ReasoningContent, ToolCallID: w.ToolCallID, Name: w.Name}
	content := bytes.TrimSpace(w.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		if err := json.Unmarshal(content, &m.Text); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
	case content[0] == '[' && isStringList(content):
		var texts []string
		_ = json.Unmarshal(content, &texts)
		m.Text = strings.Join(texts, "")
	case content[0] == '[':
		if err := json.Unmarshal(content, &m.Parts); err != nil {
			return fmt.Errorf("message content parts: %w", err)
		}
		for i, p := range m.Parts {
			switch p.Type {
			case "text", "image", "audio":
			default:
				return fmt.Errorf("message content part %d: unknown type %q (want text, image or audio)", i, p.Type)
			}
		}
	default:
		return fmt.Errorf("message content: want a string or a list of parts, got %.20s", content)
	}
	for i, c := range w.ToolCalls {
		name, args := c.Function.Name, c.Function.Arguments
		if name == "" {
			name, args = c.Name, c.Arguments
		}
		if name == "" {
			return fmt.Errorf("message tool call %d: missing function name", i)
		}
		args = bytes.TrimSpace(args)
		if len(args) > 0 && args[0] == '"' {
			var s string
			if err := json.Unmarshal(args, &s); err != nil {
				return fmt.Errorf("tool call %q arguments: %w", name, err)
			}
			args = []byte(s)
		}
		if len(args) == 0 {
			args = []byte("{}")
		}
		if !json.Valid(args) {
			return fmt.Errorf("tool call %q: arguments are not valid JSON", name)
		}
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: name, Arguments: append(json.RawMessage(nil), args...)})
	}
	return nil
}

// UnmarshalJSON reads a preface in LiteRT-LM's JSON shape:
// {"messages": [...], "tools": [...], "extra_context": {...}}. Tools are
// {"name", "description", "parameters"} or the OpenAI shape
// {"type": "function", "function": {...}}.
func (p *Preface) UnmarshalJSON(data []byte) error {
	var w struct {
		Messages     []Message      `json:"messages"`
		Tools        []ToolDecl     `json:"tools"`
		ExtraContext map[string]any `json:"extra_context"`
		Extra        map[string]any `json:"extra"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("preface: %w", err)
	}
	*p = Preface{Messages: w.Messages, Tools: w.Tools, Extra: w.ExtraContext}
	if p.Extra == nil {
		p.Extra = w.Extra
	}
	return nil
}

// MarshalJSON writes the preface in the shape UnmarshalJSON reads.
func (p Preface) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Messages     []Message      `json:"messages,omitempty"`
		Tools        []ToolDecl     `json:"tools,omitempty"`
		ExtraContext map[string]any `json:"extra_context,omitempty"`
	}{p.Messages, p.Tools, p.Extra})
}

// isStringList reports whether data is a JSON list of strings, as
// LiteRT-LM's preface examples write a message's content.
func isStringList(data []byte) bool {
	var texts []string
	return json.Unmarshal(data, &texts) == nil
}
