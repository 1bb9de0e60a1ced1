package constrain

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dialectToJSON rewrites a value spelled in dialect d back into JSON, as a
// reader of that dialect would: dialect strings become JSON strings, bare
// keys quoted keys, and Python's True/False/None JSON's literals.
func dialectToJSON(t testing.TB, s string, d JSONDialect) string {
	t.Helper()
	var out strings.Builder
	for i := 0; i < len(s); {
		switch {
		case d.Quote != "" && strings.HasPrefix(s[i:], d.Quote):
			end := strings.Index(s[i+len(d.Quote):], d.Quote)
			require.GreaterOrEqual(t, end, 0, "unterminated string in %q", s)
			out.WriteString(quoteJSON(s[i+len(d.Quote) : i+len(d.Quote)+end]))
			i += 2*len(d.Quote) + end
		case s[i] == '"':
			j := i + 1
			for s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			out.WriteString(s[i : j+1])
			i = j + 1
		case isIdentStart(s[i]):
			j := i
			for j < len(s) && (isIdentStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && strings.IndexByte(" \t\r\n", s[k]) >= 0 {
				k++
			}
			switch {
			case d.BareKeys && k < len(s) && s[k] == ':':
				out.WriteString(quoteJSON(word))
			case d.Python && word == "True", !d.Python && word == "true":
				out.WriteString("true")
			case d.Python && word == "False", !d.Python && word == "false":
				out.WriteString("false")
			case d.Python && word == "None", !d.Python && word == "null":
				out.WriteString("null")
			default:
				out.WriteString(word) // an exponent's e/E
			}
			i = j
		default:
			out.WriteByte(s[i])
			i++
		}
	}
	return out.String()
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func TestJSONDialectExamples(t *testing.T) {
	v := testVocab(t)
	schema := []byte(`{"type":"object","properties":{
		"city":{"type":"string"},"n":{"type":"integer"},"ok":{"type":"boolean"},"none":{"type":"null"},
		"unit":{"enum":["c","f",true,null]},"short":{"type":"string","maxLength":3},
		"code":{"type":"string","pattern":"^[<a-z]{2}$"},"odd key":{"type":"integer"},
		"obj":{"type":"object","properties":{"a":{"type":"string"}}},"any":{}}}`)
	cases := []struct {
		dialect JSONDialect
		ok, bad []string
	}{
		{DialectPython,
			[]string{`{"city": "Z\u00fcrich \"q\" \\ 東京", "n": 3, "ok": True, "none": None}`, `{"unit": "c"}`, `{"unit": True}`, `{"unit": None}`,
				`{"any": {"x": [True, None, 1.5, "s"]}}`, `{"obj": {"a": "b"}}`, `{"odd key": 1}`, `{"code": "<a"}`},
			[]string{`{"ok": true}`, `{"none": null}`, `{"city": "a\/b"}`, `{"unit": true}`, `{"any": false}`, `{city: "x"}`}},
		{DialectGemma,
			[]string{`{city:<|"|>Zürich "q" \ 東京<|"|>,n:3,ok:true,none:null}`, `{unit:<|"|>c<|"|>}`, `{unit:true}`, `{short:<|"|>a"\<|"|>}`,
				`{any:{x:[true,null,1.5,<|"|>s<|"|>]}}`, `{obj:{a:<|"|>b<|"|>}}`, `{<|"|>odd key<|"|>:1}`, `{city:<|"|><|"|>}`, `{code:<|"|>ab<|"|>}`},
			[]string{`{"city":"x"}`, `{city:"x"}`, `{city:<|"|>a<|"|>b<|"|>}`, `{short:<|"|>abcd<|"|>}`, `{short:<|"|><ab<|"|>}`,
				`{ok:True}`, `{odd key:1}`, `{code:<|"|><a<|"|>}`, `{any:{"x":1}}`}},
		{JSONDialect{Quote: "<escape>", BareKeys: true},
			[]string{`{city:<escape>a "b"<escape>,unit:<escape>f<escape>}`},
			[]string{`{city:<|"|>a<|"|>}`, `{city:<escape>a<escape>b<escape>}`}},
	}
	for _, tc := range cases {
		g, err := JSONSchemaWith(schema, JSONOptions{Dialect: tc.dialect, Whitespace: WhitespaceBounded})
		require.NoError(t, err)
		for _, s := range tc.ok {
			assert.True(t, accepts(g, v, s), "%+v should accept %s", tc.dialect, s)
		}
		for _, s := range tc.bad {
			assert.False(t, accepts(g, v, s), "%+v should reject %s", tc.dialect, s)
		}
	}
	// The zero dialect is JSON.
	g, err := JSONSchemaWith(schema, JSONOptions{})
	require.NoError(t, err)
	assert.True(t, accepts(g, v, `{"city": "a\/b", "ok": true, "none": null}`))
	assert.False(t, accepts(g, v, `{"ok": True}`))
}

// TestJSONDialectRandomGenerationsValidate samples values in each dialect,
// reads them back into JSON and validates them against the schema.
func TestJSONDialectRandomGenerationsValidate(t *testing.T) {
	dialects := map[string]JSONDialect{"python": DialectPython, "gemma": DialectGemma, "escape": {Quote: "<escape>", BareKeys: true, Python: true}}
	for dname, d := range dialects {
		for name, src := range testSchemas {
			t.Run(dname+"/"+name, func(t *testing.T) {
				v := vocabWith(t, testVocab(t), d.Quote)
				g, err := JSONSchemaWith([]byte(src), JSONOptions{Dialect: d})
				require.NoError(t, err)
				schema, err := parseJSON([]byte(src))
				require.NoError(t, err)
				ended := 0
				for seed := uint64(0); seed < 20; seed++ {
					rng := rand.New(rand.NewPCG(seed, 13))
					gen := sampleRandom(t, g, v, rng, 4000, 0.5)
					if !gen.eos && gen.steps >= 4000 {
						continue
					}
					ended++
					js := dialectToJSON(t, string(gen.text), d)
					val, err := parseJSON([]byte(js))
					require.NoError(t, err, "output %q read as %q", gen.text, js)
					require.NoError(t, validate(schema, schema, val, ""), "output %q", gen.text)
				}
				assert.Equal(t, 20, ended, "all generations end")
			})
		}
	}
}

// vocabWith is v plus copies of extra tokens (a dialect's quote, as real
// vocabularies have it as one token), EOS staying last.
func vocabWith(t testing.TB, v *Vocab, extra string) *Vocab {
	t.Helper()
	if extra == "" {
		return v
	}
	var toks [][]byte
	for id := int32(0); id < int32(v.Size())-1; id++ {
		toks = append(toks, v.TokenBytes(id))
	}
	for range 8 {
		toks = append(toks, []byte(extra))
	}
	toks = append(toks, v.TokenBytes(int32(v.Size())-1))
	nv, err := NewVocab(toks, []int32{int32(len(toks) - 1)})
	require.NoError(t, err)
	return nv
}
