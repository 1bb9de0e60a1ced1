package constrain

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testSchemas = map[string]string{
	"weather": `{"type":"object","properties":{
		"location":{"type":"string","description":"City name"},
		"unit":{"type":"string","enum":["celsius","fahrenheit"]},
		"days":{"type":"integer","minimum":1,"maximum":14}},
		"required":["location"],"additionalProperties":false}`,
	"person": `{"type":"object","properties":{
		"name":{"type":"string","minLength":1,"maxLength":10},
		"age":{"type":"integer","minimum":0,"maximum":150},
		"email":{"type":"string","format":"email"},
		"tags":{"type":"array","items":{"type":"string","maxLength":5},"minItems":1,"maxItems":3},
		"address":{"$ref":"#/$defs/address"},
		"score":{"type":"number","minimum":-5,"exclusiveMaximum":5.5}},
		"required":["name","age","tags"],
		"$defs":{"address":{"type":"object","properties":{"street":{"type":"string","maxLength":8},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["zip"]}}}`,
	"tree": `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{
		"value":{"type":"integer","minimum":-3,"maximum":3},
		"children":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":2}},"required":["value"]}}}`,
	"mixed": `{"type":"object","properties":{
		"id":{"type":"string","format":"uuid"},
		"when":{"type":"string","format":"date-time"},
		"day":{"type":"string","format":"date"},
		"code":{"type":"string","pattern":"^[A-Z]{2}-\\d+$"},
		"note":{"type":"string","pattern":"ab"},
		"maybe":{"anyOf":[{"type":"string","maxLength":3},{"type":"null"}]},
		"flag":{"type":"boolean"},
		"kind":{"const":"fixed"},
		"choice":{"enum":[1,"two",null,{"x":[true]}]},
		"pair":{"type":"array","prefixItems":[{"type":"integer"},{"type":"boolean"}],"items":false},
		"ratio":{"type":"number"},
		"opt":{"type":["integer","null"]}},
		"required":["id","when","day","code","note","maybe","flag","kind","choice","pair","ratio","opt"]}`,
	"map":   `{"type":"object","additionalProperties":{"type":"integer","minimum":100,"maximum":200}}`,
	"allOf": `{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}},"required":["b"]}]}`,
}

func TestJSONSchemaRandomGenerationsValidate(t *testing.T) {
	v := testVocab(t)
	for name, src := range testSchemas {
		t.Run(name, func(t *testing.T) {
			g, err := JSONSchema([]byte(src))
			require.NoError(t, err)
			schema, err := parseJSON([]byte(src))
			require.NoError(t, err)
			ended := 0
			const seeds = 40
			for seed := uint64(0); seed < seeds; seed++ {
				rng := rand.New(rand.NewPCG(seed, 11))
				gen := sampleRandom(t, g, v, rng, 4000, 0.5)
				if !gen.eos && gen.steps >= 4000 {
					continue
				}
				ended++
				require.True(t, json.Valid(gen.text), "invalid JSON %q", gen.text)
				val, err := parseJSON(gen.text)
				require.NoError(t, err)
				require.NoError(t, validate(schema, schema, val, ""), "output %s", gen.text)
			}
			assert.Equal(t, seeds, ended, "all generations end")
		})
	}
}

func TestJSONSchemaAcceptsExamples(t *testing.T) {
	v := testVocab(t)
	cases := []struct {
		schema string
		good   []string
		bad    []string
	}{
		{testSchemas["weather"], []string{`{"location": "Paris"}`, `{"location":"Paris","unit":"celsius","days":14}`, "{\n  \"location\": \"a\\\"b\"\n}", `{"unit":"celsius","location":"P"}`},
			[]string{`{"unit":"celsius"}`, `{"location":"P","days":15}`, `{"location":"P","days":0}`, `{"location":"P","x":1}`, `{"location":"P","location":"Q"}`}},
		{`{"type":"integer","minimum":-20,"maximum":1234}`, []string{"-20", "0", "-0", "7", "1234", "999"}, []string{"-21", "1235", "01", "1.5", "-20.5", "7.0"}}, // integers without fraction outside Spec mode
		{`{"type":"integer","exclusiveMinimum":10}`, []string{"11", "100", "123456789"}, []string{"10", "9", "-1"}},
		{`{"type":"number","minimum":0,"maximum":1}`, []string{"0", "0.5", "1", "1.0", "0.999"}, []string{"1.5", "-0.1", "2"}},
		{`{"type":"string","pattern":"^a+$"}`, []string{`"a"`, `"aaa"`}, []string{`"b"`, `""`}},
		{`{"type":"string","pattern":"\""}`, []string{`"x\"y"`}, []string{`"xy"`}},
		{`{"type":"string","maxLength":2}`, []string{`""`, `"é中"`, `"\n"`}, []string{`"abc"`}},
		{`{"type":"array","items":{"type":"boolean"},"minItems":1,"maxItems":2}`, []string{`[true]`, `[true, false]`}, []string{`[]`, `[true,true,true]`}},
		{`{}`, []string{`{"a":[1,{"b":null}]}`, `"x"`, `-1.5e3`}, []string{`{a:1}`}},
		{`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}`,
			[]string{`{}`, `{"a":1}`, `{"b":1}`, `{"a":1,"c":2}`, `{"a":1,"b":2,"c":3}`}, []string{`{,"b":1}`, `{"a":1,}`}},
	}
	for _, c := range cases {
		g, err := JSONSchema([]byte(c.schema))
		require.NoError(t, err, c.schema)
		for _, s := range c.good {
			m := g.NewMatcher(v)
			require.NoError(t, m.AcceptBytes([]byte(s)), "%s: %s", c.schema, s)
			assert.True(t, m.Accepting(), "%s: %s complete", c.schema, s)
		}
		for _, s := range c.bad {
			m := g.NewMatcher(v)
			err := m.AcceptBytes([]byte(s))
			assert.False(t, err == nil && m.Accepting(), "%s: %s must be rejected", c.schema, s)
		}
	}
}

func TestJSONSchemaWhitespaceModes(t *testing.T) {
	v := testVocab(t)
	s := []byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`)
	compact, err := JSONSchemaWith(s, JSONOptions{Whitespace: WhitespaceCompact})
	require.NoError(t, err)
	spaced, err := JSONSchemaWith(s, JSONOptions{Whitespace: WhitespaceSpaced})
	require.NoError(t, err)
	bounded, err := JSONSchemaWith(s, JSONOptions{MaxWhitespace: 3})
	require.NoError(t, err)
	ok := func(g *Grammar, text string) bool {
		m := g.NewMatcher(v)
		return m.AcceptBytes([]byte(text)) == nil && m.Accepting()
	}
	assert.True(t, ok(compact, `{"a":[1,2]}`))
	assert.False(t, ok(compact, `{"a": [1,2]}`))
	assert.True(t, ok(spaced, `{"a": [1, 2]}`))
	assert.False(t, ok(spaced, `{"a":[1,2]}`))
	assert.True(t, ok(bounded, "{ \"a\" :\n[ 1 ,2 ]}"))
	assert.False(t, ok(bounded, "{    \"a\":[1]}"), "whitespace run longer than the bound")
}

func TestJSONSchemaErrors(t *testing.T) {
	cases := []struct {
		schema   string
		sentinel error
		pointer  string
	}{
		{`{"type":`, ErrSyntax, ""},
		{`{"properties":{"a":{"type":"strin"}}}`, ErrSyntax, "/properties/a/type"},
		{`{"properties":{"a/b":{"type":"array","uniqueItems":true}}}`, ErrUnsupported, "/properties/a~1b/uniqueItems"},
		{`{"$ref":"#/$defs/missing"}`, ErrInvalid, "/$ref"},
		{`{"$ref":"http://example.com/s.json"}`, ErrUnsupported, "/$ref"},
		{`{"type":"string","minLength":5,"maxLength":2}`, ErrInvalid, "/maxLength"},
		{`{"type":"string","pattern":"a(b"}`, ErrSyntax, "/pattern"},
		{`{"type":"integer","minimum":"x"}`, ErrSyntax, "/minimum"},
		{`false`, ErrInvalid, ""},
		{`1`, ErrSyntax, ""}, // a root that is neither an object nor a boolean (found by FuzzJSONSchemaSound)
		{`null`, ErrSyntax, ""},
		{`[]`, ErrSyntax, ""},
		{`"a"`, ErrSyntax, ""},
	}
	for _, c := range cases {
		_, err := JSONSchema([]byte(c.schema))
		require.Error(t, err, c.schema)
		assert.True(t, errors.Is(err, c.sentinel), "%s: %v", c.schema, err)
		var ce *CompileError
		require.True(t, errors.As(err, &ce))
		if c.pointer != "" {
			assert.Equal(t, c.pointer, ce.Pointer, c.schema)
		}
	}
	// Lenient mode ignores unsupported keywords.
	_, err := JSONSchemaWith([]byte(`{"type":"array","uniqueItems":true}`), JSONOptions{Lenient: true})
	require.NoError(t, err)
}
