package template

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRewrite shows the source rewrites on small templates, including
// wrappers that share a span and must nest correctly.
func TestRewrite(t *testing.T) {
	for src, want := range map[string]string{
		"{{ 'a' + b + 'c' }}":                                    "{{ __lrt_add(0, 'a' , b , 'c') }}",
		"{{ 'a' + 'b' }}":                                        "{{ 'a' + 'b' }}",
		"{{ a + b - c + d }}":                                    "{{ __lrt_add(2, __lrt_sub(1, __lrt_add(0, a , b) , c) , d) }}",
		"{{ a + f(b) + c + g(d) }}":                              "{{ __lrt_add(1, __lrt_add(0, a , f(b) , c) , g(d)) }}",
		"{{ a + b|f(c + d) ~ e }}":                               "{{ __lrt_add(1, a , b|f(__lrt_add(0, c , d)) ~ e) }}",
		"{{ x if a + b else y }}":                                "{{ x if __lrt_add(0, a , b) else y }}",
		"{% for x in a + b %}{% endfor %}":                       "{% for x in __lrt_iter(__lrt_add(0, a , b)) %}{% endfor %}",
		"{% for x in range(3) %}{% endfor %}":                    "{% for x in range(3) %}{% endfor %}",
		"{% for x in d|dictsort %}{% endfor %}":                  "{% for x in d|dictsort %}{% endfor %}",
		"{% set ns.v = a + b %}":                                 "{% set ns.v = __lrt_nsset(ns, __lrt_add(0, a , b) )%}",
		"{% for x in t recursive %}{{ loop(a+b) }}{% endfor %}":  "{% for x in __lrt_iter(t) recursive %}{{ loop(__lrt_guard(__lrt_add(0, a,b))) }}{% endfor %}",
		"{{ s|safe + t|e }}":                                     "{{ __lrt_add(0, s|__lrt_safe , t|__lrt_safe(1)) }}",
		"{{ x|tojson }}":                                         "{{ x|__lrt_json }}",
		"{{ l.append(1) }}":                                      "{{ l.__lrt_unsafe_append(1) }}",
		"{% macro m(a, b=1) -%}x{%- endmacro %}":                 "{% macro m(a, b=1) -%}{% set __lrt_d = __lrt_macro(kwargs, varargs, 'm', true, 2) -%}x{%- endmacro %}",
		"{% macro m() %}{{ kwargs }}{{ varargs }}{% endmacro %}": "{% macro m() %}{% set __lrt_d = __lrt_macro(kwargs, varargs, 'm', false, -1) %}{{ kwargs }}{{ varargs }}{% endmacro %}",
		"{{ a + }}": "{{ a + }}",
	} {
		got, _ := rewrite(src)
		assert.Equal(t, want, got, src)
	}
}

// TestAddSites checks the UndefinedError messages recorded for operands.
func TestAddSites(t *testing.T) {
	_, info := rewrite("{{ a + b.c + d['e'] + f[0] + g() }}")
	if assert.Len(t, info.adds, 2) {
		assert.Equal(t, []string{
			"UndefinedError: 'a' is undefined",
			"UndefinedError: 'dict object' has no attribute 'c'",
			"UndefinedError: 'dict object' has no attribute 'e'",
			"UndefinedError: list object has no element 0",
		}, info.adds[0].undefined)
		assert.Equal(t, "UndefinedError: 'g()' is undefined", info.adds[1].undefined[1])
	}
}

// TestRewriteKeepsNumericArithmetic checks that arithmetic on operands that
// are numbers whenever they are defined (literals, loop counters, lengths)
// stays native, as it computes the same in the engine.
func TestRewriteKeepsNumericArithmetic(t *testing.T) {
	for _, src := range []string{
		"{{ loop.index0 + 1 }}",
		"{{ (messages|length - 1) - loop.index0 }}",
		"{{ -loop.index * 2 + x|int }}",
		"{{ 1 - 2 }}",
	} {
		got, _ := rewrite(src)
		assert.Equal(t, src, got)
	}
	got, _ := rewrite("{{ loop.index0 + n }}")
	assert.Equal(t, "{{ __lrt_add(0, loop.index0 , n) }}", got)
}
