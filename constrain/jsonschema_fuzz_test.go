package constrain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzJSONSchemaSound checks soundness on random schemas and instances:
// compiling fails with a *CompileError or succeeds, and an instance the
// compiled constraint accepts is valid by the package's own validator of
// const/enum literals (a separate walk over the schema, in Spec mode).
func FuzzJSONSchemaSound(f *testing.F) {
	seeds := [][2]string{
		{`{"properties":{"a":{"type":"integer","minimum":1.5}},"additionalProperties":{"type":"string"}}`, `{"a":2,"b":"x"}`},
		{`{"oneOf":[{"type":"string","maxLength":3},{"type":"string","minLength":2}]}`, `"ab"`},
		{`{"allOf":[{"prefixItems":[{"type":"integer"}],"items":false},{"prefixItems":[true,{"type":"string"}]}]}`, `[1]`},
		{`{"patternProperties":{"^x":{"enum":[1,2.0]}},"propertyNames":{"maxLength":3},"minProperties":1}`, `{"x1":2}`},
		{`{"if":{"type":"integer"},"then":{"multipleOf":3},"else":{"not":{"type":"boolean"}}}`, `9`},
		{`{"type":"array","contains":{"const":"a"},"maxContains":1,"items":{"type":"string"}}`, `["a","b"]`},
		{`{"$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}},"dependentRequired":{"c":["d"]}}},"$ref":"#/$defs/n"}`, `{"c":{},"d":1}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	v := testVocab(f)
	f.Fuzz(func(t *testing.T, schema, instance []byte) {
		if len(schema) > 1000 || len(instance) > 300 {
			return
		}
		opts := JSONOptions{Spec: true, MaxCompileTime: 50 * time.Millisecond, MaxRules: 300}
		g, err := JSONSchemaWith(schema, opts)
		if err != nil {
			var ce *CompileError
			require.True(t, errors.As(err, &ce), "error %v is not a *CompileError", err)
			return
		}
		inst, err := parseJSON(instance)
		if err != nil {
			return
		}
		var sb strings.Builder
		encodeInstance(&sb, inst, false)
		m := g.NewMatcher(v)
		if m.AcceptBytes([]byte(sb.String())) != nil || !m.Accepting() {
			return
		}
		c, err := newSchemaCompiler(newBuilder("json-schema"), schema, opts, "")
		require.NoError(t, err)
		ok, err := c.valid(inst, c.idx.bases[c.root], 0)
		if err != nil {
			return // the validator cannot decide (unevaluated*, depth)
		}
		require.True(t, ok, "accepted %s, which does not validate against %s", sb.String(), schema)
	})
}
