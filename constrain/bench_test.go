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
	b.ReportMetric(float64(len(times))/float64(b.N), "masks/op")
	reportDist(b, "cpu", times)
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
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(v.str.nodes)+len(v.rest.nodes)), "cpu-ns/node")
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
func greedyTokenize(b testing.TB, v *Vocab, text string) []int32 {
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

// walkSchema is a realistic tool-call parameter schema: a nested object,
// enums, strings with and without maxLength, integers and numbers with
// bounds, arrays of enums and of short strings.
const walkSchema = `{"type":"object","properties":{
	"query":{"type":"string","maxLength":48,"description":"what to look up"},
	"location":{"type":"object","properties":{
		"city":{"type":"string"},
		"country":{"type":"string","maxLength":2},
		"lat":{"type":"number","minimum":-90,"maximum":90},
		"lon":{"type":"number","minimum":-180,"maximum":180}},"required":["city"]},
	"unit":{"type":"string","enum":["celsius","fahrenheit","kelvin"]},
	"days":{"type":"integer","minimum":1,"maximum":14},
	"include":{"type":"array","items":{"type":"string","enum":["wind","humidity","uv","pressure"]},"maxItems":4},
	"tags":{"type":"array","items":{"type":"string","maxLength":16},"maxItems":5},
	"threshold":{"type":"number"},
	"verbose":{"type":"boolean"}},
	"required":["query","unit"],"additionalProperties":false}`

// walkInstances are valid instances of walkSchema as a model writes them
// (keys in declaration order, ", " and ": " spacing).
var walkInstances = []string{
	`{"query": "weather this weekend", "location": {"city": "Paris", "country": "FR", "lat": 48.8566, "lon": 2.3522}, "unit": "celsius", "days": 3, "include": ["wind", "uv"], "verbose": false}`,
	`{"query": "Will it snow in Zürich?", "location": {"city": "Zürich", "country": "CH"}, "unit": "celsius", "days": 7, "tags": ["snow", "ski trip"], "threshold": -2.5}`,
	`{"query": "hourly forecast", "unit": "fahrenheit", "days": 14, "include": ["humidity", "pressure", "wind"], "tags": ["work"], "threshold": 0.75, "verbose": true}`,
	`{"query": "東京の天気", "location": {"city": "Tokyo", "lat": 35.6762, "lon": 139.6503}, "unit": "kelvin"}`,
}

// maskTimes collects FillMask CPU times of the cold and warm passes.
type maskTimes struct{ cold, warm []time.Duration }

// replay feeds the tokens of text to a fresh matcher, timing every FillMask
// into times and checking that every token is allowed by the mask.
func replay(b *testing.B, g *Grammar, v *Vocab, toks []int32, mask []uint64, times *[]time.Duration) {
	m := g.NewMatcher(v)
	for _, tok := range append(toks, v.eos[0]) {
		t0 := threadCPU()
		m.FillMask(mask)
		*times = append(*times, threadCPU()-t0)
		if mask[tok>>6]&(1<<(uint(tok)&63)) == 0 {
			b.Fatalf("token %q not allowed", v.TokenBytes(tok))
		}
		if err := m.Accept(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// benchReplay feeds realistic model outputs token by token, timing every
// FillMask: the first pass over each text with a fresh grammar and a private
// engine is cold (every state is new, its mask is computed by a trie walk),
// the next passes are warm (the grammar is shared across requests). It
// reports the average, median and 99th percentile of each in CPU µs.
func benchReplay(b *testing.B, compile func() (*Grammar, error), texts ...string) {
	v := benchVocab(b)
	var toks [][]int32
	for _, text := range texts {
		toks = append(toks, greedyTokenize(b, v, text))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mask := make([]uint64, v.MaskWords())
	var mt maskTimes
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, tt := range toks {
			g, err := compile()
			if err != nil {
				b.Fatal(err)
			}
			g.engines[v] = newEngine(g.nfa, v) // private, empty cache: the first pass is fully cold
			replay(b, g, v, tt, mask, &mt.cold)
			for pass := 0; pass < 4; pass++ {
				replay(b, g, v, tt, mask, &mt.warm)
			}
		}
	}
	b.StopTimer()
	reportDist(b, "cold", mt.cold)
	reportDist(b, "warm", mt.warm)
	b.ReportMetric(float64(len(mt.cold))/float64(b.N), "masks")
}

// reportDist reports the average, median and 99th percentile of times in µs
// (fractional: a warm mask takes well under a microsecond).
func reportDist(b *testing.B, name string, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	slices.Sort(times)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(sum)/float64(len(times)), name+"-avg-µs")
	b.ReportMetric(us(times[len(times)/2]), name+"-p50-µs")
	b.ReportMetric(us(times[len(times)*99/100]), name+"-p99-µs")
}

// BenchmarkMaskJSONSchemaWalk is the mask figure: cold and warm
// masks on the 151,936-token qwen2 vocabulary over walks of valid
// instances of a tool-call schema.
func BenchmarkMaskJSONSchemaWalk(b *testing.B) {
	benchReplay(b, func() (*Grammar, error) { return JSONSchema([]byte(walkSchema)) }, walkInstances...)
}

// BenchmarkCompileJSONSchemaWalk measures compiling walkSchema (median and
// 99th percentile of CPU time per compile).
func BenchmarkCompileJSONSchemaWalk(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := threadCPU()
		if _, err := JSONSchema([]byte(walkSchema)); err != nil {
			b.Fatal(err)
		}
		times = append(times, threadCPU()-t0)
	}
	reportDist(b, "compile", times)
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
