package constrain

import (
	"testing"
)

// fuzzCheck runs a few matcher operations on a compiled grammar.
func fuzzCheck(t *testing.T, g *Grammar, v *Vocab, text []byte) {
	m := g.NewMatcher(v)
	mask := make([]uint64, v.MaskWords())
	m.FillMask(mask)
	_ = m.AcceptBytes(text)
	m.FillMask(mask)
	_ = m.Accepting()
	_ = m.Done()
}

func FuzzRegex(f *testing.F) {
	for _, s := range []string{`a+b*`, `[^"\\]{0,5}`, `(?i)x|y{2,}`, `\p{Han}+.`, `^$`, `a{1000}`, `(a|b)*c?`} {
		f.Add(s, []byte("aab"))
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text []byte) {
		if len(src) > 200 {
			return
		}
		g, err := Regex(src)
		if err != nil {
			return
		}
		fuzzCheck(t, g, v, text)
	})
}

func FuzzGBNF(f *testing.F) {
	for _, s := range []string{jsonGBNF, arithGBNF, "root ::= [a-z]+ | \"x\"{2,3}", "root ::= a\na ::= \"(\" a? \")\"", `root ::= /[0-9]+/ %json {"type":"integer"}`} {
		f.Add(s, []byte("(())"))
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text []byte) {
		if len(src) > 2000 {
			return
		}
		g, err := GBNF(src)
		if err != nil {
			return
		}
		fuzzCheck(t, g, v, text)
	})
}

func FuzzLark(f *testing.F) {
	for _, s := range []string{calcLark, "start: \"a\"~2..3 | /b+/i\n%ignore \" \"", "start: x\nx: \"(\" x? \")\""} {
		f.Add(s, []byte("(1+2)"))
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, src string, text []byte) {
		if len(src) > 2000 {
			return
		}
		g, err := Lark(src)
		if err != nil {
			return
		}
		fuzzCheck(t, g, v, text)
	})
}

func FuzzJSONSchema(f *testing.F) {
	for _, s := range testSchemas {
		f.Add([]byte(s), []byte(`{"a":1}`))
	}
	f.Add([]byte(`{"type":"integer","minimum":-7,"maximum":1000000}`), []byte("-7"))
	f.Add([]byte(`{"type":"array","prefixItems":[{"const":1}],"minItems":2,"maxItems":3}`), []byte("[1,2]"))
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, schema, text []byte) {
		if len(schema) > 4000 {
			return
		}
		g, err := JSONSchema(schema)
		if err != nil {
			return
		}
		fuzzCheck(t, g, v, text)
	})
}
