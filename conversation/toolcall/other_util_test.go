package toolcall

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/template"
)

// Test helpers of the other families' tests.

// otherTemplate is a parsed test-data template and its special tokens.
type otherTemplate struct {
	name string
	tmpl *template.Template
	base Request
}

// otherLoadTemplate parses a testdata template; it skips the test when the
// test data is absent.
func otherLoadTemplate(t testing.TB, name string) otherTemplate {
	t.Helper()
	tt := loadTemplate(t, name+".jinja")
	return otherTemplate{name: name, tmpl: tt.template, base: tt.base()}
}

// otherTryTemplate is otherLoadTemplate for fuzz seeds: false when the
// template cannot be read.
func otherTryTemplate(name string) (otherTemplate, bool) {
	tt, err := readTemplate(name + ".jinja")
	return otherTemplate{name: name, tmpl: tt.template, base: tt.base()}, err == nil
}

// otherTools are the declared tools of the round trips, as the template
// sees them.
func otherTools() []json.RawMessage {
	return []json.RawMessage{
		json.RawMessage(`{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City"},"days":{"type":"integer","description":"Days"}},"required":["city"]}}}`),
		json.RawMessage(`{"type":"function","function":{"name":"search_docs","description":"Search the docs","parameters":{"type":"object","properties":{"query":{"type":"string","description":"Terms"},"limit":{"type":"integer","description":"Most"},"exact":{"type":"boolean","description":"Exact"},"tags":{"type":"array","items":{"type":"string"},"description":"Tags"},"filter":{"type":"object","description":"Filter","properties":{"lang":{"type":"string"},"since":{"type":"object","properties":{"year":{"type":"integer"}}}}}},"required":["query"]}}}`),
	}
}

// otherCallSets are (a) one call and (b) three parallel calls mixing
// unicode, embedded quotes and backslashes, integers, booleans, arrays and
// a nested object.
func otherCallSets() [][]Call {
	return [][]Call{
		{{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Zürich 東京 😀", "days": 3}`)}},
		{
			{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "São Paulo \"SP\" \\ 東京", "days": 10}`)},
			{ID: "call00002", Name: "search_docs", Arguments: json.RawMessage(`{"query": "emoji 😀 and \"quotes\"", "limit": -2, "exact": false, "tags": ["a", "b c"], "filter": {"lang": "en", "since": {"year": 2024}}}`)},
			{ID: "call00003", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo", "days": 0}`)},
		},
	}
}

// otherRenderCalls renders an assistant turn with calls through tt and
// returns the assistant's part.
func otherRenderCalls(t testing.TB, tt otherTemplate, kwargs map[string]any, content string, calls []Call) (string, error) {
	t.Helper()
	base := tt.base
	base.Tools = otherTools()
	base.Kwargs = kwargs
	base.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":"Weather in Zürich, and search the docs."}`)}
	return RenderCalls(context.Background(), tt.tmpl, base, content, calls)
}

// otherRenderAnswer renders an assistant answer (with reasoning if not "")
// and returns the assistant's part.
func otherRenderAnswer(t testing.TB, tt otherTemplate, kwargs map[string]any, content, reasoning string) string {
	t.Helper()
	base := tt.base
	base.Tools = otherTools()
	base.Kwargs = kwargs
	base.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":"Hello"}`)}
	part, err := AssistantPart(context.Background(), tt.tmpl, base, AssistantMessage(&content, reasoning, nil))
	require.NoError(t, err)
	return part
}

// otherRoundTrip renders each call set through the template and checks
// that f parses it back (maxCalls > 0: the template renders only that
// many calls of a turn). It returns the rendered parts.
func otherRoundTrip(t *testing.T, f Format, tt otherTemplate, kwargs map[string]any, maxCalls int) []string {
	t.Helper()
	var parts []string
	for _, calls := range otherCallSets() {
		part, err := otherRenderCalls(t, tt, kwargs, "", calls)
		require.NoError(t, err, "%s renders %d calls", tt.name, len(calls))
		want := calls
		if maxCalls > 0 && len(want) > maxCalls {
			want = want[:maxCalls]
		}
		got, err := f.Parse(part)
		require.NoError(t, err, "%s: parse %q", tt.name, part)
		requireCalls(t, want, got.Calls, "calls of %q", part)
		assert.Empty(t, got.Content, "%s: content of %q", tt.name, part)
		parts = append(parts, part)
	}
	return parts
}

// otherGrammarTools are the tools of the grammar walks.
func otherGrammarTools() []Tool {
	return []Tool{
		{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`)},
		{Name: "search_docs", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":0,"maximum":50},"filter":{"type":"object","properties":{"lang":{"type":"string","enum":["en","de"]},"tags":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["lang"]},"exact":{"type":"boolean"}},"required":["query","filter"]}`)},
	}
}

// otherVocab is every single byte, the family's markers and a few
// fragments as tokens, then an EOS token; special lists the ids the walk
// favours (markers and closing punctuation) so that samples end.
func otherVocab(t testing.TB, markers []string) (*constrain.Vocab, []int32) {
	t.Helper()
	toks := byteTokens()
	var special []int32
	for _, s := range []string{`"`, `'`, `}`, `]`, `)`, `,`, "\n", `<|"|>`, "<escape>", "]]>", "celsius", "en", "true", "True", "12", "call:"} {
		special = append(special, int32(len(toks)))
		toks = append(toks, []byte(s))
	}
	for _, m := range markers {
		special = append(special, int32(len(toks)))
		toks = append(toks, []byte(m))
	}
	toks = append(toks, []byte("<|eos|>"))
	v, err := constrain.NewVocab(toks, []int32{int32(len(toks) - 1)})
	require.NoError(t, err)
	return v, special
}

// otherSample walks g with random allowed tokens until EOS or done; ok is
// false when it did not end within maxTokens.
func otherSample(t testing.TB, g *constrain.Grammar, v *constrain.Vocab, special []int32, rng *rand.Rand, maxTokens int) (string, bool) {
	t.Helper()
	isSpecial := map[int32]bool{}
	for _, id := range special {
		isSpecial[id] = true
	}
	var favoured []int32
	return walkGrammar(t, g, v, maxTokens, func(s *walkStep) (int32, bool) {
		allowed := s.list()
		if s.eos && (len(allowed) == 0 || rng.Float64() < 0.05) {
			return 0, true
		}
		favoured = favoured[:0]
		for _, id := range allowed {
			if isSpecial[id] {
				favoured = append(favoured, id)
			}
		}
		pick := allowed
		if len(favoured) > 0 && rng.Float64() < 0.5 {
			pick = favoured
		}
		return pick[rng.IntN(len(pick))], false
	})
}

// otherCheckContentCalls renders content before calls through tt, checks
// that f parses the calls back with the streaming invariants (markers
// never show), and returns the parse (for its content) and the reply.
func otherCheckContentCalls(t testing.TB, f Format, tt otherTemplate, content string, calls []Call, markers []string) (Parsed, string) {
	t.Helper()
	part, err := otherRenderCalls(t, tt, nil, content, calls)
	require.NoError(t, err)
	got, err := f.Parse(part)
	require.NoError(t, err)
	requireCalls(t, calls, got.Calls, "calls of %q", part)
	checkStreaming(t, f, part, markers)
	return got, part
}

// otherCheckGrammar compiles f's grammars for every mode (single and
// parallel calls), samples at least 20 replies from each, and checks that
// every finished one parses, that CallsOnly gives calls and TextOnly none,
// and that each call's arguments validate against its tool's schema.
func otherCheckGrammar(t *testing.T, f Format, markers []string) {
	t.Helper()
	tools := otherGrammarTools()
	v, special := otherVocab(t, markers)
	validators := toolSchemas(t, tools)
	for _, mode := range []Mode{CallsOnly, TextOrCalls, TextOnly} {
		for _, parallel := range []bool{false, true} {
			opts := GrammarOptions{Mode: mode, Tools: tools, Parallel: parallel, JSON: constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced}}
			g, err := Grammar(f, opts)
			require.NoError(t, err, "%s grammar mode %d", f.Name(), mode)
			finished, withCalls := 0, 0
			for seed := uint64(0); seed < walkSeeds(20); seed++ {
				rng := rand.New(rand.NewPCG(seed, uint64(mode)*2+map[bool]uint64{false: 0, true: 1}[parallel]))
				reply, ok := otherSample(t, g, v, special, rng, 5000)
				if !ok {
					continue
				}
				finished++
				p, err := f.Parse(reply)
				require.NoError(t, err, "mode %d parallel %v: sample %q", mode, parallel, reply)
				switch mode {
				case CallsOnly:
					require.NotEmpty(t, p.Calls, "CallsOnly sample %q", reply)
				case TextOnly:
					require.Empty(t, p.Calls, "TextOnly sample %q", reply)
				}
				if !parallel {
					require.LessOrEqual(t, len(p.Calls), 1, "single-call sample %q", reply)
				}
				if len(p.Calls) > 0 {
					withCalls++
				}
				for _, c := range p.Calls {
					requireValidArgs(t, validators, v, c, reply)
				}
				otherCheckStreamingQuiet(t, f, reply)
			}
			require.GreaterOrEqual(t, finished, int(walkSeeds(20))/2, "mode %d parallel %v: too few samples ended", mode, parallel)
			if mode == TextOrCalls {
				t.Logf("%s TextOrCalls parallel=%v: %d/%d samples with calls", f.Name(), parallel, withCalls, finished)
			}
		}
	}
	_, err := Grammar(f, GrammarOptions{Mode: CallsOnly})
	assert.Error(t, err, "CallsOnly without tools")
}

// otherCheckStreamingQuiet checks the prefix invariants of a sample
// without the marker check (samples may hold marker-like text in strings).
func otherCheckStreamingQuiet(t *testing.T, f Format, reply string) {
	t.Helper()
	final, err := f.Parse(reply)
	require.NoError(t, err)
	step := max(1, len(reply)/60)
	for n := 0; n <= len(reply); n += step {
		p := f.ParsePartial(reply[:n])
		require.True(t, strings.HasPrefix(final.Content, p.Content), "content %q of prefix %q is not a prefix of %q", p.Content, reply[:n], final.Content)
		require.True(t, strings.HasPrefix(final.Reasoning, p.Reasoning), "reasoning of prefix %q", reply[:n])
		require.LessOrEqual(t, len(p.Calls), len(final.Calls))
		for i, c := range p.Calls {
			require.Equal(t, final.Calls[i].Name, c.Name)
			require.JSONEq(t, string(final.Calls[i].Arguments), string(c.Arguments))
		}
	}
}

// otherMalformed is a reply holding a malformed call and where the error
// should point.
type otherMalformed struct {
	reply   string
	offset  int    // -1: anywhere within the call
	content string // content before the call
}

// otherCheckMalformed checks that each reply gives a *ToolCallError naming
// the format, with the expected offset, and the content before the call.
func otherCheckMalformed(t *testing.T, f Format, cases []otherMalformed) {
	t.Helper()
	for _, c := range cases {
		checkMalformed(t, f, c.reply, c.content, c.offset)
	}
}
