package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// hermesFormat: Qwen 2.5/3, Hermes, SmolLM3 —
// <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>, repeated.
func hermesFormat() ToolFormat {
	return ToolFormat{Name: "hermes", Markers: []string{"<tool_call>"}, parse: func(region string) ([]ToolCall, error) {
		var calls []ToolCall
		for rest := region; ; {
			i := strings.Index(rest, "<tool_call>")
			if i < 0 {
				if strings.TrimSpace(rest) != "" {
					return nil, fmt.Errorf("text %q after the tool calls", truncate(strings.TrimSpace(rest), 40))
				}
				return calls, nil
			}
			if strings.TrimSpace(rest[:i]) != "" {
				return nil, fmt.Errorf("text %q between tool calls", truncate(strings.TrimSpace(rest[:i]), 40))
			}
			rest = rest[i+len("<tool_call>"):]
			body := rest
			if j := strings.Index(rest, "</tool_call>"); j >= 0 {
				body, rest = rest[:j], rest[j+len("</tool_call>"):]
			} else {
				rest = ""
			}
			c, err := jsonCall(body)
			if err != nil {
				return nil, err
			}
			calls = append(calls, c)
		}
	}}
}

// llama3Format: Llama 3.x — a bare JSON object {"name": "f", "parameters":
// {...}} (several separated by ';' or newlines), optionally behind
// <|python_tag|>.
func llama3Format() ToolFormat {
	return ToolFormat{Name: "llama3", Markers: []string{"<|python_tag|>"}, LeadingJSON: true, parse: func(region string) ([]ToolCall, error) {
		region = strings.TrimPrefix(strings.TrimSpace(region), "<|python_tag|>")
		dec := json.NewDecoder(strings.NewReader(region))
		var calls []ToolCall
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				// A python-style builtin call: name.call(k="v").
				if len(calls) == 0 {
					if c, perr := pythonCall(strings.Replace(region, ".call(", "(", 1)); perr == nil {
						return []ToolCall{c}, nil
					}
				}
				return nil, err
			}
			c, err := jsonCall(string(raw))
			if err != nil {
				return nil, err
			}
			calls = append(calls, c)
			// Skip separators between objects.
			rest := region[dec.InputOffset():]
			trimmed := strings.TrimLeft(rest, " \t\r\n;,")
			dec = json.NewDecoder(strings.NewReader(trimmed))
			region = trimmed
		}
		if len(calls) == 0 {
			return nil, fmt.Errorf("no JSON object")
		}
		return calls, nil
	}}
}

// jsonCall decodes {"name": ..., "arguments"|"parameters": {...}}.
func jsonCall(body string) (ToolCall, error) {
	var w struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
		ID         string          `json:"id"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return ToolCall{}, fmt.Errorf("tool call is not a JSON object: %w", err)
	}
	if dec.More() {
		return ToolCall{}, fmt.Errorf("text after the tool call's JSON object")
	}
	if w.Name == "" {
		return ToolCall{}, fmt.Errorf(`tool call has no "name"`)
	}
	args := w.Arguments
	if args == nil {
		args = w.Parameters
	}
	args = bytes.TrimSpace(args)
	if len(args) > 0 && args[0] == '"' { // arguments given as a JSON string
		var s string
		if err := json.Unmarshal(args, &s); err == nil {
			args = []byte(s)
		}
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return ToolCall{}, fmt.Errorf("tool call %q: arguments are not a JSON object", w.Name)
	}
	return ToolCall{ID: w.ID, Name: w.Name, Arguments: json.RawMessage(args)}, nil
}

// mistralFormat: Mistral — [TOOL_CALLS][{"name":…,"arguments":{…}}, …]
// (Nemo, v3) or [TOOL_CALLS]name[CALL_ID]id[ARGS]{…} (v11+), repeated.
func mistralFormat() ToolFormat {
	return ToolFormat{Name: "mistral", Markers: []string{"[TOOL_CALLS]"}, parse: func(region string) ([]ToolCall, error) {
		var calls []ToolCall
		for _, part := range strings.Split(region, "[TOOL_CALLS]")[1:] {
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, "[") {
				var list []json.RawMessage
				if err := json.Unmarshal([]byte(part), &list); err != nil {
					return nil, fmt.Errorf("tool call list: %w", err)
				}
				for _, raw := range list {
					c, err := jsonCall(string(raw))
					if err != nil {
						return nil, err
					}
					calls = append(calls, c)
				}
				continue
			}
			name, args, ok := strings.Cut(part, "[ARGS]")
			if !ok {
				return nil, fmt.Errorf("tool call %q has no [ARGS]", truncate(part, 40))
			}
			var id string
			name, id, _ = strings.Cut(name, "[CALL_ID]")
			args = strings.TrimSpace(args)
			if !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
				return nil, fmt.Errorf("tool call %q: arguments are not a JSON object", name)
			}
			calls = append(calls, ToolCall{ID: strings.TrimSpace(id), Name: strings.TrimSpace(name), Arguments: json.RawMessage(args)})
		}
		return calls, nil
	}}
}
