package template

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseRender parses and renders arbitrary template text: it must
// return an error or a result, never panic.
func FuzzParseRender(f *testing.F) {
	for _, s := range []string{
		DefaultChatML,
		"{% for m in messages %}{{ m.role | upper }}{% endfor %}",
		"{{ messages | map(attribute='role') | list | tojson }}",
		"{% set ns = namespace(a=1) %}{% set ns.a = ns.a + 1 %}{{ ns.a }}",
		"{{ raise_exception('x') }}",
		"{% if %}",
		"{{ 'a' * 3 }}{{ [1,2][::-1] }}{{ {'a': 1}.items() | list }}",
		"{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1) }}",
		"{% for x in tools %}{% endfor %}",
		"{{ messages[0].append(1) }}",
		"{{ 'a' + messages[0].role + ('<b>'|safe + '<' ~ 1) if x else -1 + 2 * 3 }}",
		"{% for m in messages + [] if m.role + '' %}{{ loop.index0 + 1 }}{% endfor %}",
		"{% macro m(a, b='x' + 'y') %}{{ a + b + kwargs|length }}{% endmacro %}{{ m('1', c=2) }}",
		"{{ (tools | map(attribute='type') | list + ['x'])|tojson(indent=2) }}",
	} {
		f.Add(s)
	}
	if src, err := os.ReadFile(filepath.Join(refDir, "Qwen-Qwen3-0.6B.jinja")); err == nil {
		f.Add(string(src))
	}
	req, err := DecodeRequest([]byte(`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"f","arguments":{"a":1}}}]}],` +
		`"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"add_generation_prompt":true,"bos_token":"<s>"}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		MentionsTools(src)
		tm, err := Parse(src)
		if err != nil {
			return
		}
		_, _ = tm.Render(context.Background(), req)
	})
}
