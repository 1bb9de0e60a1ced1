package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkCLI runs "constrain check" with args on the lines and returns the
// answers, stderr and the exit status.
func checkCLI(t *testing.T, lines []string, args ...string) ([]string, string, int) {
	t.Helper()
	out, errOut, code := runCLI(t, strings.Join(lines, "\n"), append([]string{"constrain", "check"}, args...)...)
	return strings.Fields(out), errOut, code
}

func TestConstrainCheckRegex(t *testing.T) {
	const re = `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
	lines := []string{"0", "-12.5e+3", "012", "1.", "", "3.14", "1e5", "--1", "٣", " 1"}
	got, errOut, code := checkCLI(t, lines, "--regex", re)
	require.Equal(t, 0, code, errOut)
	std := regexp.MustCompile(`^(?:` + re + `)$`)
	var want []string
	for _, l := range lines {
		want = append(want, strconv.FormatBool(std.MatchString(l)))
	}
	assert.Equal(t, want, got)

	_, errOut, code = checkCLI(t, lines, "--regex", `a(b`)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "missing closing )")
}

// suiteGroups are groups of the official JSON-Schema-Test-Suite (draft
// 2020-12) whose keywords the compiler supports today; the constrain
// package runs the whole suite.
var suiteGroups = map[string][]string{
	"const.json":      {"const validation", "const with array", "const with {\"a\": false} does not match {\"a\": 0}", "characters with the same visual representation but different codepoint"},
	"enum.json":       {"heterogeneous enum validation", "enums in properties", "enum with escaped characters"},
	"items.json":      {"items and subitems", "nested items", "prefixItems with no additional items allowed"},
	"maxLength.json":  {"maxLength validation with a decimal"},
	"properties.json": {"properties with escaped characters"},
	"ref.json":        {"nested refs", "ref applies alongside sibling keywords"},
}

// suiteGroup is a group of the JSON-Schema-Test-Suite: a schema and
// instances with their verdicts.
type suiteGroup struct {
	Description string
	Schema      json.RawMessage
	Tests       []struct {
		Data  json.RawMessage
		Valid bool
	}
}

// TestConstrainCheckJSONSchemaSuite checks the instances of suiteGroups,
// each written as the suite writes it (compact, in its key order), against
// the suite's verdict.
func TestConstrainCheckJSONSchemaSuite(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "testdata", "jsonschema-test-suite", "tests", "draft2020-12")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("JSON-Schema-Test-Suite absent: %v", err)
	}
	for file, names := range suiteGroups {
		data, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		var groups []suiteGroup
		require.NoError(t, json.Unmarshal(data, &groups), file)
		for _, name := range names {
			i := slices.IndexFunc(groups, func(g suiteGroup) bool { return g.Description == name })
			require.GreaterOrEqual(t, i, 0, "%s: no group %q", file, name)
			g := groups[i]
			schema := filepath.Join(t.TempDir(), "schema.json")
			require.NoError(t, os.WriteFile(schema, g.Schema, 0o644))
			var lines, want []string
			for _, tc := range g.Tests {
				var b bytes.Buffer
				require.NoError(t, json.Compact(&b, tc.Data))
				lines = append(lines, b.String())
				want = append(want, strconv.FormatBool(tc.Valid))
			}
			got, errOut, code := checkCLI(t, lines, "--json-schema", schema)
			require.Equal(t, 0, code, "%s: %s: %s", file, name, errOut)
			assert.Equal(t, want, got, "%s: %s: %q", file, name, lines)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"type":"string","minLength":3,"maxLength":2}`), 0o644))
	_, errOut, code := checkCLI(t, []string{`"abc"`}, "--json-schema", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "bad.json")
	assert.Contains(t, errOut, "/maxLength")
}

func TestConstrainCheckGrammar(t *testing.T) {
	dir := t.TempDir()
	gbnf := filepath.Join("..", "..", "constrain", "testdata", "json.gbnf") // llama.cpp's grammars/json.gbnf
	lines := []string{`{"a": [1, 2.5, "x", {"b": null}]}`, `{}`, `{"k": "\u00e9\n"}`, `{"a": tru}`, `[1]`, `{"a":1,}`, `{"a": 01}`, `{"a": "x"} `}
	got, errOut, code := checkCLI(t, lines, "--grammar", gbnf)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{"true", "true", "true", "false", "false", "false", "false", "true"}, got, "%q", lines)

	lark := filepath.Join(dir, "calc.lark")
	require.NoError(t, os.WriteFile(lark, []byte("start: expr\nexpr: NUMBER ((\"+\"|\"-\") NUMBER)*\nNUMBER: /[0-9]+/\n%ignore \" \"\n"), 0o644))
	got, errOut, code = checkCLI(t, []string{"1 + 2", "12-3+4", "1 +", "a", "+1"}, "--grammar", lark)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{"true", "true", "false", "false", "false"}, got)

	// The same text read as GBNF does not compile.
	_, errOut, code = checkCLI(t, nil, "--grammar", strings.TrimSuffix(lark, ".lark")+".gbnf")
	assert.Equal(t, 1, code, "an unreadable file is an I/O error")
	assert.Contains(t, errOut, "no such file")
	bad := filepath.Join(dir, "bad.gbnf")
	require.NoError(t, os.WriteFile(bad, []byte("root ::= missing\n"), 0o644))
	_, errOut, code = checkCLI(t, nil, "--grammar", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "bad.gbnf")
	assert.Contains(t, errOut, `"missing"`)
}

func TestConstrainCheckUsage(t *testing.T) {
	_, errOut, code := checkCLI(t, nil)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "exactly one of --json-schema, --regex and --grammar")
	_, errOut, code = checkCLI(t, nil, "--regex", "a", "--grammar", "x.gbnf")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "exactly one")
	_, _, code = runCLI(t, "", "constrain", "verify")
	assert.Equal(t, 1, code)

	// A last line without a newline is checked; a trailing newline adds no line.
	out, errOut, code := runCLI(t, "ab\nabab\n", "constrain", "check", "--regex", "(ab)+")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "true\ntrue\n", out)
	out, _, _ = runCLI(t, "ab\nx", "constrain", "check", "--regex", "(ab)+")
	assert.Equal(t, "true\nfalse\n", out)
}

// TestConstrainCheckSpecAndGeneration: by default a schema is checked as
// the specification validates (2.0 is an integer, -2.0 equals the const
// -2, any property order, undeclared properties allowed); --generation
// checks the subset generation emits.
func TestConstrainCheckSpecAndGeneration(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schema, []byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1.5},"b":{"const":-2}},"required":["a"]}`), 0o644))
	lines := []string{`{"a":2}`, `{"a":2.0}`, `{ "b" : -2.0 , "a": 3 }`, `{"a":1}`, `{"b":-2}`, `{"a":2,"c":[1,{}]}`}
	got, errOut, code := checkCLI(t, lines, "--json-schema", schema)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{"true", "true", "true", "false", "false", "true"}, got)
	got, errOut, code = checkCLI(t, lines, "--generation", "--json-schema", schema)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{"true", "false", "false", "false", "false", "false"}, got)
}
