package constrain

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONSchemaSoundness covers the causes of invalid instances accepted
// listed in issue 13, and the valid instances the old compiler rejected.
func TestJSONSchemaSoundness(t *testing.T) {
	v := testVocab(t)
	cases := []struct {
		name, schema string
		opts         JSONOptions
		good, bad    []string
	}{
		{"declared property is not an extra key", `{"properties":{"a":{"type":"integer"}},"additionalProperties":true}`, JSONOptions{},
			[]string{`{"a":1}`, `{"b":"x"}`, `{"b":"x","a":2}`}, []string{`{"a":"x"}`, `{"\u0061":"x"}`, `{"a":1,"a":2}`, `{"b":1,"a":"x"}`}},
		{"declared property next to an additionalProperties schema", `{"properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, JSONOptions{},
			[]string{`{"a":1,"b":"x"}`}, []string{`{"a":"x"}`, `{"b":1}`}},
		{"oneOf is exclusive", `{"type":"string","oneOf":[{"maxLength":3},{"minLength":2}]}`, JSONOptions{},
			[]string{`"a"`, `"abcd"`, `""`}, []string{`"ab"`, `"abc"`}},
		{"oneOf with a discriminator", `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"},"x":{"type":"integer"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"},"x":{"type":"string"}},"required":["k"]}]}`, JSONOptions{},
			[]string{`{"k":"a","x":1}`, `{"x":"s","k":"b"}`}, []string{`{"k":"a","x":"s"}`, `{"k":"c"}`}},
		{"oneOf of closed objects", `{"oneOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]}`, JSONOptions{Spec: true},
			[]string{`{"a":1}`, `{"b":"x"}`}, []string{`{"a":1,"b":"x"}`, `{}`, `{"a":"x"}`}},
		{"not over an object schema", `{"type":"object","not":{"required":["a"],"properties":{"b":{"type":"integer"}}}}`, JSONOptions{Spec: true},
			[]string{`{}`, `{"a":1,"b":"x"}`}, []string{`{"a":1}`, `{"a":1,"b":2}`}},
		{"allOf keeps each additionalProperties with its properties", `{"allOf":[{"properties":{"a":{"type":"integer"}},"additionalProperties":false},{"properties":{"b":{"type":"integer"}}}]}`, JSONOptions{Spec: true},
			[]string{`{"a":1}`, `{}`}, []string{`{"b":1}`, `{"a":1,"b":2}`}},
		{"allOf keeps each items with its prefixItems", `{"allOf":[{"prefixItems":[{"type":"integer"}],"items":false},{"prefixItems":[true,{"type":"string"}]}]}`, JSONOptions{Spec: true},
			[]string{`[1]`, `[]`}, []string{`[1,"x"]`, `["x"]`}},
		{"an escaped surrogate pair is one code point", `{"type":"string","minLength":2,"maxLength":2}`, JSONOptions{},
			[]string{`"a💩"`, `"a\ud83d\udca9"`, `"\uD83D\uDCA9b"`}, []string{`"\ud83d\udca9"`, `"💩"`, `"a\ud83d"`, `"\ud83d\udca9\ud83d\udca9b"`}},
		{"fractional minimum", `{"type":"number","minimum":1.1}`, JSONOptions{},
			[]string{`1.1`, `1.10`, `1.2`, `2`, `100.5`}, []string{`1.09`, `1`, `-1.1`, `0.5`}},
		{"fractional exclusive maximum", `{"type":"number","exclusiveMaximum":3.0,"exclusiveMinimum":-0.25}`, JSONOptions{},
			[]string{`2.2`, `2.999`, `0`, `-0.2`, `-0.24999`}, []string{`3`, `3.0`, `3.5`, `-0.25`, `-1`}},
		{"both bounds inside one integer", `{"type":"number","minimum":0.2,"maximum":0.8}`, JSONOptions{},
			[]string{`0.2`, `0.5`, `0.8`, `0.80`, `0.79999`}, []string{`0.1`, `0.81`, `0`, `1`}},
		{"const compares numbers by value", `{"const":-2.0}`, JSONOptions{Spec: true}, []string{`-2`, `-2.0`, `-2.00`}, []string{`2`, `-2.1`, `"-2"`}},
		{"enum compares numbers by value", `{"enum":[0.0,1.5]}`, JSONOptions{Spec: true}, []string{`0`, `0.0`, `1.5`, `1.50`}, []string{`1`, `-1.5`}},
		{"literals spelled canonically outside Spec", `{"enum":["é/"]}`, JSONOptions{}, []string{`"é/"`}, []string{`"\u00e9/"`, `"é\/"`}},
		{"integral literals without fraction outside Spec", `{"enum":[-2.0,1.5]}`, JSONOptions{}, []string{`-2`, `1.5`, `1.50`}, []string{`-2.0`, `2`}},
		{"const compares strings by code point", `{"const":"\u00e9/\n"}`, JSONOptions{Spec: true}, []string{`"é/\n"`, `"\u00e9\/\u000a"`, `"\u00E9/\n"`}, []string{`"e/\n"`, `"é/"`}},
		{"const objects in any key order", `{"const":{"a":1,"b":[true]}}`, JSONOptions{}, []string{`{"a":1,"b":[true]}`, `{"b":[true],"a":1}`}, []string{`{"a":1}`, `{"a":1,"b":[true],"c":0}`}},
		{"integers by value in Spec mode", `{"type":"integer"}`, JSONOptions{Spec: true}, []string{`1`, `1.0`, `-0`}, []string{`1.5`, `"1"`}},
		{"multipleOf in a range", `{"type":"integer","multipleOf":5,"minimum":-12,"maximum":20}`, JSONOptions{}, []string{`-10`, `0`, `15`, `20`}, []string{`-12`, `3`, `25`}},
		{"not an integer", `{"type":"number","not":{"type":"integer","minimum":0}}`, JSONOptions{}, []string{`0.5`, `-3`, `12.25`}, []string{`0`, `3`, `4.0`}},
		{"fractional multipleOf without bounds", `{"type":"number","multipleOf":0.25}`, JSONOptions{}, []string{`0.5`, `-1.75`, `3`, `2.250`}, []string{`0.3`, `1.1`}},
		{"not a string literal", `{"type":"string","not":{"enum":["a","b"]}}`, JSONOptions{}, []string{`"c"`, `"ab"`, `""`}, []string{`"a"`, `"b"`}},
		{"ECMA dot excludes line terminators", `{"type":"string","pattern":"^a.b$"}`, JSONOptions{}, []string{`"axb"`, `"a\tb"`}, []string{`"a\nb"`, `"a\rb"`, `"a\u2028b"`}},
		{"format with a length", `{"type":"string","format":"email","minLength":6,"maxLength":12}`, JSONOptions{},
			[]string{`"a@b.co"`, `"abcdef@b.co"`}, []string{`"a@b.c"`, `"abcdefgh@b.co"`, `"not-email!"`}},
		{"pattern with a length", `{"type":"string","pattern":"^[a-z]+$","maxLength":3}`, JSONOptions{}, []string{`"abc"`, `"a"`}, []string{`"abcd"`, `""`, `"aB"`}},
		{"patternProperties next to additionalProperties", `{"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, JSONOptions{},
			[]string{`{"x1":1,"y":"s"}`}, []string{`{"x1":"s"}`, `{"y":1}`}},
		{"propertyNames", `{"type":"object","propertyNames":{"maxLength":2},"additionalProperties":true}`, JSONOptions{}, []string{`{"ab":1}`, `{}`}, []string{`{"abc":1}`}},
		{"dependentRequired", `{"properties":{"a":true,"b":true},"dependentRequired":{"a":["b"]}}`, JSONOptions{}, []string{`{"b":1}`, `{"a":1,"b":2}`, `{"b":2,"a":1}`}, []string{`{"a":1}`}},
		{"if then else", `{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, JSONOptions{}, []string{`3`, `"s"`}, []string{`-3`, `true`}},
		{"contains with maxContains", `{"type":"array","contains":{"type":"integer"},"minContains":1,"maxContains":2}`, JSONOptions{}, []string{`[1]`, `["a",2,3]`}, []string{`[]`, `["a"]`, `[1,2,3]`}},
		{"unevaluatedProperties sees allOf", `{"allOf":[{"properties":{"a":true}}],"properties":{"b":true},"unevaluatedProperties":false}`, JSONOptions{Spec: true},
			[]string{`{"a":1,"b":2}`}, []string{`{"c":1}`}},
		{"nested unevaluatedProperties sees only its own subtree", `{"allOf":[{"properties":{"foo":true}},{"properties":{"bar":true},"unevaluatedProperties":false}]}`, JSONOptions{Spec: true},
			[]string{`{"bar":1}`}, []string{`{"foo":1,"bar":1}`}},
		{"draft-07 $ref overrides its siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":1}`, JSONOptions{},
			[]string{`"abc"`}, []string{`1`}},
		{"percent-encoded $ref pointer", `{"$defs":{"a b%":{"type":"boolean"}},"$ref":"#/$defs/a%20b%25"}`, JSONOptions{}, []string{`true`}, []string{`1`}},
		{"$anchor", `{"$defs":{"x":{"$anchor":"flag","type":"boolean"}},"$ref":"#flag"}`, JSONOptions{}, []string{`false`}, []string{`"x"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := JSONSchemaWith([]byte(tc.schema), tc.opts)
			require.NoError(t, err)
			for _, s := range tc.good {
				assert.True(t, accepts(g, v, s), "should accept %s", s)
			}
			for _, s := range tc.bad {
				assert.False(t, accepts(g, v, s), "should reject %s", s)
			}
		})
	}
}

// TestJSONSchemaUnsupportedNamesKeyword checks that what cannot be compiled
// exactly fails naming the keyword, unless Lenient.
func TestJSONSchemaUnsupportedNamesKeyword(t *testing.T) {
	for schema, ptr := range map[string]string{
		`{"type":"array","uniqueItems":true}`:                                         "/uniqueItems",
		`{"properties":{"a":{"not":{"type":"object","additionalProperties":false}}}}`: "/properties/a/not/additionalProperties",
		`{"$schema":"http://example.com/custom","type":"string"}`:                     "",
		`{"$ref":"http://example.com/s.json"}`:                                        "/$ref",
	} {
		_, err := JSONSchemaWith([]byte(schema), JSONOptions{Spec: ptr == ""})
		require.Error(t, err, schema)
		assert.ErrorIs(t, err, ErrUnsupported, schema)
		var ce *CompileError
		require.True(t, errors.As(err, &ce))
		if ptr != "" {
			assert.Equal(t, ptr, ce.Pointer, schema)
		}
	}
	_, err := JSONSchemaWith([]byte(`{"type":"array","uniqueItems":true}`), JSONOptions{Lenient: true})
	assert.NoError(t, err)
	// A negation that cannot be compiled is an error, or dropped when Lenient.
	lookahead := []byte(`{"type":"string","not":{"pattern":"^(?=a)"}}`)
	_, err = JSONSchema(lookahead)
	assert.ErrorIs(t, err, ErrUnsupported)
	g, err := JSONSchemaWith(lookahead, JSONOptions{Lenient: true})
	require.NoError(t, err)
	assert.True(t, accepts(g, testVocab(t), `"ab"`))
}

// TestJSONSchemaPropertyOrder: declared order is an option; large objects
// fall back to it.
func TestJSONSchemaPropertyOrder(t *testing.T) {
	v := testVocab(t)
	s := `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`
	anyOrder, err := JSONSchema([]byte(s))
	require.NoError(t, err)
	ordered, err := JSONSchemaWith([]byte(s), JSONOptions{PropertyOrder: true})
	require.NoError(t, err)
	assert.True(t, accepts(anyOrder, v, `{"b":1,"a":2}`))
	assert.True(t, accepts(ordered, v, `{"a":2,"b":1}`))
	assert.False(t, accepts(ordered, v, `{"b":1,"a":2}`))

	var props []string
	for i := 0; i < 40; i++ {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, i))
	}
	big, err := JSONSchema([]byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	require.NoError(t, err)
	assert.True(t, accepts(big, v, `{"p0":1,"p39":2}`))
	assert.False(t, accepts(big, v, `{"p39":2,"p0":1}`), "above MaxAnyOrder properties keep declaration order")
}

// TestJSONSchemaBoundedCompile: the crashers of issue 13 compile within the
// budget or fail with ErrTooLarge, never growing without bound.
func TestJSONSchemaBoundedCompile(t *testing.T) {
	v := testVocab(t)
	recursive := `{"definitions":{"Foo":{"type":"object","properties":{"c":{"allOf":[{"$ref":"#/definitions/Foo"}]}}}},"$ref":"#/definitions/Foo"}`
	g, err := JSONSchema([]byte(recursive))
	require.NoError(t, err)
	assert.True(t, accepts(g, v, `{"c":{"c":{}}}`))
	assert.False(t, accepts(g, v, `{"c":{"c":1}}`))

	// A reference cycle that never descends into the value is refused: its
	// meaning (anyOf string or itself) is no finite constraint.
	_, err = JSONSchema([]byte(`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "$ref cycle")

	// A large configuration schema in the style of JSON Schema Store's
	// renovate.json: many definitions, each merging others through allOf
	// and anyOf, with recursion.
	var defs []string
	const n = 300
	for i := 0; i < n; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"name%d":{"type":"string"},"opt%d":{"anyOf":[{"$ref":"#/definitions/d%d"},{"type":"boolean"}]},"list%d":{"type":"array","items":{"allOf":[{"$ref":"#/definitions/d%d"},{"$ref":"#/definitions/d%d"}]}}}}`,
			i, i, i, (i+1)%n, i, (i*7+3)%n, (i*13+5)%n))
	}
	big := `{"definitions":{` + strings.Join(defs, ",") + `},"allOf":[{"$ref":"#/definitions/d0"},{"$ref":"#/definitions/d1"}]}`
	start := time.Now()
	_, err = JSONSchemaWith([]byte(big), JSONOptions{MaxCompileTime: 300 * time.Millisecond, MaxRules: 2000})
	if err != nil {
		assert.ErrorIs(t, err, ErrTooLarge)
		assert.Contains(t, err.Error(), "schema too large")
	}
	t.Logf("large schema: %v in %v", err, time.Since(start))
}

// TestJSONSchemaLongBounds: long maxLength and maxItems bounds (issue 13's
// slow cases: maxLength 100000 took 1.6 s to fail as too large) compile to
// automata linear in the bound, and the bound is exact in code points.
func TestJSONSchemaLongBounds(t *testing.T) {
	v := testVocab(t)
	start := time.Now()
	g, err := JSONSchema([]byte(`{"type":"string","maxLength":100000}`))
	require.NoError(t, err)
	// One shared copy of the character, called from each position: a few
	// nodes per position, not the ~40 of an unrolled UTF-8 and escape class.
	assert.Less(t, len(g.nfa.nodes), 4*100000)
	t.Logf("maxLength 100000: %d nodes in %v", len(g.nfa.nodes), time.Since(start))

	g, err = JSONSchema([]byte(`{"type":"string","minLength":2,"maxLength":1000}`))
	require.NoError(t, err)
	full := strings.Repeat("é", 999) + `\ud83d\udca9` // an escaped pair is one code point
	assert.True(t, accepts(g, v, `"`+full+`"`))
	assert.True(t, accepts(g, v, `"ab"`))
	assert.False(t, accepts(g, v, `"`+full+`x"`), "1001 code points")
	assert.False(t, accepts(g, v, `"a"`), "below minLength")

	_, err = JSONSchema([]byte(`{"type":"array","items":{"type":"integer"},"maxItems":5000}`))
	require.NoError(t, err)
	g, err = JSONSchema([]byte(`{"type":"array","items":{"type":"integer"},"maxItems":1000}`))
	require.NoError(t, err)
	items := strings.TrimSuffix(strings.Repeat("1, ", 1000), ", ")
	assert.True(t, accepts(g, v, "["+items+"]"))
	assert.False(t, accepts(g, v, "["+items+", 1]"), "1001 items")
}
