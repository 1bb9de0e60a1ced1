package session

import (
	"context"
	"encoding/json"
	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConstrainedSampling runs a real model at temperature 1 under regex,
// JSON-schema and GBNF constraints with many seeds: every output must match
// and every generation must end on its own (no dead ends, no runaway).
func TestConstrainedSampling(t *testing.T) {
	eng := openStories(t, engine.Settings{})
	vocab, err := eng.ConstraintVocab()
	require.NoError(t, err)
	tok := eng.Tokenizer()

	type person struct {
		Name string `json:"name"`
		Age  int    `json:"age"`
		Pet  string `json:"pet"`
	}
	cases := []struct {
		name    string
		compile func() (*constrain.Grammar, error)
		check   func(t *testing.T, out string)
	}{
		{"regex", func() (*constrain.Grammar, error) { return constrain.Regex(`[A-Z][a-z]{1,8}( [a-z]{1,8}){0,3}\.`) },
			func(t *testing.T, out string) {
				assert.Regexp(t, regexp.MustCompile(`^[A-Z][a-z]{1,8}( [a-z]{1,8}){0,3}\.$`), out)
			}},
		{"json-schema", func() (*constrain.Grammar, error) {
			return constrain.JSONSchemaWith([]byte(`{"type":"object","properties":{
				"name":{"type":"string","maxLength":10},
				"age":{"type":"integer","minimum":1,"maximum":99},
				"pet":{"enum":["dog","cat"]}},"required":["name","age","pet"],"additionalProperties":false}`),
				constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced})
		}, func(t *testing.T, out string) {
			var p person
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&p), out)
			assert.LessOrEqual(t, len([]rune(p.Name)), 10)
			assert.True(t, p.Age >= 1 && p.Age <= 99, out)
			assert.Contains(t, []string{"dog", "cat"}, p.Pet)
		}},
		{"gbnf", func() (*constrain.Grammar, error) {
			return constrain.GBNF(`root ::= "The " animal " was " adj "."
animal ::= "dog" | "cat" | "bird"
adj ::= [a-z] [a-z]? [a-z]? [a-z]? [a-z]?`)
		}, func(t *testing.T, out string) {
			assert.Regexp(t, regexp.MustCompile(`^The (dog|cat|bird) was [a-z]{1,5}\.$`), out)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := c.compile()
			require.NoError(t, err)
			for seed := uint64(1); seed <= 12; seed++ {
				s := newPrefilled(t, eng, prompt)
				m := g.NewMatcher(vocab)
				ids := collect(t, s, GenerateOptions{MaxTokens: 200, Constraint: m, Sampler: Sampler{Temperature: 1, Seed: seed}})
				require.Less(t, len(ids), 200, "seed %d: generation must end", seed)
				require.True(t, m.Accepting(), "seed %d: ended in an accepting state", seed)
				out, err := tok.Decode(ids)
				require.NoError(t, err)
				c.check(t, out)
			}
		})
	}
}

// BenchmarkConstrainedDecode compares decode speed with and without a
// JSON-schema constraint (goal: ≥ 90 % of unconstrained).
func BenchmarkConstrainedDecode(b *testing.B) {
	eng := openStories(b, engine.Settings{})
	vocab, err := eng.ConstraintVocab()
	require.NoError(b, err)
	g, err := constrain.JSONSchema([]byte(`{"type":"array","items":{"type":"object","properties":{"word":{"type":"string"},"n":{"type":"integer"}}}}`))
	require.NoError(b, err)
	for _, constrained := range []bool{false, true} {
		name := "free"
		if constrained {
			name = "json-schema"
		}
		b.Run(name, func(b *testing.B) {
			tokens := 0
			for b.Loop() {
				s := newPrefilled(b, eng, prompt)
				opts := GenerateOptions{MaxTokens: 64, IgnoreEOG: true, Sampler: Sampler{Temperature: 1, Seed: 1}}
				if constrained {
					opts.Constraint = g.NewMatcher(vocab)
				}
				for _, err := range s.Generate(context.Background(), opts) {
					require.NoError(b, err)
					tokens++
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkConstrainedDecodeSmolLM is the measure: decode speed of
// a full-size smollm2-135m Q8_0 (synthetic weights, 49 152-token vocabulary)
// with and without a JSON-schema constraint.
func BenchmarkConstrainedDecodeSmolLM(b *testing.B) {
	path := filepath.Join(b.TempDir(), "smollm2.gguf")
	require.NoError(b, synth.WriteFile(path, "smollm2-135m", synth.Options{Seed: 1, Type: ggml.Q8_0}))
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 512})
	require.NoError(b, err)
	defer eng.Close()
	vocab, err := eng.ConstraintVocab()
	require.NoError(b, err)
	g, err := constrain.JSONSchema([]byte(`{"type":"array","minItems":16,"items":{"type":"object","properties":{"word":{"type":"string","maxLength":8},"n":{"type":"integer"}},"required":["word","n"]}}`))
	require.NoError(b, err)
	for _, constrained := range []bool{false, true} {
		name := "free"
		if constrained {
			name = "json-schema"
		}
		b.Run(name, func(b *testing.B) {
			tokens := 0
			for b.Loop() {
				s := newPrefilled(b, eng, []int32{1, 2, 3, 4})
				opts := GenerateOptions{MaxTokens: 64, IgnoreEOG: true, Sampler: Sampler{Temperature: 1, Seed: 1}}
				if constrained {
					opts.Constraint = g.NewMatcher(vocab)
				}
				for _, err := range s.Generate(context.Background(), opts) {
					require.NoError(b, err)
					tokens++
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}
