package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/session"
)

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	commonParams
	Messages            []chatMessage   `json:"messages"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Tools               []toolParam     `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	ResponseFormat      *responseFormat `json:"response_format"`
	ChatTemplateKwargs  map[string]any  `json:"chat_template_kwargs"`
	Logprobs            *bool           `json:"logprobs"`
	TopLogprobs         *int            `json:"top_logprobs"`
	// Refused: not supported by this server.
	Modalities       []string        `json:"modalities"`
	Audio            json.RawMessage `json:"audio"`
	Prediction       json.RawMessage `json:"prediction"`
	Functions        json.RawMessage `json:"functions"`
	FunctionCall     json.RawMessage `json:"function_call"`
	WebSearchOptions json.RawMessage `json:"web_search_options"`
}

// chatMessage is one message of a request, in OpenAI's shape.
type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             string          `json:"name"`
	ToolCalls        []toolCallParam `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent string          `json:"reasoning_content"`
}

type toolCallParam struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a JSON string (OpenAI) or an object
	} `json:"function"`
}

// contentPart is one part of a message's content list.
type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
}

type toolParam struct {
	Type     string `json:"type"`
	Function *struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"json_schema"`
}

// chatPlan is a checked chat request, ready to run.
type chatPlan struct {
	history []conversation.Message
	decls   []conversation.ToolDecl
	opts    []conversation.Option // but the sampler's
	extra   []conversation.Option // template context, also for the Prompter
	sampler session.Sampler       // choice 0's; see choiceSampler
	n       int                   // choices

	logprobs bool
	top      int // top_logprobs
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// planChat checks everything a chat request asks for besides the prompt's
// length, and turns it into conversation calls; remote media are fetched
// within ctx.
func (s *Server) planChat(ctx context.Context, req *chatRequest) (*chatPlan, *apiError) {
	if err := req.check(s); err != nil {
		return nil, err
	}
	switch {
	case req.TopLogprobs != nil && (*req.TopLogprobs < 0 || *req.TopLogprobs > session.MaxTopLogprobs):
		return nil, invalid("top_logprobs", "invalid_value", "top_logprobs must be between 0 and %d, got %d", session.MaxTopLogprobs, *req.TopLogprobs)
	case req.TopLogprobs != nil && (req.Logprobs == nil || !*req.Logprobs):
		return nil, invalid("top_logprobs", "invalid_value", "top_logprobs needs logprobs set to true")
	case len(req.Audio) > 0 && string(req.Audio) != "null":
		return nil, invalid("audio", "unsupported_parameter", "audio output is not supported")
	case len(req.Prediction) > 0 && string(req.Prediction) != "null":
		return nil, invalid("prediction", "unsupported_parameter", "predicted outputs are not supported")
	case len(req.Functions) > 0 && string(req.Functions) != "null":
		return nil, invalid("functions", "unsupported_parameter", "the deprecated 'functions' parameter is not supported; use 'tools'")
	case len(req.FunctionCall) > 0 && string(req.FunctionCall) != "null":
		return nil, invalid("function_call", "unsupported_parameter", "the deprecated 'function_call' parameter is not supported; use 'tool_choice'")
	case len(req.WebSearchOptions) > 0 && string(req.WebSearchOptions) != "null":
		return nil, invalid("web_search_options", "unsupported_parameter", "web search is not supported")
	case req.MaxCompletionTokens != nil && *req.MaxCompletionTokens < 1:
		return nil, invalid("max_completion_tokens", "invalid_value", "max_completion_tokens must be at least 1, got %d", *req.MaxCompletionTokens)
	case len(req.Messages) == 0:
		return nil, invalid("messages", "invalid_value", "messages must hold at least one message")
	}
	for _, m := range req.Modalities {
		if m != "text" {
			return nil, invalid("modalities", "unsupported_parameter", "only the text modality is supported, not %q", m)
		}
	}
	if req.MaxCompletionTokens != nil {
		req.MaxTokens = req.MaxCompletionTokens
	}
	p := &chatPlan{n: req.choices(), logprobs: req.Logprobs != nil && *req.Logprobs}
	if req.TopLogprobs != nil {
		p.top = *req.TopLogprobs
	}
	var err *apiError
	if p.history, err = convertMessages(req.Messages, mediaSource{ctx: ctx, client: s.mediaClient}); err != nil {
		return nil, err
	}
	if p.decls, err = convertTools(req.Tools); err != nil {
		return nil, err
	}
	smp, err := req.sampler(*s.cfg.Sampler)
	if err != nil {
		return nil, err
	}
	p.sampler = smp
	if len(req.Stop) > 0 {
		p.opts = append(p.opts, conversation.WithStop(req.Stop...))
	}
	choice, err := toolChoice(req.ToolChoice, p.decls)
	if err != nil {
		return nil, err
	}
	if len(p.decls) > 0 {
		if err := s.checkToolGrammar(p.decls, choice); err != nil {
			return nil, err
		}
		p.opts = append(p.opts, conversation.WithToolChoice(choice))
	}
	if req.ParallelToolCalls != nil {
		p.opts = append(p.opts, conversation.WithParallelToolCalls(*req.ParallelToolCalls))
	}
	if g, err := s.responseGrammar(req.ResponseFormat); err != nil {
		return nil, err
	} else if g != nil {
		p.opts = append(p.opts, conversation.WithConstraint(g))
	}
	for k, v := range req.ChatTemplateKwargs {
		p.extra = append(p.extra, conversation.WithExtra(k, v))
	}
	p.opts = append(p.opts, p.extra...)
	return p, nil
}

// convertMessages turns OpenAI messages into conversation messages, their
// media read through media.
func convertMessages(msgs []chatMessage, media mediaSource) ([]conversation.Message, *apiError) {
	out := make([]conversation.Message, 0, len(msgs))
	toolNames := map[string]string{} // call id → function name
	for i, m := range msgs {
		param := fmt.Sprintf("messages[%d]", i)
		cm := conversation.Message{Role: m.Role, ReasoningContent: m.ReasoningContent}
		switch m.Role {
		case "system", "developer":
			cm.Role = conversation.RoleSystem
		case "user", "assistant":
		case "tool":
			if m.ToolCallID == "" {
				return nil, invalid(param+".tool_call_id", "missing_required_parameter", "%s: a tool message needs tool_call_id", param)
			}
			cm.ToolCallID = m.ToolCallID
			cm.Name = toolNames[m.ToolCallID]
		case "":
			return nil, invalid(param+".role", "missing_required_parameter", "%s: missing role", param)
		default:
			return nil, invalid(param+".role", "invalid_value", "%s: unknown role %q (want system, developer, user, assistant or tool)", param, m.Role)
		}
		text, parts, err := convertContent(m.Content, param+".content", media)
		if err != nil {
			return nil, err
		}
		cm.Text, cm.Parts = text, parts
		if len(m.ToolCalls) > 0 && m.Role != "assistant" {
			return nil, invalid(param+".tool_calls", "invalid_value", "%s: only assistant messages may hold tool_calls", param)
		}
		for j, c := range m.ToolCalls {
			cp := fmt.Sprintf("%s.tool_calls[%d]", param, j)
			if c.Type != "" && c.Type != "function" {
				return nil, invalid(cp+".type", "invalid_value", "%s: unsupported tool call type %q", cp, c.Type)
			}
			if c.Function.Name == "" {
				return nil, invalid(cp+".function.name", "missing_required_parameter", "%s: missing function name", cp)
			}
			args, err := callArguments(c.Function.Arguments)
			if err != nil {
				return nil, invalid(cp+".function.arguments", "invalid_value", "%s: %v", cp, err)
			}
			cm.ToolCalls = append(cm.ToolCalls, conversation.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
			if c.ID != "" {
				toolNames[c.ID] = c.Function.Name
			}
		}
		if m.Role == "assistant" && m.Content == nil && len(cm.ToolCalls) == 0 && cm.ReasoningContent == "" {
			return nil, invalid(param+".content", "missing_required_parameter", "%s: an assistant message needs content or tool_calls", param)
		}
		out = append(out, cm)
	}
	return out, nil
}

// callArguments reads a tool call's arguments: a JSON string holding an
// object, or an object.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("arguments are not valid JSON: %.40q", raw)
	}
	return raw, nil
}

// convertContent reads a message's content: null, a string, or a list of
// text, image_url and input_audio parts, the media read through media.
// Text-only lists become text.
func convertContent(raw json.RawMessage, param string, media mediaSource) (string, []conversation.Part, *apiError) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", nil, invalid(param, "invalid_value", "%s: %v", param, err)
		}
		return s, nil, nil
	case raw[0] != '[':
		return "", nil, invalid(param, "invalid_type", "%s: content must be a string, null or an array of parts", param)
	}
	var list []contentPart
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", nil, invalid(param, "invalid_type", "%s: %v", param, err)
	}
	var parts []conversation.Part
	var texts []string
	hasMedia := false
	for j, p := range list {
		pp := fmt.Sprintf("%s[%d]", param, j)
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
			parts = append(parts, conversation.Part{Type: "text", Text: p.Text})
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return "", nil, invalid(pp+".image_url.url", "missing_required_parameter", "%s: missing image_url.url", pp)
			}
			data, err := media.image(p.ImageURL.URL)
			if err != nil {
				return "", nil, invalid(pp+".image_url.url", "invalid_image_url", "%s: %v", pp, err)
			}
			parts = append(parts, conversation.Part{Type: "image", Blob: data})
			hasMedia = true
		case "input_audio":
			if p.InputAudio == nil || p.InputAudio.Data == "" {
				return "", nil, invalid(pp+".input_audio.data", "missing_required_parameter", "%s: missing input_audio.data", pp)
			}
			data, err := audio(p.InputAudio.Data, p.InputAudio.Format)
			if err != nil {
				return "", nil, invalid(pp+".input_audio", "invalid_value", "%s: %v", pp, err)
			}
			parts = append(parts, conversation.Part{Type: "audio", Blob: data})
			hasMedia = true
		default:
			return "", nil, invalid(pp+".type", "invalid_value", "%s: unsupported content part type %q (want text, image_url or input_audio)", pp, p.Type)
		}
	}
	if !hasMedia {
		return strings.Join(texts, "\n"), nil, nil
	}
	return "", parts, nil
}

// convertTools reads the request's tool declarations.
func convertTools(tools []toolParam) ([]conversation.ToolDecl, *apiError) {
	var decls []conversation.ToolDecl
	seen := map[string]bool{}
	for i, t := range tools {
		param := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			return nil, invalid(param+".type", "invalid_value", "%s: unsupported tool type %q (want \"function\")", param, t.Type)
		}
		if t.Function == nil {
			return nil, invalid(param+".function", "missing_required_parameter", "%s: missing function", param)
		}
		name := t.Function.Name
		if !toolNameRE.MatchString(name) {
			return nil, invalid(param+".function.name", "invalid_value", "%s: function name %q must be 1 to 64 letters, digits, '_' or '-'", param, name)
		}
		if seen[name] {
			return nil, invalid(param+".function.name", "invalid_value", "%s: function %q is declared twice", param, name)
		}
		seen[name] = true
		params := bytes.TrimSpace(t.Function.Parameters)
		if len(params) == 0 || string(params) == "null" {
			params = []byte(`{"type":"object","properties":{}}`)
		} else if params[0] != '{' {
			return nil, invalid(param+".function.parameters", "invalid_value", "%s: parameters must be a JSON Schema object", param)
		}
		decls = append(decls, conversation.ToolDecl{Name: name, Description: t.Function.Description, Parameters: params})
	}
	return decls, nil
}

// toolChoice reads "tool_choice": "none", "auto", "required" or
// {"type": "function", "function": {"name": …}}.
func toolChoice(raw json.RawMessage, decls []conversation.ToolDecl) (conversation.ToolChoice, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return conversation.ToolChoiceAuto, nil
	}
	var choice conversation.ToolChoice
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		switch s {
		case "none", "auto", "required":
			choice = conversation.ToolChoice(s)
		default:
			return "", invalid("tool_choice", "invalid_value", "tool_choice %q is not one of none, auto, required or a function object", s)
		}
	} else {
		var named struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" || named.Function.Name == "" {
			return "", invalid("tool_choice", "invalid_value", `tool_choice must be "none", "auto", "required" or {"type": "function", "function": {"name": ...}}`)
		}
		found := false
		for _, d := range decls {
			found = found || d.Name == named.Function.Name
		}
		if !found {
			return "", invalid("tool_choice", "invalid_value", "tool_choice names function %q, which is not in tools", named.Function.Name)
		}
		choice = conversation.ToolChoice(named.Function.Name)
	}
	if len(decls) == 0 && choice != conversation.ToolChoiceNone && choice != conversation.ToolChoiceAuto {
		return "", invalid("tool_choice", "invalid_value", "tool_choice %q needs tools", choice)
	}
	return choice, nil
}

// responseGrammar compiles "response_format" into a constraint; nil for
// plain text.
func (s *Server) responseGrammar(rf *responseFormat) (*constrain.Grammar, *apiError) {
	if rf == nil {
		return nil, nil
	}
	switch rf.Type {
	case "", "text":
		return nil, nil
	case "json_object":
		return s.jsonObject, nil
	case "json_schema":
		if rf.JSONSchema == nil || len(bytes.TrimSpace(rf.JSONSchema.Schema)) == 0 {
			return nil, invalid("response_format.json_schema.schema", "missing_required_parameter", "response_format json_schema needs json_schema.schema")
		}
		strict := rf.JSONSchema.Strict != nil && *rf.JSONSchema.Strict
		g, err := constrain.JSONSchemaWith(rf.JSONSchema.Schema, constrain.JSONOptions{Lenient: !strict})
		if err != nil {
			return nil, invalid("response_format.json_schema.schema", "invalid_schema", "the response_format schema does not compile: %v", err)
		}
		return g, nil
	}
	return nil, invalid("response_format.type", "invalid_value", "response_format type %q is not one of text, json_object or json_schema", rf.Type)
}

// checkToolGrammar refuses, before any work, what would make the
// conversation's tool-call grammar fail: a forced call in a format without
// a grammar, or a parameter schema that does not compile.
func (s *Server) checkToolGrammar(decls []conversation.ToolDecl, choice conversation.ToolChoice) *apiError {
	tf := s.prompter.ToolFormat()
	format := tf.Name()
	if !toolcall.Forcible(tf) {
		if choice != conversation.ToolChoiceAuto && choice != conversation.ToolChoiceNone {
			return invalid("tool_choice", "unsupported_parameter",
				"tool_choice %q needs grammar-forced tool calls, which this model's %q tool-call format does not support; use \"auto\"", choice, format)
		}
		return nil
	}
	for i, d := range decls {
		if _, err := constrain.JSONSchemaWith(d.Parameters, constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced}); err != nil {
			return invalid(fmt.Sprintf("tools[%d].function.parameters", i), "invalid_schema", "tool %q: the parameters schema does not compile: %v", d.Name, err)
		}
	}
	return nil
}
