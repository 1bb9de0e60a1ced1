package template

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ardanlabs/jinja"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlain8 checks the 8-byte test of the JSON string encoder against the
// byte table: exact for one special byte among plain ones, and never true
// for a block that holds a byte needing escapes.
func TestPlain8(t *testing.T) {
	pack := func(s string) uint64 {
		var x uint64
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(s[i])
		}
		return x
	}
	for b := 0; b < 256; b++ {
		for p := 0; p < 8; p++ {
			s := []byte("abcdefgh")
			s[p] = byte(b)
			assert.Equal(t, jsonPlain[b], plain8(pack(string(s))), "byte %#x at %d", b, p)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var s [8]byte
		all := true
		for i := range s {
			// Mostly plain bytes, sometimes special ones.
			s[i] = byte(0x20 + rng.IntN(0x5f))
			if rng.IntN(8) == 0 {
				s[i] = byte(rng.IntN(256))
			}
			all = all && jsonPlain[s[i]]
		}
		if plain8(pack(string(s[:]))) {
			require.True(t, all, "%q", s[:])
		}
	}
}

// engineJSON renders v with the engine's own tojson filter.
func engineJSON(t testing.TB, v Value, args string) string {
	t.Helper()
	tm, err := jinja.Compile("{{ v|tojson" + args + " }}")
	require.NoError(t, err)
	out, err := tm.RenderValues(map[string]Value{"v": v})
	require.NoError(t, err)
	return out
}

// ourJSON renders v with __lrt_json through a parsed template.
func ourJSON(t testing.TB, v Value, args string) (string, error) {
	t.Helper()
	tm, err := Parse("{{ v|tojson" + args + " }}")
	require.NoError(t, err)
	return tm.Render(t.Context(), Request{Kwargs: map[string]Value{"v": v}})
}

// TestToJSONMatchesEngine compares __lrt_json with the engine's tojson,
// which also implements json.dumps, on JSON documents.
func TestToJSONMatchesEngine(t *testing.T) {
	docs := []string{
		`{"a": [1, -2, 3.5, 1e-7, 2e21, true, false, null, "x\"y\\z\n\t\u0001é😀"], "b": {}, "c": [], "": {"d": [[]]}}`,
		`"plain ascii string that is long enough for the 8-byte path"`,
		`["\u007f\u0080\u2028", 0.1, 100, -0.0]`,
	}
	for _, doc := range docs {
		v, err := DecodeOrdered([]byte(doc))
		require.NoError(t, err)
		for _, args := range []string{"", "(indent=2)", "(indent=0)", "(indent='\\t')", "(sort_keys=true)",
			"(separators=(',', ':'))", "(ensure_ascii=true)", "(indent=3, ensure_ascii=true, sort_keys=true)"} {
			got, err := ourJSON(t, v, args)
			require.NoError(t, err)
			assert.Equal(t, engineJSON(t, v, args), got, "%s %s", doc, args)
		}
	}
}

// TestToJSONErrors checks the failures json.dumps reports.
func TestToJSONErrors(t *testing.T) {
	for src, want := range map[string]string{
		"{% set ns = namespace(a=1) %}{% set ns.a = [ns] %}{{ ns|tojson }}": "ValueError: Circular reference detected",
		"{% macro m() %}{% endmacro %}{{ m|tojson }}":                       "TypeError: Object of type Macro is not JSON serializable",
		"{{ {'a': x}|tojson }}":                                             "TypeError: Object of type Undefined is not JSON serializable",
		"{{ 1|tojson(bogus=1) }}":                                           "TypeError: tojson() got an unexpected keyword argument 'bogus'",
		"{{ 1|tojson(indent=[1]) }}":                                        "TypeError: can't multiply sequence by non-int of type 'list'",
	} {
		_, err := render(t, src, `{"messages":[]}`)
		require.Error(t, err, src)
		assert.Equal(t, want, strings.TrimPrefix(err.Error(), "render chat template: "), src)
	}
}

// FuzzToJSON compares __lrt_json with the engine's tojson on arbitrary
// JSON documents.
func FuzzToJSON(f *testing.F) {
	f.Add(`{"a": [1, 2.5, "x\ny"], "b": {"c": null}}`, 2)
	f.Add(`"é\u0001\"\\"`, -1)
	f.Add(`[1e300, -1e-300, 123456789012]`, 0)
	f.Fuzz(func(t *testing.T, doc string, indent int) {
		v, err := DecodeOrdered([]byte(doc))
		if err != nil {
			return
		}
		args := ""
		if indent >= 0 {
			args = "(indent=" + strconv.Itoa(indent%9) + ")"
		}
		got, err := ourJSON(t, v, args)
		require.NoError(t, err)
		assert.Equal(t, engineJSON(t, v, args), got)
	})
}
