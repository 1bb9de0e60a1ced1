package constrain

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// toolSchema is a typical function-calling parameter schema.
const toolSchema = `{"type":"object","properties":{
	"location":{"type":"string","description":"City and country, e.g. Paris, France"},
	"unit":{"type":"string","enum":["celsius","fahrenheit"]},
	"days":{"type":"integer","minimum":1,"maximum":14},
	"include":{"type":"array","items":{"type":"string","enum":["wind","humidity","uv"]},"maxItems":3},
	"details":{"type":"object","properties":{"hourly":{"type":"boolean"},"lang":{"type":"string","maxLength":5}}}},
	"required":["location","unit"],"additionalProperties":false}`

// benchGenerations runs random constrained generations and records the time
// of every FillMask call; it reports avg and p99 in microseconds.
func benchGenerations(b *testing.B, g *Grammar, v *Vocab, maxTokens int) {
	mask := make([]uint64, v.MaskWords())
	rng := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	var allowed []int32
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := g.NewMatcher(v)
		for step := 0; step < maxTokens && !m.Done(); step++ {
			t0 := time.Now()
			m.FillMask(mask)
			times = append(times, time.Since(t0))
			allowed = allowed[:0]
			for w, bits := range mask {
				for bits != 0 {
					allowed = append(allowed, int32(w*64+trailingZeros(bits)))
					bits &= bits - 1
				}
			}
			if len(allowed) == 0 {
				b.Fatal("empty mask")
			}
			tok := allowed[rng.IntN(len(allowed))]
			if v.IsEOS(tok) {
				break
			}
			if err := m.Accept(tok); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	reportTimes(b, times)
}

func reportTimes(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	slices.Sort(times)
	b.ReportMetric(float64(sum.Microseconds())/float64(len(times)), "avg-µs/mask")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs/mask")
	b.ReportMetric(float64(len(times))/float64(b.N), "masks/op")
}

func benchVocab(b *testing.B) *Vocab {
	return qwenVocab(b)
}

// BenchmarkMaskJSONSchemaWarm measures masks with a warm cache (the grammar
// and vocabulary are shared across generations, as in a server).
func BenchmarkMaskJSONSchemaWarm(b *testing.B) {
	v := benchVocab(b)
	g, err := JSONSchema([]byte(toolSchema))
	if err != nil {
		b.Fatal(err)
	}
	benchGenerations(b, g, v, 300)
}

// BenchmarkMaskJSONSchemaCold compiles a fresh grammar for every generation,
// so every mask of the first visit of a state is computed by a trie walk.
func BenchmarkMaskJSONSchemaCold(b *testing.B) {
	v := benchVocab(b)
	mask := make([]uint64, v.MaskWords())
	rng := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		g, err := JSONSchema([]byte(toolSchema))
		if err != nil {
			b.Fatal(err)
		}
		m := g.NewMatcher(v)
		for step := 0; step < 300 && !m.Done(); step++ {
			t0 := time.Now()
			m.FillMask(mask)
			times = append(times, time.Since(t0))
			var allowed []int32
			for w, bits := range mask {
				for bits != 0 {
					allowed = append(allowed, int32(w*64+trailingZeros(bits)))
					bits &= bits - 1
				}
			}
			tok := allowed[rng.IntN(len(allowed))]
			if v.IsEOS(tok) {
				break
			}
			if err := m.Accept(tok); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportTimes(b, times)
}

func BenchmarkMaskRegexWarm(b *testing.B) {
	v := benchVocab(b)
	g, err := Regex(`[A-Z][a-z]{2,10}( [a-z]{1,10}){3,12}\. (Yes|No)\.`)
	if err != nil {
		b.Fatal(err)
	}
	benchGenerations(b, g, v, 200)
}

func BenchmarkCompileToolSchema(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := JSONSchema([]byte(toolSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewVocabQwen(b *testing.B) {
	toks, eos, err := readGGUFVocab("../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	if err != nil {
		b.Skip("qwen2 vocabulary absent")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := NewVocab(toks, eos); err != nil {
			b.Fatal(err)
		}
	}
}
