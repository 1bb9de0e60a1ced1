package template

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fuzzLimits are small limits, so that each fuzz input runs quickly.
var fuzzLimits = Limits{MaxOutput: 64 << 10, MaxMemory: 1 << 20, MaxSteps: 20_000, MaxDepth: 50, MaxTime: 2 * time.Second}

// FuzzParseRender parses and renders arbitrary template text and checks:
// a parse failure is a *ParseError or a nesting *LimitError; a render
// failure is a *RaiseError, a *LimitError or a wrapped "render chat
// template" error; a render that succeeds is deterministic (a second
// render gives the same prompt) and within the output limit; and text
// without tags renders as itself.
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
		"{% set s = namespace(v='xxxxxxxxxx') %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v|length }}",
		"{{ 'a\nb'|indent(1000000000) }}{{ x|join(', ') }}{{ 'ab'|replace('a', 'c') }}",
		"{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}",
		"plain text\r\nwith lines\n",
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
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, src string) {
		MentionsTools(src)
		tm, err := Parse(src, WithLimits(fuzzLimits), WithClock(referenceClock))
		if err != nil {
			var pe *ParseError
			var le *LimitError
			if !errors.As(err, &pe) && !(errors.As(err, &le) && le.Limit == LimitDepth) {
				t.Fatalf("parse error is neither a ParseError nor a nesting LimitError: %T %v", err, err)
			}
			return
		}
		out, err := tm.Render(ctx, req)
		if err != nil {
			var re *RaiseError
			if !errors.As(err, &re) && !strings.HasPrefix(err.Error(), "render chat template: ") {
				t.Fatalf("render error is not a RaiseError or a render error: %T %v", err, err)
			}
			var le *LimitError
			if errors.As(err, &le) && le.Limit == LimitTime {
				return // the machine was slow: a second render may get further
			}
			if _, err2 := tm.Render(ctx, req); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("render is not deterministic: %v, then %v", err, err2)
			}
			return
		}
		if int64(len(out)) > fuzzLimits.MaxOutput {
			t.Fatalf("output of %d bytes passes the %d-byte limit", len(out), fuzzLimits.MaxOutput)
		}
		if out2, err := tm.Render(ctx, req); err != nil || out2 != out {
			t.Fatalf("render is not deterministic: %q, then %q (%v)", out, out2, err)
		}
		if !strings.ContainsAny(src, "{}") && out != prepareSource(src) {
			t.Fatalf("text without tags rendered as %q", out)
		}
	})
}
