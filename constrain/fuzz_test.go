package constrain

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fuzzSteps bounds the tokens of one fuzzed walk.
const fuzzSteps = 32

// fuzzWalk walks g over v from text (if g accepts it as a prefix, else from
// the start), picking each next token among the allowed ones by the next
// byte of choices. At every step it checks the mask against Accept: every
// token the mask allows is accepted, every other one (every 5th, for speed)
// rejected, EOS allowed iff the text so far is complete. It calls complete with the text at every
// step where the matcher is accepting.
func fuzzWalk(t *testing.T, g *Grammar, v *Vocab, text, choices []byte, complete func(text []byte)) {
	t.Helper()
	m := g.NewMatcher(v)
	if m.AcceptBytes(text) != nil {
		m, text = g.NewMatcher(v), nil
	}
	text = bytes.Clone(text)
	mask := make([]uint64, v.MaskWords())
	var allowed []int32
	for step := 0; step <= min(len(choices), fuzzSteps); step++ {
		if m.Accepting() {
			complete(text)
		}
		if m.Done() {
			return
		}
		m.FillMask(mask)
		allowed = allowed[:0]
		for id := int32(0); id < int32(v.Size()); id++ {
			in := mask[id>>6]&(1<<(uint(id)&63)) != 0
			if !in && id%5 != 0 && !v.IsEOS(id) {
				continue
			}
			c := *m
			err := c.Accept(id)
			if in != (err == nil) {
				t.Fatalf("after %q: token %d %q: mask says %v, Accept says %v", text, id, v.TokenBytes(id), in, err)
			}
			if v.IsEOS(id) {
				if in != m.Accepting() {
					t.Fatalf("after %q: EOS allowed %v, accepting %v", text, in, m.Accepting())
				}
			} else if in {
				allowed = append(allowed, id)
			}
		}
		if step == len(choices) || len(allowed) == 0 {
			return
		}
		tok := allowed[int(choices[step])%len(allowed)]
		if err := m.Accept(tok); err != nil {
			t.Fatal(err)
		}
		text = append(text, v.TokenBytes(tok)...)
	}
}

// hasAnchor reports whether re contains an anchor (^ $ \A \z): Regex
// ignores them, since its match is always whole, where regexp honours them.
func hasAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, s := range re.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// FuzzRegex checks Regex against regexp: on the fuzzed text and on every
// text a walk generates, the constraint accepts exactly the texts that
// regexp.MatchString("^(?:re)$") matches, for the patterns both accept
// (no anchors: Regex ignores them).
func FuzzRegex(f *testing.F) {
	for _, s := range []string{`a+b*`, `[^"\\]{0,5}`, `(?i)x|y{2,}`, `\p{Han}+.`, `a{1000}`, `(a|b)*c?`,
		`[A-Z][a-z]{2,10}( [a-z]{1,10}){3,12}\. (Yes|No)\.`, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
		`(?s).{0,12}end`, `[😀-🙏]{1,3}|中文+`, `(?i)straße|ǅ`, `\d{3}-\d{4}`, `[[:alpha:]_][[:word:]]*`} {
		f.Add(s, []byte("aab"), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text, choices []byte) {
		if len(src) > 200 {
			return
		}
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil || hasAnchor(re) {
			return
		}
		std, err := regexp.Compile(`^(?:` + src + `)$`)
		if err != nil {
			return
		}
		g, err := Regex(src)
		if err != nil {
			return
		}
		m := g.NewMatcher(v)
		ok := m.AcceptBytes(text) == nil && m.Accepting()
		if utf8.Valid(text) {
			if ok != std.Match(text) {
				t.Fatalf("%q on %q: Regex accepts %v, regexp matches %v", src, text, ok, !ok)
			}
		} else if ok {
			t.Fatalf("%q accepts invalid UTF-8 %q", src, text)
		}
		fuzzWalk(t, g, v, nil, choices, func(text []byte) {
			if !std.Match(text) {
				t.Fatalf("%q: generated %q, which regexp does not match", src, text)
			}
		})
	})
}

// FuzzGBNF checks that the masks of fuzzed GBNF grammars agree with Accept.
func FuzzGBNF(f *testing.F) {
	for _, s := range []string{jsonGBNF, arithGBNF, "root ::= [a-z]+ | \"x\"{2,3}", "root ::= a\na ::= \"(\" a? \")\"", `root ::= /[0-9]+/ %json {"type":"integer"}`} {
		f.Add(s, []byte("(())"), []byte{7, 0, 3, 200, 11})
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text, choices []byte) {
		if len(src) > 2000 {
			return
		}
		g, err := GBNF(src)
		if err != nil {
			return
		}
		fuzzWalk(t, g, v, text, choices, func([]byte) {})
	})
}

// FuzzLark checks that the masks of fuzzed Lark grammars agree with Accept.
func FuzzLark(f *testing.F) {
	for _, s := range []string{calcLark, "start: \"a\"~2..3 | /b+/i\n%ignore \" \"", "start: x\nx: \"(\" x? \")\""} {
		f.Add(s, []byte("(1+2)"), []byte{5, 4, 3, 2, 1})
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text, choices []byte) {
		if len(src) > 2000 {
			return
		}
		g, err := Lark(src)
		if err != nil {
			return
		}
		fuzzWalk(t, g, v, text, choices, func([]byte) {})
	})
}

// FuzzJSONSchema checks fuzzed schemas that compile: the masks agree with
// Accept, and every complete text a walk generates is JSON that a
// reference validator (santhosh-tekuri/jsonschema, draft 2020-12) finds
// valid against the schema.
func FuzzJSONSchema(f *testing.F) {
	for _, s := range testSchemas {
		f.Add([]byte(s), []byte(`{"`), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	}
	f.Add([]byte(walkSchema), []byte(`{"query": "`), []byte{9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
	f.Add([]byte(toolSchema), []byte(`{`), []byte{0, 0, 1, 1, 2, 2, 3, 3})
	f.Add([]byte(`{"type":"integer","minimum":-7,"maximum":1000000}`), []byte("-"), []byte{6, 6, 6})
	f.Add([]byte(`{"type":"array","prefixItems":[{"const":1}],"minItems":2,"maxItems":3}`), []byte("[1,"), []byte{2, 7, 1, 8})
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, schema, text, choices []byte) {
		if len(schema) > 4000 {
			return
		}
		g, err := JSONSchema(schema)
		if err != nil {
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
		if err != nil {
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if c.AddResource("schema.json", doc) != nil {
			return
		}
		ref, err := c.Compile("schema.json")
		if err != nil {
			return // not a schema the reference accepts (or a remote reference)
		}
		fuzzWalk(t, g, v, text, choices, func(text []byte) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
			if err != nil {
				t.Fatalf("schema %s: generated %q, which is not JSON: %v", schema, text, err)
			}
			if err := ref.Validate(inst); err != nil {
				t.Fatalf("schema %s: generated %q, which the reference finds invalid: %v", schema, text, err)
			}
		})
	})
}
