package template

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxAllocated bounds the bytes a refused template may allocate before
// its LimitError (issue #14: under 100 MB).
const maxAllocated = 100 << 20

// allocated returns the bytes the Go heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// requireLimit requires err to be a *LimitError for limit at line.
func requireLimit(t *testing.T, err error, limit string, line int, msg string) *LimitError {
	t.Helper()
	var le *LimitError
	require.ErrorAs(t, err, &le, msg)
	assert.Equal(t, limit, le.Limit, "%s: %v", msg, err)
	assert.Equal(t, line, le.Line, "%s: %v", msg, err)
	return le
}

// TestRenderLimits renders the templates of issue #14 and others that
// build without bound: each ends in a LimitError naming the limit and the
// line, having allocated under 100 MB.
func TestRenderLimits(t *testing.T) {
	for _, c := range []struct {
		name, src string
		limit     string
		line      int
		maxAlloc  uint64 // 0: maxAllocated
	}{
		{"doubling ~", "{% set s = namespace(v='xxxxxxxxxx') %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v|length }}", LimitValue, 1, 0},
		{"doubling +", "{% set s = namespace(v='xxxxxxxxxx') %}\n{% for i in range(40) %}{% set s.v = s.v + s.v %}{% endfor %}", LimitValue, 2, 0},
		{"doubling *", "{% set s = namespace(v='xxxxxxxxxx') %}{% for i in range(40) %}\n{% set s.v = s.v * 2 %}{% endfor %}", LimitValue, 2, 0},
		{"list doubling +", "{% set s = namespace(v=[1]) %}{% for i in range(40) %}{% set s.v = s.v + s.v %}{% endfor %}", LimitValue, 1, 0},
		{"shared list printed", "{% set s = namespace(v=[1]) %}{% for i in range(60) %}{% set s.v = [s.v, s.v] %}{% endfor %}\n{{ s.v }}", LimitValue, 2, 0},
		{"shared list tojson", "{% set s = namespace(v=[1]) %}{% for i in range(60) %}{% set s.v = [s.v, s.v] %}{% endfor %}\n{{ s.v|tojson }}", LimitValue, 2, 0},
		{"shared list |upper", "{% set s = namespace(v=[1]) %}{% for i in range(60) %}{% set s.v = [s.v, s.v] %}{% endfor %}\n{{ s.v|upper }}", LimitValue, 2, 0},
		{"shared list |e", "{% set s = namespace(v=[1]) %}{% for i in range(60) %}{% set s.v = [s.v, s.v] %}{% endfor %}\n{{ s.v|e }}", LimitValue, 1, 0},
		{"shared list ~", "{% set s = namespace(v=[1]) %}{% for i in range(60) %}{% set s.v = [s.v, s.v] %}{% endfor %}\n{{ s.v ~ '' }}", LimitValue, 2, 0},
		{"indent", "{{ 'a\\nb'|indent(1000000000) }}", LimitValue, 1, 0},
		{"indent filter block", "{% filter indent(1000000000) %}a\nb{% endfilter %}", LimitValue, 1, 0},
		{"indent many lines", "{{ ('\\n' * 1000000)|indent(1000) }}", LimitValue, 1, 0},
		{"repeat", "{{ 'x' * 1000000000 }}", LimitValue, 1, 0},
		{"list repeat", "{% set l = [1, 2] * 1000000000 %}", LimitValue, 1, 0},
		{"replace", "{{ ('a' * 1000000)|replace('a', 'b' * 1000) }}", LimitValue, 1, 0},
		{"replace method", "{{ ('a' * 1000000).replace('a', 'b' * 1000) }}", LimitValue, 1, 0},
		{"split method", "{{ ('x,' * 10000000).split(',')|length }}", LimitValue, 1, 0},
		{"format method", "{{ ('{0}' * 100000).format('x' * 10000) }}", LimitValue, 1, 0},
		{"%-format width", "{{ '%1000000000s' % 'x' }}", LimitValue, 1, 0},
		{"%-format * width", "{{ '%*s' % (1000000000, 'x') }}", LimitValue, 1, 0},
		{"join", "{{ (['x' * 1000000] * 1000)|join(', ') }}", LimitValue, 1, 0},
		// Quadratic: the memory limit, counting every string built.
		{"string building", "{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ 'message ' ~ i ~ '\\n' %}{% endfor %}{{ ns.s }}", LimitMemory, 1, 2 * DefaultMaxMemory},
		{"macro output doubling", "{% macro d(x) %}{{ x }}{{ x }}{% endmacro %}{% set s = namespace(v='xxxxxxxxxx') %}{% for i in range(40) %}\n{% set s.v = d(s.v) %}{% endfor %}", LimitValue, 1, 0},
		{"output", "{% for i in range(100000) %}\n{{ 'x' * 100 }}{% endfor %}", LimitOutput, 2, 0},
		// 256 MiB of range lists, counted, and the engine's loop.
		{"range in a loop", "{% for i in range(100000) %}{% set x = range(100000) %}{% endfor %}", LimitMemory, 1, 2 * DefaultMaxMemory},
		{"string as list", "{% set s = 'x' * 10000000 %}{{ s|list|length }}", LimitValue, 1, 0},
		{"string loop", "{% set s = 'x' * 10000000 %}{% for c in s %}{% endfor %}", LimitSteps, 1, 0},
		{"text in loops", "{% for i in range(100000) %}" + strings.Repeat("x", 3000) + "{% endfor %}", LimitMemory, 1, 0},
		{"text in loops output", "{% for i in range(100000) %}\n" + strings.Repeat("x", 1000) + "{% endfor %}", LimitOutput, 1, 0},
		{"recursive macro", "{% macro m(n) %}\n{{ m(n + 1) }}{% endmacro %}{{ m(0) }}", LimitDepth, 1, 0},
		{"recursive loop", "{% set ns = namespace(c=[]) %}{% set ns.c = [ns] %}{% for x in [ns] recursive %}\n{{ loop(x.c) }}{% endfor %}", LimitDepth, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, err := Parse(c.src)
			require.NoError(t, err)
			var rerr error
			n := allocated(func() { _, rerr = tm.Render(context.Background(), Request{}) })
			requireLimit(t, rerr, c.limit, c.line, c.name)
			if c.maxAlloc == 0 {
				c.maxAlloc = maxAllocated
			}
			assert.Less(t, n, c.maxAlloc, "allocated %d bytes", n)
			t.Logf("%v after %d MB", rerr, n>>20)
		})
	}
}

// TestParseNestingLimit parses templates nested past MaxDepth: 200 KB of
// parentheses (15.8 s and 1 GB before the limit), deep blocks, unary
// operators and conditionals. Each is a LimitError naming the line,
// found in linear time.
func TestParseNestingLimit(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"parentheses", "{{ " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000) + " }}", 1},
		{"brackets", "\n{{ " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + " }}", 2},
		{"if blocks", strings.Repeat("{% if true %}\n", 1000) + "x" + strings.Repeat("{% endif %}", 1000), DefaultMaxDepth + 1},
		{"for blocks", strings.Repeat("{% for x in y %}\n", 200) + strings.Repeat("{% endfor %}", 200), DefaultMaxDepth + 1},
		{"not", "{{ " + strings.Repeat("not ", 100_000) + "x }}", 1},
		{"minus", "{{ " + strings.Repeat("- ", 100_000) + "1 }}", 1},
		{"conditionals", "{{ " + strings.Repeat("a if b else ", 100_000) + "c }}", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = Parse(c.src) })
			requireLimit(t, err, LimitDepth, c.line, c.name)
			assert.Less(t, n, uint64(maxAllocated), "allocated %d bytes", n)
		})
	}
	// Within the limit, nesting parses and renders.
	src := "{{ " + strings.Repeat("(", 50) + "1" + strings.Repeat(")", 50) + " }}"
	tm, err := Parse(src)
	require.NoError(t, err)
	out, err := tm.Render(context.Background(), Request{})
	require.NoError(t, err)
	assert.Equal(t, "1", out)
	_, err = Parse(src, WithLimits(Limits{MaxDepth: 10}))
	requireLimit(t, err, LimitDepth, 1, "MaxDepth 10")
}

// TestLimitOptions checks that WithLimits changes each limit, that the
// caller's context deadline ends a render, and that a render within the
// limits is unchanged by them.
func TestLimitOptions(t *testing.T) {
	ctx := context.Background()
	loop := "{% for i in range(100000) %}{% for j in range(100000) %}{% set x = i ~ j %}{% endfor %}{% endfor %}"

	tm, err := Parse("{{ 'x' * 100 }}", WithLimits(Limits{MaxOutput: 99}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	le := requireLimit(t, err, LimitOutput, 1, "MaxOutput")
	assert.Equal(t, int64(99), le.Max)
	assert.EqualError(t, err, "render chat template: line 1: output size limit exceeded (99 bytes)")

	// Text outside output tags is counted when the render ends.
	tm, err = Parse(strings.Repeat("x", 100), WithLimits(Limits{MaxOutput: 99}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	requireLimit(t, err, LimitOutput, 0, "MaxOutput text")

	tm, err = Parse("{% set x = 'ab' * 60 %}", WithLimits(Limits{MaxMemory: 100}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	requireLimit(t, err, LimitMemory, 1, "MaxMemory")

	tm, err = Parse("{% set x = 'ab' * 60 %}", WithLimits(Limits{MaxValue: 100}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	requireLimit(t, err, LimitValue, 1, "MaxValue")

	tm, err = Parse("{% for i in range(11) %}{% endfor %}", WithLimits(Limits{MaxSteps: 10}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	requireLimit(t, err, LimitSteps, 1, "MaxSteps")

	// Loops count their iterations even when nothing in them is a
	// helper: 10^10 iterations end at the steps limit. (The engine
	// allocates some 600 bytes per iteration, so the limit bounds that
	// too.)
	for _, src := range []string{
		"{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
		"{% for i in range(100000) %}{% for j in range(100000) %}{% set x = i > j %}{% endfor %}{% endfor %}",
	} {
		tm, err = Parse(src, WithLimits(Limits{MaxSteps: 100_000}))
		require.NoError(t, err)
		var rerr error
		n := allocated(func() { _, rerr = tm.Render(ctx, Request{}) })
		requireLimit(t, rerr, LimitSteps, 1, src)
		assert.Less(t, n, uint64(maxAllocated), "allocated %d bytes", n)
	}

	tm, err = Parse("{% macro m(n) %}{% if n > 0 %}{{ m(n - 1) }}{% endif %}{% endmacro %}{{ m(5) }}", WithLimits(Limits{MaxDepth: 5}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	requireLimit(t, err, LimitDepth, 1, "MaxDepth")

	tm, err = Parse(loop, WithLimits(Limits{MaxSteps: 1 << 60, MaxMemory: 1 << 60, MaxTime: 20 * time.Millisecond}))
	require.NoError(t, err)
	_, err = tm.Render(ctx, Request{})
	le = requireLimit(t, err, LimitTime, 1, "MaxTime")
	assert.Equal(t, int64(20), le.Max)
	assert.NoError(t, le.Err)

	tm, err = Parse(loop, WithLimits(Limits{MaxSteps: 1 << 60, MaxMemory: 1 << 60}))
	require.NoError(t, err)
	dctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = tm.Render(dctx, Request{})
	requireLimit(t, err, LimitTime, 1, "context deadline")
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

	// The limits do not change a render within them; a fresh budget
	// serves each render of a pooled state.
	// (2 steps for the loop and range, 4 per iteration: tick, output,
	// "~" and "*".)
	tm, err = Parse("{% for i in range(3) %}{{ i ~ '-' * 2 }}{% endfor %}", WithLimits(Limits{MaxSteps: 14}))
	require.NoError(t, err)
	for range 3 {
		out, err := tm.Render(ctx, Request{})
		require.NoError(t, err)
		assert.Equal(t, "0--1--2--", out)
	}
}

// TestBudgetTagsKeepWhitespace renders templates whose loop and macro
// bodies begin or end at newlines, where rewrite inserts the budget's
// statement tags (a loop's tick, a macro's entry and exit). The engine
// trims a newline once per block tag, even past adjacent tags, so an
// inserted tag that trimmed too would eat a second newline. Each expected
// output is jinja2's: trim_blocks removes the one newline right after a
// block tag, "-" strips all whitespace on its side.
func TestBudgetTagsKeepWhitespace(t *testing.T) {
	for src, want := range map[string]string{
		"{% for x in [1] %}\n\nB{% endfor %}":                    "\nB",
		"{% for x in [1] -%}\n\nB{% endfor %}":                   "B",
		"{% for x in [1] +%}\n\nB{% endfor %}":                   "\n\nB",
		"{% macro m() %}\n\nA{% endmacro %}[{{ m() }}]":          "[\nA]",
		"{% macro m() %}A{% endmacro %}\n\nB{{ m() }}":           "\nBA",
		"{% macro m() -%}\n\nA\n {%- endmacro %}\n\n[{{ m() }}]": "\n[A]",
		"{% macro m() %}A\n  {% endmacro %}[{{ m() }}]":          "[A\n]",
	} {
		out, err := render(t, src, `{"messages":[]}`)
		require.NoError(t, err, src)
		assert.Equal(t, want, out, src)
	}
}
