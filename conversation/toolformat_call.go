package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// gemma3Format: Gemma 3 — ```tool_code\nname(a=1, b="x")\n``` with a
// Python call per line.
func gemma3Format() ToolFormat {
	return ToolFormat{Name: "gemma3", Markers: []string{"```tool_code"}, parse: func(region string) ([]ToolCall, error) {
		var calls []ToolCall
		for _, block := range strings.Split(region, "```tool_code")[1:] {
			body, _, _ := strings.Cut(block, "```")
			for _, line := range strings.Split(body, "\n") {
				if line = strings.TrimSpace(line); line == "" {
					continue
				}
				c, err := pythonCall(line)
				if err != nil {
					return nil, err
				}
				calls = append(calls, c)
			}
		}
		if len(calls) == 0 {
			return nil, fmt.Errorf("empty tool_code block")
		}
		return calls, nil
	}}
}

// callFormat: FunctionGemma and Gemma 4 — open + "call:name{key:value,…}" +
// close, where strings are wrapped in quote (<escape> or <|"|>).
func callFormat(name, open, close, quote string) ToolFormat {
	return ToolFormat{Name: name, Markers: []string{open}, parse: func(region string) ([]ToolCall, error) {
		var calls []ToolCall
		for _, part := range strings.Split(region, open)[1:] {
			body, _, _ := strings.Cut(part, close)
			body = strings.TrimSpace(body)
			rest, ok := strings.CutPrefix(body, "call:")
			if !ok {
				return nil, fmt.Errorf("call does not start with \"call:\"")
			}
			i := strings.IndexByte(rest, '{')
			if i <= 0 {
				return nil, fmt.Errorf("call %q has no {arguments}", truncate(rest, 40))
			}
			p := &litParser{s: rest[i:], quote: quote}
			var b bytes.Buffer
			if err := p.value(&b, true); err != nil {
				return nil, fmt.Errorf("call %q: %w", rest[:i], err)
			}
			if strings.TrimSpace(p.s[p.pos:]) != "" {
				return nil, fmt.Errorf("call %q: text after the arguments", rest[:i])
			}
			calls = append(calls, ToolCall{Name: strings.TrimSpace(rest[:i]), Arguments: b.Bytes()})
		}
		return calls, nil
	}}
}

// pythonCall parses name(k=v, …) with Python literal values into a call.
func pythonCall(s string) (ToolCall, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return ToolCall{}, fmt.Errorf("%q is not a function call", truncate(s, 60))
	}
	name := strings.TrimSpace(s[:open])
	for _, r := range name {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ToolCall{}, fmt.Errorf("%q is not a function name", name)
		}
	}
	p := &litParser{s: s[open+1 : len(s)-1], python: true}
	var b bytes.Buffer
	b.WriteByte('{')
	for first := true; ; first = false {
		p.space()
		if p.pos >= len(p.s) {
			break
		}
		if !first {
			if !p.eat(",") {
				return ToolCall{}, fmt.Errorf("call %s: want ',' at offset %d", name, p.pos)
			}
			p.space()
		}
		key := p.ident()
		if key == "" || !p.eat("=") {
			return ToolCall{}, fmt.Errorf("call %s: want keyword argument at offset %d", name, p.pos)
		}
		if !first {
			b.WriteByte(',')
		}
		writeJSON(&b, key)
		b.WriteByte(':')
		if err := p.value(&b, false); err != nil {
			return ToolCall{}, fmt.Errorf("call %s argument %s: %w", name, key, err)
		}
	}
	b.WriteByte('}')
	return ToolCall{Name: name, Arguments: b.Bytes()}, nil
}

// litParser converts Python literals or FunctionGemma values to JSON.
type litParser struct {
	s      string
	pos    int
	quote  string // string delimiter for the call format; "" for Python
	python bool
}

func (p *litParser) space() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *litParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *litParser) ident() string {
	p.space()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && p.pos > start {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// value writes one value as JSON. bareKeys allows unquoted object keys
// (the call format writes key:value).
func (p *litParser) value(b *bytes.Buffer, bareKeys bool) error {
	p.space()
	if p.pos >= len(p.s) {
		return fmt.Errorf("missing value")
	}
	rest := p.s[p.pos:]
	switch {
	case p.quote != "" && strings.HasPrefix(rest, p.quote):
		end := strings.Index(rest[len(p.quote):], p.quote)
		if end < 0 {
			return fmt.Errorf("unterminated string")
		}
		writeJSON(b, rest[len(p.quote):len(p.quote)+end])
		p.pos += 2*len(p.quote) + end
	case p.python && (rest[0] == '"' || rest[0] == '\''):
		s, n, err := pyString(rest)
		if err != nil {
			return err
		}
		writeJSON(b, s)
		p.pos += n
	case rest[0] == '{':
		p.pos++
		b.WriteByte('{')
		for first := true; !p.eat("}"); first = false {
			if !first && !p.eat(",") {
				return fmt.Errorf("want ',' or '}' at offset %d", p.pos)
			}
			p.space()
			var kb bytes.Buffer
			if bareKeys && !strings.HasPrefix(p.s[p.pos:], p.quote) {
				k := p.ident()
				if k == "" {
					return fmt.Errorf("want key at offset %d", p.pos)
				}
				writeJSON(&kb, k)
			} else if err := p.value(&kb, bareKeys); err != nil {
				return err
			} else if kb.Len() == 0 || kb.Bytes()[0] != '"' {
				return fmt.Errorf("object key is not a string at offset %d", p.pos)
			}
			if !p.eat(":") {
				return fmt.Errorf("want ':' at offset %d", p.pos)
			}
			if !first {
				b.WriteByte(',')
			}
			b.Write(kb.Bytes())
			b.WriteByte(':')
			if err := p.value(b, bareKeys); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case rest[0] == '[':
		p.pos++
		b.WriteByte('[')
		for first := true; !p.eat("]"); first = false {
			if !first {
				if !p.eat(",") {
					return fmt.Errorf("want ',' or ']' at offset %d", p.pos)
				}
				if p.eat("]") { // trailing comma
					break
				}
				b.WriteByte(',')
			}
			if err := p.value(b, bareKeys); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		word := p.ident()
		switch word {
		case "True", "true":
			b.WriteString("true")
			return nil
		case "False", "false":
			b.WriteString("false")
			return nil
		case "None", "null":
			b.WriteString("null")
			return nil
		case "":
		default:
			return fmt.Errorf("unknown literal %q", word)
		}
		start := p.pos
		for p.pos < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.pos]) >= 0 {
			p.pos++
		}
		num := p.s[start:p.pos]
		if _, err := strconv.ParseFloat(num, 64); err != nil || num == "" {
			return fmt.Errorf("bad value at offset %d", start)
		}
		if !json.Valid([]byte(num)) { // e.g. "1." or "+1": normalize
			f, _ := strconv.ParseFloat(num, 64)
			num = strconv.FormatFloat(f, 'g', -1, 64)
		}
		b.WriteString(num)
	}
	return nil
}

// pyString decodes a Python string literal at the start of s and returns it
// and its length in s.
func pyString(s string) (string, int, error) {
	q := s[0]
	var out strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return out.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				out.WriteByte('\n')
			case 't':
				out.WriteByte('\t')
			case 'r':
				out.WriteByte('\r')
			default:
				out.WriteByte(s[i])
			}
		default:
			out.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}
