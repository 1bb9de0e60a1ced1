package template

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// semanticsCase is one Python jinja2 reference result of
// testdata/jinja2_semantics.json (see gen_jinja2_semantics.py there).
type semanticsCase struct {
	Src  string          `json:"src"`
	Vars json.RawMessage `json:"vars"`
	Out  *string         `json:"out"`
	Err  string          `json:"err"`
}

// TestJinja2Semantics renders small templates that exercise the rewrites
// (binary "+" and "-" with Python semantics and their precedence among the
// other operators, Markup strings from |safe and |escape, macro argument
// checks, transformers' tojson), written by hand (jinja2_semantics.json)
// and generated at random (jinja2_random.json), and requires Python
// jinja2's output, or its error message.
func TestJinja2Semantics(t *testing.T) {
	var cases []semanticsCase
	for _, file := range []string{"testdata/jinja2_semantics.json", "testdata/jinja2_random.json"} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var some []semanticsCase
		require.NoError(t, json.Unmarshal(raw, &some), file)
		require.NotEmpty(t, some, file)
		cases = append(cases, some...)
	}
	for _, c := range cases {
		t.Run(c.Src, func(t *testing.T) {
			tm, err := Parse(c.Src)
			require.NoError(t, err)
			vars, err := DecodeOrdered(c.Vars)
			require.NoError(t, err)
			req := Request{Kwargs: map[string]Value{}}
			for _, k := range vars.AsDict().Keys {
				req.Kwargs[k] = vars.AsDict().Data[k]
			}
			got, err := tm.Render(context.Background(), req)
			if c.Out != nil {
				require.NoError(t, err)
				assert.Equal(t, *c.Out, got)
				return
			}
			require.Error(t, err, "Python failed with %s", c.Err)
			var re *RaiseError
			if errors.As(err, &re) {
				assert.Equal(t, c.Err, "TemplateError: "+re.Message)
				return
			}
			assert.Equal(t, c.Err, strings.TrimPrefix(err.Error(), "render chat template: "))
		})
	}
}
