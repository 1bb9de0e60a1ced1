package toolcall

import "strings"

// functionaryV31Format: MeetKai Functionary v3.1 (Llama 3.1 based) —
// <function=name>{…}</function> per call, and raw Python code behind
// <|python_tag|> for the python tool:
//
//	<function=get_weather>{"location": "Paris"}</function><|python_tag|>print(1)
func functionaryV31Format() Format {
	named := namedSyntax{nameEnd: ">", close: "</function>"}
	return &jsonFormat{
		name:  "functionary-v3.1",
		eot:   []string{"<|eom_id|>", "<|eot_id|>"},
		opens: []string{"<function=", "<|python_tag|>"},
		read: func(f *jsonFormat, s string, at int, marker string, partial bool) region {
			if marker == "<|python_tag|>" {
				return readPythonTag(f, s, at+len(marker), partial, "python", false)
			}
			return named.read(f, s, at, marker, partial)
		},
		grammar: grammarSpec{
			call:  namedCall("<function=", ">", "</function>"),
			stops: []string{"<function=", "<|python_tag|>"},
		},
	}
}

// functionaryV32Format: MeetKai Functionary v3.2 — the reply is segments
// recipient\ncontent joined by >>> (the generation prompt ends with the
// first >>>); the recipient "all" gets text, a function its JSON
// arguments, python raw code:
//
//	all\nLet me look.>>>get_weather\n{"location": "Paris"}
func functionaryV32Format() Format {
	return &jsonFormat{
		name:    "functionary-v3.2",
		eot:     []string{"<|eot_id|>", "<|eom_id|>"},
		opens:   []string{">>>"},
		atStart: functionaryV32Start,
		read:    namedSyntax{nameEnd: "\n", next: ">>>", contentName: "all", rawCode: "python"}.read,
		grammar: grammarSpec{
			call:         namedCall("", "\n", ""),
			sep:          ">>>",
			stops:        []string{">>>"},
			textPrefix:   "all\n",
			textCallsSep: ">>>",
		},
	}
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// functionaryV32Start finds the first segment, which has no >>> before it:
// a word and a newline, then JSON arguments (or any text for all and
// python). Anything else is plain content.
func functionaryV32Start(s string) (int, bool) {
	k := 0
	for k < len(s) && isWordByte(s[k]) {
		k++
	}
	if k == len(s) {
		return -1, true
	}
	if k == 0 || s[k] != '\n' {
		return -1, false
	}
	if name := s[:k]; name == "all" || name == "python" {
		return 0, false
	}
	if k+1 == len(s) {
		return -1, true
	}
	if s[k+1] == '{' {
		return 0, false
	}
	return -1, false
}

// readPythonTag reads what follows <|python_tag|> (Llama 3.x and
// Functionary v3.1): JSON call objects (if calls), a JSON arguments object
// or string of the code tool, a builtin call name.call(k="v", …) (if
// builtins), or else raw code for the code tool.
func readPythonTag(f *jsonFormat, s string, j int, partial bool, codeTool string, builtins bool) region {
	r := region{}
	j = skipSpace(s, j)
	if j >= len(s) {
		r.pending = &Call{}
		return r.fail(eofAt(j))
	}
	switch {
	case s[j] == '{' && builtins:
		return readLlama3Calls(f, s, j, partial)
	case s[j] == '{':
		e, err := scanArgsObject(s, j)
		if err != nil {
			if err.eof {
				r.pending = &Call{Name: codeTool, Arguments: []byte(s[j:])}
			}
			return r.fail(err)
		}
		r.calls, r.end = []Call{{Name: codeTool, Arguments: []byte(s[j:e])}}, e
		return r
	case s[j] == '"':
		e, err := scanString(s, j)
		if err != nil {
			if err.eof {
				r.pending = &Call{Name: codeTool}
			}
			return r.fail(err)
		}
		r.calls, r.end = []Call{codeCall(codeTool, jsonString(s[j:e]))}, e
		return r
	}
	if builtins {
		k := j
		for k < len(s) && isWordByte(s[k]) {
			k++
		}
		const call = ".call("
		switch rest := s[k:]; {
		case k > j && strings.HasPrefix(rest, call):
			return readBuiltinCall(s, s[j:k], k+len(call))
		case partial && strings.HasPrefix(call, rest):
			r.pending = &Call{}
			return r.fail(eofAt(len(s)))
		}
	}
	if partial {
		r.open, r.pending = true, &Call{Name: codeTool}
		return r
	}
	r.calls, r.end = []Call{codeCall(codeTool, trimReply(s[j:], f.eot))}, len(s)
	return r
}
