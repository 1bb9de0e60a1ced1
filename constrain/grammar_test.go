package constrain

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonGBNF is llama.cpp's grammars/json.gbnf (bounded whitespace), shared
// with the CLI tests.
//
//go:embed testdata/json.gbnf
var jsonGBNF string

const arithGBNF = `root   ::= expr
expr   ::= term (("+" | "-") term)*
term   ::= factor (("*" | "/") factor)*
factor ::= [0-9]{1,3} | "(" expr ")"
`

func TestGBNFRandomGenerationsParse(t *testing.T) {
	v := testVocab(t)
	cases := []struct {
		name, src string
		check     func(string) bool
	}{
		{"json", jsonGBNF, func(s string) bool { return json.Valid([]byte(s)) && strings.HasPrefix(s, "{") }},
		{"arith", arithGBNF, func(s string) bool { return parseArith(s, false) }},
		{"regular", "root ::= (\"yes\" | \"no\") \" \" [0-9]{2} tail\ntail ::= \"!\"*\n   | \"?\"\n",
			regexp.MustCompile(`^(yes|no) [0-9]{2}(!*|\?)$`).MatchString},
		{"regex-terminal", `root ::= "id=" /[a-f0-9]{4}/ ("," /[A-Z]+/){0,2}`,
			regexp.MustCompile(`^id=[a-f0-9]{4}(,[A-Z]+){0,2}$`).MatchString},
		{"json-embed", `root ::= "args: " %json {"type":"object","properties":{"n":{"type":"integer","maximum":9}},"required":["n"]}`,
			func(s string) bool {
				var x struct{ N *int }
				return strings.HasPrefix(s, "args: ") && json.Unmarshal([]byte(s[6:]), &x) == nil && x.N != nil && *x.N <= 9
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := GBNF(c.src)
			require.NoError(t, err)
			ended := 0
			for seed := uint64(0); seed < 40; seed++ {
				gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 3)), 4000, 0.5)
				if gen.eos || gen.steps < 4000 {
					ended++
					assert.True(t, c.check(string(gen.text)), "output %q", gen.text)
				}
			}
			assert.Equal(t, 40, ended, "all generations end")
		})
	}
}

func TestGBNFExamples(t *testing.T) {
	v := testVocab(t)
	g, err := GBNF(jsonGBNF)
	require.NoError(t, err)
	for _, s := range []string{`{}`, `{"a": [1, 2.5, -3e4, "x\n", {"b": null}]}`, "{\n  \"k\": true\n}"} {
		m := g.NewMatcher(v)
		require.NoError(t, m.AcceptBytes([]byte(s)), s)
		assert.True(t, m.Accepting(), s)
	}
	m := g.NewMatcher(v)
	assert.Error(t, m.AcceptBytes([]byte(`{"a" 1}`)))
	// Right recursion keeps the stack bounded: a long array does not grow states without bound.
	g2, err := GBNF("root ::= \"[\" items \"]\"\nitems ::= \"1\" (\",\" items)?\n")
	require.NoError(t, err)
	m = g2.NewMatcher(v)
	require.NoError(t, m.AcceptBytes([]byte("["+strings.Repeat("1,", 500)+"1]")))
	assert.True(t, m.Accepting())
	assert.Less(t, len(m.e.states), 20, "tail calls keep the automaton small")
}

func TestGBNFErrors(t *testing.T) {
	cases := []struct {
		src       string
		sentinel  error
		line, col int
	}{
		{`root ::= "abc`, ErrSyntax, 1, 10},
		{"root ::= a\na ::= [b", ErrSyntax, 2, 7},
		{"root ::= x", ErrInvalid, 1, 10},
		{"a ::= \"x\"", ErrInvalid, 1, 1},
		{"root ::= root \"x\" | \"y\"", ErrUnsupported, 0, 0},
		{"root ::= \"a\"{3,1}", ErrSyntax, 1, 13},
		{"root ::= \"a\" )", ErrSyntax, 1, 14},
		{"root = \"a\"", ErrSyntax, 1, 6},
		{"root ::= /a(/", ErrSyntax, 1, 10},
		{"root ::= %json {\"type\":\"strin\"}", ErrSyntax, 1, 16},
		{"root ::= <[12]>", ErrUnsupported, 1, 10},
		{"root ::= [^\\x00-\\U0010FFFF]", ErrInvalid, 0, 0},
	}
	for _, c := range cases {
		_, err := GBNF(c.src)
		require.Error(t, err, c.src)
		assert.True(t, errors.Is(err, c.sentinel), "%q: %v", c.src, err)
		var ce *CompileError
		require.True(t, errors.As(err, &ce))
		if c.line > 0 {
			assert.Equal(t, [2]int{c.line, c.col}, [2]int{ce.Line, ce.Col}, "%q: %v", c.src, err)
		}
	}
}

const calcLark = `// arithmetic with whitespace
start: expr
expr: term (("+"|"-") term)*
term: factor (("*"|"/") factor)*
factor: NUMBER | "(" expr ")"
     | "-" factor
NUMBER: /[0-9]{1,3}/
%import common.WS_INLINE
%ignore WS_INLINE
`

func TestLarkRandomGenerationsParse(t *testing.T) {
	v := testVocab(t)
	cases := []struct {
		name, src string
		check     func(string) bool
	}{
		{"calc", calcLark, func(s string) bool { return parseArith(s, true) }},
		{"json-tool", `start: "call " NAME " " args
NAME: "get_weather" | "search"
args: %json {"type":"object","properties":{"q":{"type":"string","maxLength":6}},"required":["q"],"additionalProperties":false}
`, func(s string) bool {
			var x map[string]string
			i := strings.Index(s[5:], " ")
			return i > 0 && json.Unmarshal([]byte(s[5+i+1:]), &x) == nil && len(x) == 1
		}},
		{"ranges", `start: word ("," word)~0..2 [ "!" ]
word: LETTER+ | "x"i ("a".."c")~2
%import common.LETTER
`, regexp.MustCompile(`^([A-Za-z]+|[xX][a-c]{2})(,([A-Za-z]+|[xX][a-c]{2})){0,2}!?$`).MatchString},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Lark(c.src)
			require.NoError(t, err)
			ended := 0
			for seed := uint64(0); seed < 40; seed++ {
				gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 5)), 4000, 0.5)
				if gen.eos || gen.steps < 4000 {
					ended++
					assert.True(t, c.check(string(gen.text)), "output %q", gen.text)
				}
			}
			assert.Equal(t, 40, ended)
		})
	}
}

func TestLarkExamplesAndErrors(t *testing.T) {
	v := testVocab(t)
	g, err := Lark(calcLark)
	require.NoError(t, err)
	for _, s := range []string{"1+2", " ( 3 * 4 ) - -5 ", "7"} {
		m := g.NewMatcher(v)
		require.NoError(t, m.AcceptBytes([]byte(s)), s)
		assert.True(t, m.Accepting(), s)
	}
	m := g.NewMatcher(v)
	assert.Error(t, m.AcceptBytes([]byte("1++")))

	cases := []struct {
		src       string
		sentinel  error
		line, col int
	}{
		{"start: foo", ErrInvalid, 1, 8},
		{"expr: \"a\"", ErrInvalid, 1, 1},
		{"start: \"a\"\n%import python.NAME", ErrUnsupported, 2, 1},
		{"start: \"a\" ~ x", ErrSyntax, 1, 14},
		{"start: (\"a\"", ErrSyntax, 1, 8},
		{"start \"a\"", ErrSyntax, 1, 7},
		{"start: /[/", ErrSyntax, 1, 8},
		{"start: a\na: start \"x\" | \"y\"", ErrUnsupported, 0, 0},
		{"start: a\na: \"x\" a", ErrInvalid, 0, 0},
	}
	for _, c := range cases {
		_, err := Lark(c.src)
		require.Error(t, err, c.src)
		assert.True(t, errors.Is(err, c.sentinel), "%q: %v", c.src, err)
		var ce *CompileError
		require.True(t, errors.As(err, &ce))
		if c.line > 0 {
			assert.Equal(t, [2]int{c.line, c.col}, [2]int{ce.Line, ce.Col}, "%q: %v", c.src, err)
		}
	}
}

// parseArith checks s against expr/term/factor arithmetic (factor: 1-3
// digits or a parenthesized expr; with lark also unary minus and spaces/tabs).
func parseArith(s string, lark bool) bool {
	pos := 0
	skip := func() {
		for lark && pos < len(s) && (s[pos] == ' ' || s[pos] == '\t') {
			pos++
		}
	}
	var expr, term, factor func() bool
	factor = func() bool {
		skip()
		if pos < len(s) && s[pos] == '(' {
			pos++
			if !expr() {
				return false
			}
			skip()
			if pos >= len(s) || s[pos] != ')' {
				return false
			}
			pos++
			return true
		}
		if lark && pos < len(s) && s[pos] == '-' {
			pos++
			return factor()
		}
		n := 0
		for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
			pos++
			n++
		}
		return n >= 1 && n <= 3
	}
	binary := func(sub func() bool, ops string) func() bool {
		return func() bool {
			if !sub() {
				return false
			}
			for {
				skip()
				if pos < len(s) && strings.IndexByte(ops, s[pos]) >= 0 {
					pos++
					if !sub() {
						return false
					}
					continue
				}
				return true
			}
		}
	}
	term = binary(factor, "*/")
	expr = binary(term, "+-")
	ok := expr()
	skip()
	return ok && pos == len(s)
}
