package constrain

import (
	"math/rand/v2"
	"runtime"
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mask := make([]uint64, v.MaskWords())
	rng := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	var allowed []int32
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := g.NewMatcher(v)
		for step := 0; step < maxTokens && !m.Done(); step++ {
			t0 := threadCPU()
			m.FillMask(mask)
			times = append(times, threadCPU()-t0)
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
	b.ReportMetric(float64(sum.Microseconds())/float64(len(times)), "cpu-avg-µs/mask")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "cpu-p99-µs/mask")
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
			t0 := threadCPU()
			m.FillMask(mask)
			times = append(times, threadCPU()-t0)
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	for i := 0; i < b.N; i++ {
		if _, err := JSONSchema([]byte(toolSchema)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((threadCPU()-t0).Microseconds())/float64(b.N), "cpu-µs/compile")
}

func BenchmarkNewVocabQwen(b *testing.B) {
	toks, eos, err := readGGUFVocab("../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	if err != nil {
		b.Skip("qwen2 vocabulary absent")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	t0 := threadCPU()
	for i := 0; i < b.N; i++ {
		if _, err := NewVocab(toks, eos); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((threadCPU()-t0).Milliseconds())/float64(b.N), "cpu-ms/vocab")
}

// BenchmarkTrieWalkFull measures an uncached mask where every token is
// allowed (the worst case: the whole trie is walked).
func BenchmarkTrieWalkFull(b *testing.B) {
	v := benchVocab(b)
	g, err := Regex(`(?s).*`)
	if err != nil {
		b.Fatal(err)
	}
	e := g.engine(v)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	t0 := threadCPU()
	for i := 0; i < b.N; i++ {
		e.computeMask(0)
	}
	cpu := threadCPU() - t0
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/mask")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(v.nodes)), "cpu-ns/node")
}

// BenchmarkTrieWalkJSONString measures an uncached mask inside a JSON string.
func BenchmarkTrieWalkJSONString(b *testing.B) {
	v := benchVocab(b)
	g, err := JSONSchema([]byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`))
	if err != nil {
		b.Fatal(err)
	}
	m := g.NewMatcher(v)
	if err := m.AcceptBytes([]byte(`{"a": "x`)); err != nil {
		b.Fatal(err)
	}
	e := m.e
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	t0 := threadCPU()
	for i := 0; i < b.N; i++ {
		e.maskBytes = 0
		e.computeMask(m.state)
	}
	b.ReportMetric(float64((threadCPU()-t0).Microseconds())/float64(b.N), "cpu-µs/mask")
}

// greedyTokenize splits text into the longest matching vocabulary tokens.
func greedyTokenize(b *testing.B, v *Vocab, text string) []int32 {
	byText := map[string]int32{}
	for id := int32(0); id < int32(v.Size()); id++ {
		if t := v.TokenBytes(id); len(t) > 0 && !v.IsEOS(id) {
			if _, ok := byText[string(t)]; !ok {
				byText[string(t)] = id
			}
		}
	}
	var out []int32
	for i := 0; i < len(text); {
		n := min(len(text)-i, v.maxLen)
		for ; n > 0; n-- {
			if id, ok := byText[text[i:i+n]]; ok {
				out = append(out, id)
				i += n
				break
			}
		}
		if n == 0 {
			b.Fatalf("cannot tokenize %q", text[i:])
		}
	}
	return out
}

// benchReplay feeds a realistic model output token by token, timing every
// FillMask: the first pass over a fresh grammar is cold (every state is new),
// the following passes are warm (the grammar is shared across requests).
func benchReplay(b *testing.B, compile func() (*Grammar, error), text string) {
	v := benchVocab(b)
	toks := greedyTokenize(b, v, text)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mask := make([]uint64, v.MaskWords())
	var cold, warm []time.Duration
	for i := 0; i < b.N; i++ {
		g, err := compile()
		if err != nil {
			b.Fatal(err)
		}
		g.engines[v] = newEngine(g.nfa, v) // private, empty cache: the first pass is fully cold
		for pass := 0; pass < 5; pass++ {
			m := g.NewMatcher(v)
			for _, tok := range append(toks, v.eos[0]) {
				t0 := threadCPU()
				m.FillMask(mask)
				d := threadCPU() - t0
				if pass == 0 {
					cold = append(cold, d)
				} else {
					warm = append(warm, d)
				}
				if mask[tok>>6]&(1<<(uint(tok)&63)) == 0 {
					b.Fatalf("token %q not allowed", v.TokenBytes(tok))
				}
				if err := m.Accept(tok); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	report := func(name string, times []time.Duration) {
		var sum time.Duration
		for _, t := range times {
			sum += t
		}
		slices.Sort(times)
		b.ReportMetric(float64(sum.Microseconds())/float64(len(times)), name+"-avg-µs")
		b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), name+"-p99-µs")
	}
	report("cold", cold)
	report("warm", warm)
	b.ReportMetric(float64(len(toks)+1), "tokens")
}

func BenchmarkReplayJSONSchema(b *testing.B) {
	benchReplay(b, func() (*Grammar, error) { return JSONSchema([]byte(toolSchema)) },
		`{"location": "Paris, France", "unit": "celsius", "days": 3, "include": ["wind", "uv"], "details": {"hourly": true, "lang": "fr"}}`)
}

func BenchmarkReplayToolCall(b *testing.B) {
	tools := []Tool{{Name: "get_weather", Parameters: []byte(toolSchema)},
		{Name: "search", Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
	benchReplay(b, func() (*Grammar, error) { return ToolCalls(ToolFormatHermes, tools, TextOrToolCalls) },
		"I'll check the weather for you.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Tokyo, Japan\", \"unit\": \"celsius\"}}\n</tool_call>")
}

func BenchmarkReplayRegex(b *testing.B) {
	benchReplay(b, func() (*Grammar, error) { return Regex(`[A-Z][a-z]{2,10}( [a-z]{1,10}){3,12}\. (Yes|No)\.`) },
		"Sentence with several short words here. Yes.")
}

func BenchmarkReplayGBNF(b *testing.B) {
	benchReplay(b, func() (*Grammar, error) { return GBNF(jsonGBNF) },
		`{"name": "Ada", "tags": ["math", "code"], "born": 1815, "nested": {"list": [1, 2, {"deep": [true, null]}]}}`)
}
