package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Kimi K3's markup ("XTML"): every element is <|open|>tag attrs<|sep|> …
// <|close|>tag<|sep|>, attribute values escape & and ".
const (
	k3Open       = "<|open|>"
	k3Close      = "<|close|>"
	k3Sep        = "<|sep|>"
	k3EOT        = "<|end_of_msg|>"
	k3ThinkOpen  = k3Open + "think" + k3Sep
	k3ThinkClose = k3Close + "think" + k3Sep
	k3RespOpen   = k3Open + "response" + k3Sep
	k3RespClose  = k3Close + "response" + k3Sep
	k3ToolsOpen  = k3Open + "tools" + k3Sep
	k3ToolsClose = k3Close + "tools" + k3Sep
	k3MsgClose   = k3Close + "message" + k3Sep
	k3CallClose  = k3Close + "call" + k3Sep
	k3ArgClose   = k3Close + "argument" + k3Sep
	k3JSONClose  = k3Close + "json" + k3Sep
)

// kimiK3 is Kimi K3's format. An assistant message holds a think element
// (reasoning; the generation prompt opens it by default), a response
// element (the content) and a tools element with the calls. Each argument
// names its JSON type, so values keep their types without a schema:
//
//	reasoning<|close|>think<|sep|><|open|>response<|sep|>text<|close|>response<|sep|>
//	<|open|>tools<|sep|><|open|>call tool="name" index="1"<|sep|>
//	<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//	<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
//
// (A call may also hold its arguments as one JSON object in
// <|open|>json type="object"<|sep|>…<|close|>json<|sep|>.)
//
// The format reads the reasoning itself. With thinking off the prompt
// opens the response instead; Parse tells the two apart by the think
// element's close, but ParsePartial shows text that precedes any marker as
// reasoning until it sees the response close or the tools.
func kimiK3() Format {
	opens := []string{k3ToolsOpen}
	drops := []string{k3RespOpen, k3RespClose, k3MsgClose, k3EOT, k3ThinkClose}
	return &taggedFormat{
		spec: taggedSpec{
			name: "kimi-k3", opens: opens, drops: drops, region: kimiK3Region,
			reasoning: &taggedReasoning{open: k3ThinkOpen, close: k3ThinkClose, openedByPrompt: true,
				notAfter: []string{k3RespClose, k3ToolsOpen}},
		},
		pattern: kimiK3Pattern,
	}
}

// kimiK3Region parses the tools element.
func kimiK3Region(s string, at int, final bool, _ taggedTools) taggedRegion {
	call := func(s string, pos int, final bool, _ taggedTools) (Call, int, *Call, error, int) {
		return kimiK3Call(s, pos, final)
	}
	return taggedBlockRegion(s, at, final, nil, k3ToolsOpen, k3ToolsClose, k3Open+"call ", k3Open+"call", call)
}

// kimiK3Call parses one call element from pos.
func kimiK3Call(s string, pos int, final bool) (c Call, end int, pending *Call, err error, errAt int) {
	more := func(name string) (Call, int, *Call, error, int) {
		if final {
			return c, 0, nil, errTaggedTruncated, pos
		}
		return c, 0, &Call{Name: name}, nil, 0
	}
	attrs, p, ok := kimiK3Attrs(s, pos+len(k3Open+"call"))
	if !ok {
		return more("")
	}
	name := attrs["tool"]
	if name == "" {
		return c, 0, nil, errTaggedNoName, pos
	}
	var keys, values []string
	var whole string
	for {
		p = skipSpace(s, p)
		rest := s[p:]
		var elem, closeTag string
		switch {
		case strings.HasPrefix(rest, k3CallClose):
			args := taggedObject(keys, values)
			if whole != "" {
				if len(keys) > 0 {
					return c, 0, nil, errors.New("a call holds both arguments and a json element"), p
				}
				args = json.RawMessage(whole)
			}
			return Call{Name: name, Arguments: args}, p + len(k3CallClose), nil, nil, 0
		case strings.HasPrefix(rest, k3Open+"argument "):
			elem, closeTag = "argument", k3ArgClose
		case strings.HasPrefix(rest, k3Open+"json"):
			elem, closeTag = "json", k3JSONClose
		case !final && (strings.HasPrefix(k3CallClose, rest) || strings.HasPrefix(k3Open+"argument ", rest) || strings.HasPrefix(k3Open+"json", rest)):
			return more(name)
		case p == len(s):
			return more(name)
		default:
			return c, 0, nil, fmt.Errorf("expected %q or %q", k3Open+"argument", k3CallClose), p
		}
		a, q, ok := kimiK3Attrs(s, p+len(k3Open+elem))
		if !ok {
			return more(name)
		}
		raw, next, m := taggedValueText(s, q, closeTag, final, a["type"] == "string")
		if m != taggedYes {
			return more(name)
		}
		p = next
		if elem == "json" {
			t := strings.TrimSpace(raw)
			if !json.Valid([]byte(t)) || !strings.HasPrefix(t, "{") {
				return c, 0, nil, fmt.Errorf("json arguments are not an object: %q", truncate(t, 80)), q
			}
			whole = t
			continue
		}
		key := a["key"]
		if key == "" {
			return c, 0, nil, errors.New("an argument has no key"), q
		}
		hint := hintJSON
		switch a["type"] {
		case "string":
			hint = hintString
		case "":
			hint = hintNone
		}
		v, err := taggedArgValue(raw, hint, nil)
		if err != nil {
			return c, 0, nil, fmt.Errorf("argument %q: %w", key, err), q
		}
		keys, values = append(keys, key), append(values, v)
	}
}

// kimiK3Attrs reads ` name="value"…<|sep|>` from pos. ok is false when
// the text ends first (or is not attributes: the caller then reports the
// element as not complete, and a final parse as truncated).
func kimiK3Attrs(s string, pos int) (map[string]string, int, bool) {
	i := strings.Index(s[pos:], k3Sep)
	if i < 0 {
		return nil, 0, false
	}
	attrs := map[string]string{}
	text := s[pos : pos+i]
	for {
		text = strings.TrimLeft(text, " ")
		if text == "" {
			break
		}
		eq := strings.Index(text, `="`)
		if eq < 0 {
			break
		}
		name := text[:eq]
		rest := text[eq+2:]
		q := strings.IndexByte(rest, '"')
		if q < 0 {
			break
		}
		attrs[name] = strings.NewReplacer("&quot;", `"`, "&amp;", "&").Replace(rest[:q])
		text = rest[q+1:]
	}
	return attrs, pos + i + len(k3Sep), true
}

// kimiK3Escape escapes an attribute value as the template does.
func kimiK3Escape(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;").Replace(s)
}

// kimiK3Pattern forces a reply from inside the prompt-opened think
// element (or, thinking off, from inside the response).
func kimiK3Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	stops := []string{k3Open, k3Close, k3Sep, k3EOT}
	think := constrain.Optional(constrain.Sequence(constrain.TextWithout(stops...), constrain.Literal(k3ThinkClose+k3RespOpen)))
	text := constrain.TextWithout(stops...)
	if opts.Mode == CallsOnly {
		text = constrain.Literal("")
	}
	parts := taggedGrammarParts{
		stops: stops,
		call: func(t Tool) (constrain.Pattern, error) {
			params, err := taggedParamsPattern(t, func(p taggedProp) constrain.Pattern {
				value, hint := taggedValuePattern(t, p, opts, k3Open, k3Close, k3Sep, k3EOT)
				typ := "string"
				if hint != hintString {
					typ = "object"
					for _, c := range []string{"number", "integer", "boolean", "array", "object", "null"} {
						if p.Types[c] {
							typ = c
							break
						}
					}
					if typ == "integer" {
						typ = "number"
					}
				}
				return constrain.Sequence(
					constrain.Literal(k3Open+`argument key="`+kimiK3Escape(p.Name)+`" type="`+typ+`"`+k3Sep),
					value, constrain.Literal(k3ArgClose))
			})
			if err != nil {
				return constrain.Pattern{}, err
			}
			// The index counts the calls of the message; a grammar cannot
			// count, so it allows any.
			return constrain.Sequence(constrain.Literal(k3Open+`call tool="`+kimiK3Escape(t.Name)+`" index="`),
				taggedDigits(), constrain.Literal(`"`+k3Sep), params, constrain.Literal(k3CallClose)), nil
		},
		block: func(calls constrain.Pattern) constrain.Pattern {
			return constrain.Sequence(constrain.Literal(k3ToolsOpen), calls, constrain.Literal(k3ToolsClose))
		},
	}
	end := constrain.Literal(k3RespClose)
	switch opts.Mode {
	case TextOnly:
		return constrain.Sequence(think, text, end, constrain.Literal(k3MsgClose)), nil
	case TextOrCalls:
		if len(opts.Tools) == 0 {
			return constrain.Sequence(think, text, end, constrain.Literal(k3MsgClose)), nil
		}
	}
	calls, err := taggedCompose(GrammarOptions{Mode: CallsOnly, Tools: opts.Tools, Parallel: opts.Parallel, JSON: opts.JSON}, parts)
	if err != nil {
		return constrain.Pattern{}, err
	}
	if opts.Mode == TextOrCalls {
		calls = constrain.Optional(calls)
	}
	return constrain.Sequence(think, text, end, calls, constrain.Literal(k3MsgClose)), nil
}
