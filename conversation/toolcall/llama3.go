package toolcall

import (
	"encoding/json"
	"strings"
)

// llama3Format: Llama 3.1 / 3.2 / 3.3 — a bare JSON object at the start of
// the reply (several are read when separated by whitespace or ';'):
//
//	{"name": "get_weather", "parameters": {"location": "Paris"}}
//
// and, behind <|python_tag|>, builtin tools called Python-style
// (brave_search.call(query="…")), JSON call objects, or raw code for the
// code interpreter:
//
//	<|python_tag|>brave_search.call(query="weather in Paris")<|eom_id|>
//
// A reply is a call only where it starts like one:
// {"name": "…", "parameters"|"arguments": (optionally behind "type":
// "function"); other JSON is content.
func llama3Format() Format {
	return &jsonFormat{
		name:    "llama3",
		eot:     []string{"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"},
		opens:   []string{"<|python_tag|>"},
		atStart: llama3Start,
		read: func(f *jsonFormat, s string, at int, marker string, partial bool) region {
			if marker == "" {
				return readLlama3Calls(f, s, at, partial)
			}
			return readPythonTag(f, s, at+len(marker), partial, "code_interpreter", true)
		},
		grammar: grammarSpec{
			call:  objectCall("", "parameters", ""),
			sep:   "; ",
			stops: []string{`"name"`, "<|python_tag|>"},
			// A call is the whole reply: text cannot come before it.
			textOrCalls: true,
		},
	}
}

// llama3Start finds a call object at the start of the reply.
func llama3Start(s string) (int, bool) {
	i := skipSpace(s, 0)
	if i == len(s) {
		return -1, true
	}
	match, more := llama3CallStart(s, i)
	switch {
	case match:
		return i, false
	case more:
		return -1, true
	}
	return -1, false
}

// llama3CallStart reports whether s[i:] starts like a call object
// ({ "type": "function", "name": "…", "parameters" : — the type
// optional), or (more) could still.
func llama3CallStart(s string, i int) (match, more bool) {
	p := i
	// lit matches t at p: 1 matched, 0 not, -1 the text ends first.
	lit := func(t string) int {
		p = skipSpace(s, p)
		for k := 0; k < len(t); k++ {
			if p+k >= len(s) {
				return -1
			}
			if s[p+k] != t[k] {
				return 0
			}
		}
		p += len(t)
		return 1
	}
	seq := func(ts ...string) int {
		for _, t := range ts {
			if r := lit(t); r != 1 {
				return r
			}
		}
		return 1
	}
	if r := lit("{"); r != 1 {
		return false, r < 0
	}
	save := p
	switch seq(`"type"`, ":", `"function"`, ",") {
	case -1:
		return false, true
	case 0:
		p = save
	}
	if r := seq(`"name"`, ":"); r != 1 {
		return false, r < 0
	}
	p = skipSpace(s, p)
	if p >= len(s) {
		return false, true
	}
	if s[p] != '"' {
		return false, false
	}
	e, err := scanString(s, p)
	if err != nil {
		return false, err.eof
	}
	p = e
	if r := lit(","); r != 1 {
		return false, r < 0
	}
	save = p
	a := seq(`"parameters"`, ":")
	if a != 1 {
		p = save
		b := seq(`"arguments"`, ":")
		if b != 1 {
			return false, a < 0 || b < 0
		}
	}
	return true, false
}

// readLlama3Calls reads call objects from s[j], separated by whitespace
// or ';', as long as the next one starts like a call.
func readLlama3Calls(f *jsonFormat, s string, j int, partial bool) region {
	r := region{}
	for {
		c, end, err := readCall(s, j, &r)
		if err != nil {
			return r.fail(err)
		}
		r.calls = append(r.calls, c)
		k := end
		for k < len(s) && (isSpace(s[k]) || s[k] == ';') {
			k++
		}
		r.end = k
		if k >= len(s) {
			r.open = partial
			return r
		}
		if s[k] != '{' {
			return r
		}
		match, more := llama3CallStart(s, k)
		if !match {
			r.open = partial && more
			return r
		}
		j = k
	}
}

// readBuiltinCall reads the keyword arguments of a builtin tool call
// name.call(k=v, …) from s[j] (after the parenthesis); values are JSON or
// Python literals.
func readBuiltinCall(s string, name string, j int) region {
	r := region{}
	var args strings.Builder
	args.WriteByte('{')
	pend := func(err *jsonError) region {
		if err.eof {
			r.pending = &Call{Name: name}
		}
		return r.fail(err)
	}
	for n := 0; ; n++ {
		j = skipSpace(s, j)
		if j >= len(s) {
			return pend(eofAt(j))
		}
		if s[j] == ')' {
			break
		}
		if n > 0 {
			if s[j] != ',' {
				return pend(badAt(j, "want ',' or ')' in the call of %s", name))
			}
			if j = skipSpace(s, j+1); j >= len(s) {
				return pend(eofAt(j))
			}
			if s[j] == ')' {
				break
			}
		}
		k := j
		for k < len(s) && isWordByte(s[k]) {
			k++
		}
		if k == j {
			if k >= len(s) {
				return pend(eofAt(k))
			}
			return pend(badAt(k, "want a keyword argument in the call of %s", name))
		}
		key := s[j:k]
		if k = skipSpace(s, k); k >= len(s) {
			return pend(eofAt(k))
		}
		if s[k] != '=' {
			return pend(badAt(k, "want '=' after %s in the call of %s", key, name))
		}
		v := skipSpace(s, k+1)
		val, e, err := pyValue(s, v)
		if err != nil {
			return pend(err)
		}
		if n > 0 {
			args.WriteString(", ")
		}
		args.WriteString(quoteJSON(key) + ": " + val)
		j = e
	}
	args.WriteByte('}')
	r.calls, r.end = []Call{{Name: name, Arguments: json.RawMessage(args.String())}}, j+1
	return r
}

// pyValue reads a JSON value or a Python literal (a single-quoted string,
// True, False, None) at s[j] and returns it as JSON.
func pyValue(s string, j int) (string, int, *jsonError) {
	if j >= len(s) {
		return "", j, eofAt(j)
	}
	for lit, v := range map[string]string{"True": "true", "False": "false", "None": "null"} {
		if strings.HasPrefix(s[j:], lit) {
			return v, j + len(lit), nil
		}
		if strings.HasPrefix(lit, s[j:]) {
			return "", len(s), eofAt(len(s))
		}
	}
	if s[j] == '\'' {
		var b strings.Builder
		for k := j + 1; k < len(s); k++ {
			switch c := s[k]; {
			case c == '\'':
				return quoteJSON(b.String()), k + 1, nil
			case c == '\\':
				if k+1 >= len(s) {
					return "", len(s), eofAt(len(s))
				}
				k++
				switch s[k] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(s[k])
				}
			default:
				b.WriteByte(c)
			}
		}
		return "", len(s), eofAt(len(s))
	}
	e, err := scanJSON(s, j)
	if err != nil {
		return "", e, err
	}
	return s[j:e], e, nil
}
