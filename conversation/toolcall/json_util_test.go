package toolcall

// Test helpers of the JSON families: rendering real histories through the
// real chat templates, cutting out the assistant's reply, checking
// round-trips, the streaming invariants and grammar random walks. Names
// start with json so that they stay clear of the other groups' helpers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/template"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	jsonVocabPath = "../../../shared/testdata/vocab/ggml-vocab-qwen2.gguf"
)

// jsonTestTools are the tools the test histories declare (OpenAI shape).
var jsonTestTools = []any{
	map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "Get the current weather for a location.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"location": map[string]any{"type": "string", "description": "City name"},
			"unit":     map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}},
		}, "required": []string{"location"}},
	}},
	map[string]any{"type": "function", "function": map[string]any{
		"name": "search_web", "description": "Search the web.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"query":  map[string]any{"type": "string"},
			"limit":  map[string]any{"type": "integer"},
			"safe":   map[string]any{"type": "boolean"},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"filter": map[string]any{"type": "object"},
		}, "required": []string{"query"}},
	}},
}

// jsonTestCalls returns one call, or three parallel calls whose arguments
// mix unicode, embedded quotes and backslashes, integers, booleans, arrays
// and a nested object.
func jsonTestCalls(n int) []Call {
	calls := []Call{
		{Name: "get_weather", Arguments: json.RawMessage(`{"location": "Zürich 東京 😀", "unit": "celsius"}`)},
		{Name: "search_web", Arguments: json.RawMessage(`{"query": "say \"hi\" to C:\\temp\\new", "limit": 3, "safe": true, "tags": ["a", "b c"], "filter": {"lang": "de", "range": {"from": -1, "to": 20}}}`)},
		{Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)},
	}
	return calls[:n]
}

// jsonCase is one template to render replies through.
type jsonCase struct {
	template string
	kwargs   map[string]any
	// stringArgs passes the arguments as JSON text (templates that
	// concatenate them).
	stringArgs bool
	// trimSuffix is text the template writes after the turn (a
	// generation prompt it always appends).
	trimSuffix string
	// single: the template raises for parallel calls.
	single bool
	// noSystem leaves the system message out (templates that merge it
	// into the last user turn, so the prompt would not be a prefix).
	noSystem bool
	// noContent: the template cannot render content and calls in one
	// turn (it splits them into two turns).
	noContent bool
	// renderOrder: the template writes the call object's keys in another
	// order than the model (and the grammar) does.
	renderOrder bool
}

// jsonTemplateExists reports whether the template is in the test data.
func jsonTemplateExists(name string) (bool, error) {
	_, err := os.Stat(filepath.Join(testTemplateDir, name+".jinja"))
	return err == nil, err
}

// jsonLoadTemplate parses a template of the test data, or skips.
func jsonLoadTemplate(t testing.TB, name string) (*template.Template, testTemplate) {
	t.Helper()
	tt := loadTemplate(t, name+".jinja")
	return tt.template, tt
}

// jsonRender renders a reply of the assistant through the case's template:
// the history with the assistant's turn minus the history with the
// generation prompt. ok is false when the template raises for the turn.
func jsonRender(t testing.TB, c jsonCase, content any, calls []Call) (reply string, ok bool) {
	t.Helper()
	tmpl, meta := jsonLoadTemplate(t, c.template)
	history := []any{
		map[string]any{"role": "system", "content": "You are a helpful assistant."},
		map[string]any{"role": "user", "content": "What's the weather in Zürich, and what is new?"},
	}
	if c.noSystem {
		history = history[1:]
	}
	var tcs []any
	for i, call := range calls {
		var args any = call.Arguments
		if c.stringArgs {
			args = string(call.Arguments)
		}
		tcs = append(tcs, map[string]any{"id": "call" + strings.Repeat("0", 4) + string(rune('1'+i)), "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": args}})
	}
	asst := map[string]any{"role": "assistant", "content": content, "tool_calls": tcs}
	kwargs := c.kwargs
	if kwargs == nil {
		kwargs = map[string]any{}
	}
	render := func(msgs []any, gen bool) (string, error) {
		req := map[string]any{"messages": msgs, "tools": jsonTestTools, "add_generation_prompt": gen, "kwargs": kwargs}
		if meta.BOS != nil {
			req["bos_token"] = *meta.BOS
		}
		if meta.EOS != nil {
			req["eos_token"] = *meta.EOS
		}
		b, err := json.Marshal(req)
		require.NoError(t, err)
		return tmpl.RenderJSON(context.Background(), b)
	}
	pre, err := render(history, true)
	require.NoError(t, err, "template %s: history", c.template)
	full, err := render(append(append([]any{}, history...), asst), false)
	if err != nil {
		var re *template.RaiseError
		require.True(t, errors.As(err, &re), "template %s: %v", c.template, err)
		return "", false
	}
	if strings.HasPrefix(full, pre) {
		reply = full[len(pre):]
	} else {
		// The generation prompt opens something the finished turn does
		// not (a thinking block): cut at the common prefix, backed off to
		// the end of the last marker or line.
		k := 0
		for k < len(pre) && k < len(full) && pre[k] == full[k] {
			k++
		}
		for k > 0 && full[k-1] != '\n' && full[k-1] != '>' {
			k--
		}
		reply = full[k:]
	}
	return strings.TrimSuffix(reply, c.trimSuffix), true
}

// jsonStripThink drops an empty or filled <think>…</think> block at the
// start of a reply, as the thinking wrapper does before the parser runs.
func jsonStripThink(reply string) string {
	trimmed := strings.TrimLeft(reply, " \t\r\n")
	if rest, ok := strings.CutPrefix(trimmed, "<think>"); ok {
		if _, after, ok := strings.Cut(rest, "</think>"); ok {
			return after
		}
	}
	return reply
}

// jsonCallsEqual reports whether the calls match (name, JSON-equal
// arguments).
func jsonCallsEqual(want, got []Call) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i].Name != got[i].Name || !jsonEqual(want[i].Arguments, got[i].Arguments) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// jsonFamilyMarkers are the markers of a format that content must never
// show.
func jsonFamilyMarkers(f Format) []string {
	if jf, ok := jsonUnwrap(f); ok {
		return jf.holdMarkers()
	}
	return nil
}

// jsonUnwrap returns the JSON family under a thinking wrapper.
func jsonUnwrap(f Format) (*jsonFormat, bool) {
	for {
		switch x := f.(type) {
		case *jsonFormat:
			return x, true
		case interface{ Unwrap() Format }:
			f = x.Unwrap()
		default:
			return nil, false
		}
	}
}

// jsonCheckFamily renders one and three calls (and calls after content)
// through each case's template and checks that the format parses them
// back, streams them, and is the first JSON family that round-trips them
// (as detection picks it).
func jsonCheckFamily(t *testing.T, name string, cases []jsonCase) {
	f, err := Lookup(name)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.template, func(t *testing.T) {
			for _, n := range []int{1, 3} {
				for _, content := range []string{"", "Let me look that up."} {
					if content != "" && c.noContent {
						continue
					}
					want := jsonTestCalls(n)
					reply, ok := jsonRender(t, c, content, want)
					if !ok {
						require.True(t, c.single && n > 1, "template %s raised for %d calls", c.template, n)
						continue
					}
					reply = jsonStripThink(reply)
					got, err := f.Parse(reply)
					require.NoError(t, err, "reply %q", reply)
					requireCalls(t, want, got.Calls, "reply %q", reply)
					if content == "" || strings.Contains(reply, content) {
						assert.Equal(t, content, got.Content, "reply %q", reply)
					}
					checkStreaming(t, f, reply, jsonFamilyMarkers(f))
					if content == "" {
						assert.Equal(t, name, jsonFirstRoundTrip(reply, want), "first JSON family to round-trip %q", reply)
					}
					if content == "" && n == 1 && !c.renderOrder {
						jsonCheckGrammarAccepts(t, f, reply)
					}
				}
			}
		})
	}
}

// jsonCheckGrammarAccepts checks that the format's CallsOnly grammar for
// the test tools accepts the template's render of one call (without the
// end-of-turn markers, which the sampler's EOS stands for).
func jsonCheckGrammarAccepts(t *testing.T, f Format, reply string) {
	t.Helper()
	var tools []Tool
	for _, raw := range jsonTestTools {
		fn := raw.(map[string]any)["function"].(map[string]any)
		params, err := json.Marshal(fn["parameters"])
		require.NoError(t, err)
		tools = append(tools, Tool{Name: fn["name"].(string), Parameters: params})
	}
	g, err := Grammar(f, GrammarOptions{Mode: CallsOnly, Tools: tools, Parallel: true})
	require.NoError(t, err)
	jf, ok := jsonUnwrap(f)
	require.True(t, ok)
	text := trimReply(reply, jf.eot)
	if strings.HasPrefix(jf.grammar.open, " ") {
		text = " " + text // firefunction's " functools[" starts with the space
	}
	m := g.NewMatcher(jsonByteVocab(t))
	require.NoError(t, m.AcceptBytes([]byte(text)), "%s grammar on the render %q", f.Name(), text)
	require.True(t, m.Accepting(), "%s grammar on the render %q", f.Name(), text)
}

var (
	jsonByteVocabOnce sync.Once
	jsonByteVocabVal  *constrain.Vocab
)

// jsonByteVocab is the 256 single bytes and an EOS token.
func jsonByteVocab(t testing.TB) *constrain.Vocab {
	jsonByteVocabOnce.Do(func() {
		toks := append(byteTokens(), []byte("<|eos|>"))
		v, err := constrain.NewVocab(toks, []int32{256})
		if err == nil {
			jsonByteVocabVal = v
		}
	})
	require.NotNil(t, jsonByteVocabVal)
	return jsonByteVocabVal
}

// jsonFirstRoundTrip is the first JSON family (in priority order) whose
// Parse gives the calls back.
func jsonFirstRoundTrip(reply string, want []Call) string {
	for _, f := range jsonFamilies() {
		if p, err := f.Parse(reply); err == nil && jsonCallsEqual(want, p.Calls) {
			return f.Name()
		}
	}
	return ""
}

// jsonCheckMalformed checks that reply gives a *ToolCallError of the
// format at offset off (-1: the end of the reply), and the content before
// the malformed call.
func jsonCheckMalformed(t *testing.T, f Format, reply, content string, off int) {
	t.Helper()
	if off < 0 {
		off = len(reply)
	}
	p, _ := checkMalformed(t, f, reply, content, off)
	assert.Empty(t, p.Calls)
}

// jsonAt is the offset of sub in s (for expected error offsets).
func jsonAt(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		panic("jsonAt: " + quoteJSON(sub) + " not in " + quoteJSON(s))
	}
	return i
}

// ---------------------------------------------------------------------------
// Grammar random walks

// jsonGrammarTools are two tools with real schemas.
var jsonGrammarTools = []Tool{
	{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object", "properties": {
		"location": {"type": "string"},
		"days": {"type": "integer", "minimum": 1, "maximum": 14},
		"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
		"required": ["location"]}`)},
	{Name: "search_web", Parameters: json.RawMessage(`{"type": "object", "properties": {
		"query": {"type": "string"},
		"filters": {"type": "object", "properties": {"site": {"type": "string"}, "safe": {"type": "boolean"}}, "required": ["site"]},
		"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
		"required": ["query", "filters"]}`)},
}

// jsonVocab is the qwen2 vocabulary plus every JSON family's markers as
// tokens and an EOS token; structural lists the tokens that help a random
// walk finish (quotes, brackets, markers, digits, short tokens).
type jsonVocab struct {
	v          *constrain.Vocab
	eos        int32
	structural []int32
	markers    map[string]int32 // the added marker tokens
}

var (
	jsonVocabOnce sync.Once
	jsonVocabVal  *jsonVocab
	jsonVocabErr  error
)

func jsonLoadVocab(t testing.TB) *jsonVocab {
	t.Helper()
	qwen2 := qwen2Tokens(t)
	jsonVocabOnce.Do(func() {
		toks := append([][]byte(nil), qwen2...)
		firstMarker := len(toks)
		for _, f := range jsonFamilies() {
			jf, ok := jsonUnwrap(f)
			if !ok {
				continue
			}
			for _, m := range append(jf.holdMarkers(), jf.grammar.open, jf.grammar.close, jf.grammar.sep, jf.grammar.textPrefix) {
				if m != "" {
					toks = append(toks, []byte(m))
				}
			}
		}
		toks = append(toks, []byte(`{"name": "`)) // llama3's call start
		toks = append(toks, []byte("<|test_eos|>"))
		eos := int32(len(toks) - 1)
		v, err := constrain.NewVocab(toks, []int32{eos})
		if err != nil {
			jsonVocabErr = err
			return
		}
		jv := &jsonVocab{v: v, eos: eos, markers: map[string]int32{}}
		for id := firstMarker; id < int(eos); id++ {
			jv.markers[string(toks[id])] = int32(id)
		}
		for id, b := range toks[:eos] {
			if len(b) > 0 && len(b) <= 3 && bytes.ContainsAny(b, "\"{}[],:0123456789") && len(bytes.TrimSpace(b)) > 0 {
				jv.structural = append(jv.structural, int32(id))
			}
		}
		jsonVocabVal = jv
	})
	require.NoError(t, jsonVocabErr)
	return jsonVocabVal
}

// jsonWalk samples random allowed tokens of g until EOS or done (at most
// maxTokens); half of the picks come from the structural tokens, so that
// strings and objects close. It returns the text and whether it finished.
//
// A quarter of the picks prefer the format's own call markers (prefer), so
// that text gives way to calls.
func jsonWalk(t testing.TB, jv *jsonVocab, g *constrain.Grammar, rng *rand.Rand, maxTokens int, pEOS float64, prefer []int32) (string, bool) {
	among := func(s *walkStep, ids []int32) int32 {
		var cands []int32
		for _, id := range ids {
			if s.has(id) {
				cands = append(cands, id)
			}
		}
		if len(cands) == 0 {
			return -1
		}
		return cands[rng.IntN(len(cands))]
	}
	return walkGrammar(t, g, jv.v, maxTokens, func(s *walkStep) (int32, bool) {
		if s.eos && rng.Float64() < pEOS {
			return 0, true
		}
		var pick int32 = -1
		if rng.IntN(4) == 0 {
			pick = among(s, prefer)
		}
		if pick < 0 && rng.IntN(2) == 0 {
			pick = among(s, jv.structural)
		}
		if pick < 0 {
			n := s.count()
			if n == 0 {
				return 0, true
			}
			pick = s.nth(rng.IntN(n))
		}
		return pick, false
	})
}

// jsonCheckGrammar compiles the format's grammars for the two test tools
// in every mode and checks random walks: every finished sample parses,
// CallsOnly gives calls, TextOnly none, and every call's arguments
// validate against the tool's schema.
func jsonCheckGrammar(t *testing.T, name string) {
	t.Parallel()
	f, err := Lookup(name)
	require.NoError(t, err)
	jv := jsonLoadVocab(t)
	var prefer []int32
	if jf, ok := jsonUnwrap(f); ok {
		for _, m := range append(append([]string(nil), jf.opens...), jf.grammar.open, jf.grammar.textPrefix, jf.grammar.textCallsSep, `{"name": "`) {
			if id, ok := jv.markers[m]; ok && m != "" {
				prefer = append(prefer, id)
			}
		}
	}
	schemas := toolSchemas(t, jsonGrammarTools)
	modes := []struct {
		name string
		opts GrammarOptions
	}{
		{"CallsOnly", GrammarOptions{Mode: CallsOnly, Tools: jsonGrammarTools}},
		{"CallsOnlyParallel", GrammarOptions{Mode: CallsOnly, Tools: jsonGrammarTools, Parallel: true}},
		{"TextOrCalls", GrammarOptions{Mode: TextOrCalls, Tools: jsonGrammarTools, Parallel: true}},
		{"TextOnly", GrammarOptions{Mode: TextOnly, Tools: jsonGrammarTools}},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			g, err := Grammar(f, mode.opts)
			require.NoError(t, err)
			finished, withCalls := 0, 0
			seeds := uint64(24) // TextOrCalls needs them all to see a call (llama3)
			for seed := uint64(0); seed < seeds; seed++ {
				rng := rand.New(rand.NewPCG(seed, 7))
				text, done := jsonWalk(t, jv, g, rng, 1500, 0.3, prefer)
				if !done {
					continue
				}
				finished++
				p, err := f.Parse(text)
				require.NoError(t, err, "sample %q", text)
				switch mode.opts.Mode {
				case CallsOnly:
					require.NotEmpty(t, p.Calls, "sample %q", text)
					if !mode.opts.Parallel {
						require.Len(t, p.Calls, 1, "sample %q", text)
					}
				case TextOnly:
					require.Empty(t, p.Calls, "sample %q", text)
				}
				if len(p.Calls) > 0 {
					withCalls++
				}
				for _, c := range p.Calls {
					requireValidArgs(t, schemas, jv.v, c, text)
				}
			}
			require.GreaterOrEqual(t, finished, int(seeds)/2, "too few random walks finished")
			switch mode.opts.Mode {
			case CallsOnly:
				require.Equal(t, finished, withCalls)
			case TextOrCalls:
				require.Positive(t, withCalls, "no random walk of TextOrCalls wrote a call")
			}
		})
	}
	// No tools: TextOrCalls is text; CallsOnly cannot be forced.
	_, err = Grammar(f, GrammarOptions{Mode: CallsOnly})
	require.ErrorIs(t, err, ErrNoGrammar)
	_, err = Grammar(f, GrammarOptions{Mode: TextOrCalls})
	require.NoError(t, err)
}
