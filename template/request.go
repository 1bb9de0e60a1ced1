package template

import (
	"fmt"
	"time"

	"github.com/ardanlabs/jinja"
)

// Request holds the variables of one render, as apply_chat_template passes
// them to the template.
type Request struct {
	// Messages is the conversation: a list of message dicts (role, content,
	// tool_calls, ...). Use ordered dicts so key order is kept.
	Messages []Value
	// Tools is the list of tool schemas; nil renders as None (tools is
	// defined and is none), as transformers does when no tools are given.
	Tools []Value
	// Documents is the list of retrieval documents; nil renders as None.
	Documents []Value
	// AddGenerationPrompt asks the template to open an assistant turn.
	AddGenerationPrompt bool
	// BOSToken and EOSToken are the special tokens; nil leaves the variable
	// undefined, as for a tokenizer without that token.
	BOSToken, EOSToken *string
	// Kwargs are extra template variables (for example enable_thinking).
	// They override BOSToken and EOSToken of the same name.
	Kwargs map[string]Value
	// Now, if set, is the time strftime_now reads for this render instead
	// of the template's clock (see [WithClock]).
	Now *time.Time
}

// nowLayout is the local date-time form ParseTime accepts besides RFC 3339.
const nowLayout = "2006-01-02T15:04:05"

// ParseTime parses a time for [Request.Now]: RFC 3339
// ("2024-07-26T12:00:00Z", "2024-07-26T12:00:00+02:00") or the local form
// "2024-07-26T12:00:00" (in time.Local).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(nowLayout, s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339 (2024-07-26T12:00:00Z) or 2024-07-26T12:00:00", s)
}

// DecodeRequest decodes a JSON render request:
//
//	{"messages": [...], "tools": [...], "documents": [...],
//	 "add_generation_prompt": true, "bos_token": "...", "eos_token": "...",
//	 "kwargs": {...}, "now": "2024-07-26T12:00:00"}
//
// Key order inside messages, tools, documents and kwargs values is kept.
// "now" pins the clock strftime_now reads (see [ParseTime] for its forms).
// Absent or null tools/documents mean None; an absent or null bos_token or
// eos_token leaves that variable undefined. Unknown fields are ignored.
func DecodeRequest(data []byte) (Request, error) {
	var req Request
	v, err := DecodeOrdered(data)
	if err != nil {
		return req, fmt.Errorf("render request: %w", err)
	}
	if !v.IsDict() {
		return req, fmt.Errorf("render request: want a JSON object, got %s", kindName(v))
	}
	d := v.AsDict()
	if req.Messages, err = listField(d, "messages"); err != nil {
		return req, err
	}
	if req.Messages == nil {
		req.Messages = []Value{}
	}
	if req.Tools, err = listField(d, "tools"); err != nil {
		return req, err
	}
	if req.Documents, err = listField(d, "documents"); err != nil {
		return req, err
	}
	if g, ok := d.Get("add_generation_prompt"); ok && !g.IsNone() {
		if !g.IsBool() {
			return req, fmt.Errorf("render request: add_generation_prompt: want a boolean, got %s", kindName(g))
		}
		req.AddGenerationPrompt = g.AsBool()
	}
	if req.BOSToken, err = stringField(d, "bos_token"); err != nil {
		return req, err
	}
	if req.EOSToken, err = stringField(d, "eos_token"); err != nil {
		return req, err
	}
	now, err := stringField(d, "now")
	if err != nil {
		return req, err
	}
	if now != nil {
		t, err := ParseTime(*now)
		if err != nil {
			return req, fmt.Errorf("render request: now: %w", err)
		}
		req.Now = &t
	}
	if kw, ok := d.Get("kwargs"); ok && !kw.IsNone() {
		if !kw.IsDict() {
			return req, fmt.Errorf("render request: kwargs: want an object, got %s", kindName(kw))
		}
		kd := kw.AsDict()
		req.Kwargs = make(map[string]Value, kd.Len())
		for _, k := range kd.Keys {
			req.Kwargs[k] = kd.Data[k]
		}
	}
	return req, nil
}

func listField(d *jinja.Dict, name string) ([]Value, error) {
	v, ok := d.Get(name)
	if !ok || v.IsNone() {
		return nil, nil
	}
	if !v.IsList() {
		return nil, fmt.Errorf("render request: %s: want an array, got %s", name, kindName(v))
	}
	items := v.AsList().Items
	if items == nil {
		items = []Value{}
	}
	return items, nil
}

func stringField(d *jinja.Dict, name string) (*string, error) {
	v, ok := d.Get(name)
	if !ok || v.IsNone() {
		return nil, nil
	}
	if !v.IsString() {
		return nil, fmt.Errorf("render request: %s: want a string, got %s", name, kindName(v))
	}
	s := v.AsString()
	return &s, nil
}

// kindName names a value's JSON type for error messages.
func kindName(v Value) string {
	switch {
	case v.IsUndefined():
		return "nothing"
	case v.IsNone():
		return "null"
	case v.IsBool():
		return "boolean"
	case v.IsNumber():
		return "number"
	case v.IsString():
		return "string"
	case v.IsList():
		return "array"
	case v.IsDict():
		return "object"
	}
	return "callable"
}
