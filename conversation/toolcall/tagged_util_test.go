package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/template"
)

// taggedTemplate reads a template and its special tokens, or skips.
func taggedTemplate(t testing.TB, name string) (*template.Template, string, string) {
	t.Helper()
	tt := loadTemplate(t, name)
	bos, eos := "", ""
	if tt.BOS != nil {
		bos = *tt.BOS
	}
	if tt.EOS != nil {
		eos = *tt.EOS
	}
	return tt.template, bos, eos
}

// taggedTools are the tools of the round-trip histories.
var taggedTestTools = []any{
	map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "Get the current weather for a location.",
		"parameters": json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["location"]}`),
	}},
	map[string]any{"type": "function", "function": map[string]any{
		"name": "search_notes", "description": "Search notes.",
		"parameters": json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"exact":{"type":"boolean"},"filter":{"type":"object","properties":{"owner":{"type":"string"},"limit":{"type":"integer"}}}},"required":["query"]}`),
	}},
}

// taggedCall is one call of a round-trip history.
type taggedCall struct {
	Name string
	Args string // JSON object
}

var (
	taggedOneCall    = []taggedCall{{"get_weather", `{"location":"Paris","unit":"celsius"}`}}
	taggedThreeCalls = []taggedCall{
		{"get_weather", `{"location":"Zürich 東京 😀","days":3}`},
		{"search_notes", `{"query":"say \"hi\" to C:\\temp\\new","tags":["a","b c"],"exact":true,"filter":{"owner":"me","limit":5}}`},
		{"get_weather", `{"location":"Berlin","unit":"fahrenheit"}`},
	}
)

// taggedRender renders a history with an assistant turn holding calls
// (and content) and returns the assistant part: the render of the history
// with that turn minus the render of the history with a generation prompt.
// ok is false when the template raises for this history.
func taggedRender(t testing.TB, name string, content any, calls []taggedCall, o taggedRenderOpts) (reply string, ok bool) {
	t.Helper()
	tmpl, bos, eos := taggedTemplate(t, name)
	kwargs := o.Kwargs
	history := []any{
		map[string]any{"role": "system", "content": "You are a helpful assistant."},
		map[string]any{"role": "user", "content": "What's the weather, and find my notes."},
	}
	var tcs []any
	for i, c := range calls {
		var args any = json.RawMessage(c.Args)
		if o.StringArgs {
			args = c.Args
		}
		tcs = append(tcs, map[string]any{"id": "call0000" + string(rune('1'+i)), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": args}})
	}
	asst := map[string]any{"role": "assistant", "content": content}
	if len(tcs) > 0 {
		asst["tool_calls"] = tcs
	}
	if kwargs == nil {
		kwargs = map[string]any{}
	}
	render := func(msgs []any, gen bool) (string, error) {
		var tools any = taggedTestTools
		if o.NoTools {
			tools = nil
		}
		req := map[string]any{"messages": msgs, "tools": tools, "add_generation_prompt": gen,
			"bos_token": bos, "eos_token": eos, "kwargs": kwargs}
		b, err := json.Marshal(req)
		require.NoError(t, err)
		return tmpl.RenderJSON(context.Background(), b)
	}
	base, err := render(history, false)
	require.NoError(t, err, name)
	prompt, err := render(history, true)
	require.NoError(t, err, name)
	full, err := render(append(append([]any{}, history...), asst), false)
	if err != nil {
		t.Logf("%s: the template raises for this history: %v", name, err)
		return "", false
	}
	require.True(t, strings.HasPrefix(full, base) && strings.HasPrefix(prompt, base), "%s: history render is not a prefix", name)
	gen, turn := prompt[len(base):], full[len(base):]
	if strings.HasPrefix(turn, gen) {
		return turn[len(gen):], true
	}
	// The generation prompt opens something the stored turn does not
	// (a reasoning block, say): cut the part both share, backed off to a
	// character boundary and to before any marker they only partly share.
	i := 0
	for i < len(gen) && i < len(turn) && gen[i] == turn[i] {
		i++
	}
	for i > 0 && !utf8.RuneStart(turn[i]) {
		i--
	}
	if lt := strings.LastIndexByte(turn[:i], '<'); lt >= 0 && strings.IndexByte(turn[lt:i], '>') < 0 {
		i = lt
	}
	// What the generation prompt opens and the turn closes (an empty
	// reasoning block's end, say) is not the model's either.
	rest := turn[i:]
	for j := i; j < len(gen); j++ {
		if strings.HasPrefix(rest, gen[j:]) {
			rest = rest[len(gen)-j:]
			break
		}
	}
	t.Logf("%s: the generation prompt %q is not a prefix of the turn; cut %q", name, gen, turn[:len(turn)-len(rest)])
	return rest, true
}

// taggedRenderOpts adapts a render to what a template accepts.
type taggedRenderOpts struct {
	Kwargs     map[string]any
	StringArgs bool // arguments as a JSON string, not an object
	NoTools    bool // render without tools (the template cannot render them)
}

// taggedCase is one template a format must round-trip.
type taggedCase struct {
	template string
	opts     taggedRenderOpts
	// noParallel: the template cannot render several calls (it raises,
	// or renders them so no model would: a second section after the end
	// of the turn); then only one call is checked.
	noParallel bool
	// content: the assistant text rendered with the calls (nil: null).
	content any
	// thinking: the reasoning markup Detect finds for the template; the
	// format is read through WithThinking, as Detect returns it.
	thinking Thinking
}

// taggedFormatMarkers lists the markers a format never shows as text.
func taggedFormatMarkers(f Format) []string {
	switch x := f.(type) {
	case interface{ Unwrap() Format }:
		return append(taggedFormatMarkers(x.Unwrap()), x.(interface{ Thinking() Thinking }).Thinking().Open)
	case *taggedFormat:
		return x.spec.markers()
	case *taggedTypedFormat:
		return x.spec.markers()
	}
	return nil
}

// taggedJSONEqual asserts two JSON texts hold the same value.
func taggedJSONEqual(t testing.TB, want, got string, msg ...any) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal([]byte(want), &w), msg...)
	require.NoError(t, json.Unmarshal([]byte(got), &g), "arguments %s: %v", got, msg)
	require.Equal(t, w, g, msg...)
}

// taggedRoundTrip renders one and three calls through the template and
// checks that the format parses them back, whole and streamed. It returns
// the replies (fuzz seeds).
func taggedRoundTrip(t *testing.T, f Format, c taggedCase) []string {
	t.Helper()
	var replies []string
	f = WithThinking(f, c.thinking)
	sets := [][]taggedCall{taggedOneCall, taggedThreeCalls}
	if c.noParallel {
		sets = sets[:1]
	}
	for _, calls := range sets {
		reply, ok := taggedRender(t, c.template, c.content, calls, c.opts)
		require.True(t, ok, "%s: the template raises for %d call(s)", c.template, len(calls))
		replies = append(replies, reply)
		got, err := f.Parse(reply)
		require.NoError(t, err, "%s: reply %q", c.template, reply)
		require.Len(t, got.Calls, len(calls), "%s: reply %q", c.template, reply)
		for i, want := range calls {
			require.Equal(t, want.Name, got.Calls[i].Name, "%s call %d", c.template, i)
			taggedJSONEqual(t, want.Args, string(got.Calls[i].Arguments), c.template, i)
		}
		if s, ok := c.content.(string); ok {
			require.Equal(t, s, got.Content, "%s: content of %q", c.template, reply)
		} else {
			require.Empty(t, got.Content, "%s: content of %q", c.template, reply)
		}
		taggedCheckStreaming(t, f, reply)
	}
	return replies
}

// taggedCheckStreaming is checkStreaming with the tagged families'
// markers; their whole reply also shows the final content and every call
// complete.
func taggedCheckStreaming(t testing.TB, f Format, reply string) {
	t.Helper()
	p := checkStreaming(t, f, reply, taggedFormatMarkers(f))
	final, err := f.Parse(reply)
	require.NoError(t, err)
	require.Equal(t, final.Content, p.Content)
	require.Equal(t, final.Calls, p.Calls)
}

// taggedGrammarTools are taggedTestTools as Tools: a required string, an
// integer with bounds, an enum, an array, a boolean and a nested object.
var taggedGrammarTools = func() []Tool {
	var out []Tool
	for _, t := range taggedTestTools {
		fn := t.(map[string]any)["function"].(map[string]any)
		out = append(out, Tool{Name: fn["name"].(string), Parameters: fn["parameters"].(json.RawMessage)})
	}
	return out
}()

// taggedMarkerTokens are the special tokens of the tagged families, added
// to the test vocabulary as the models have them.
var taggedMarkerTokens = []string{
	dsCallsBegin, dsCallsEnd, dsCallBegin, dsCallEnd, dsSep, dsEOS, dsAssistant,
	"<｜DSML｜", "｜DSML｜", "<｜DSML｜function_calls>", "<｜DSML｜tool_calls>", "</｜DSML｜parameter>", "</｜DSML｜invoke>",
	kimiSectionBegin, kimiSectionEnd, kimiCallBegin, kimiCallEnd, kimiArgBegin, kimiEOT,
	k3Open, k3Close, k3Sep, k3EOT,
	"<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>",
	"<seed:tool_call>", "</seed:tool_call>", "<seed:eos>",
	"<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|user|>", "<|observation|>",
	"<minimax:tool_call>", "</minimax:tool_call>", "<invoke name=\"", "</invoke>", "<parameter name=\"", "[e~[",
	m3NS, "<think>", "</think>", "<|im_end|>",
	// Closing markers, so that random walks close blocks in a few steps.
	"</｜DSML｜function_calls>", "</｜DSML｜tool_calls>", "</seed:tool_call>", k3ThinkClose + k3RespOpen, k3RespClose,
	k3ArgClose, k3CallClose, k3ToolsClose, k3MsgClose, m3InvokeEnd, m3BlockClose, "\n</parameter>\n",
}

var (
	taggedVocabOnce sync.Once
	taggedVocabVal  *constrain.Vocab
	taggedVocabErr  error
	taggedCloser    []int8 // 2: a marker token, 1: a token with a closing character
)

// taggedVocab is the qwen2 vocabulary (all byte tokens included) plus the
// families' markers, and which tokens help close what is open.
func taggedVocab(t testing.TB) (*constrain.Vocab, []int8) {
	t.Helper()
	qwen2 := qwen2Tokens(t)
	taggedVocabOnce.Do(func() {
		taggedVocabVal, taggedCloser, taggedVocabErr = taggedMarkerVocab(qwen2)
	})
	require.NoError(t, taggedVocabErr)
	return taggedVocabVal, taggedCloser
}

// taggedByteVocab is all 256 single bytes plus the families' markers.
func taggedByteVocab(t testing.TB) (*constrain.Vocab, []int8) {
	t.Helper()
	v, closer, err := taggedMarkerVocab(byteTokens())
	require.NoError(t, err)
	return v, closer
}

// taggedMarkerVocab is base plus the families' markers and an EOS token,
// and which tokens help close what is open.
func taggedMarkerVocab(base [][]byte) (*constrain.Vocab, []int8, error) {
	toks := append([][]byte(nil), base...)
	for _, m := range taggedMarkerTokens {
		toks = append(toks, []byte(m))
	}
	eos := int32(len(toks))
	toks = append(toks, []byte("<|endoftext|>"))
	v, err := constrain.NewVocab(toks, []int32{eos})
	closer := make([]int8, len(toks))
	for i, b := range toks {
		switch {
		case i >= len(base):
			closer[i] = 2
		case bytes.ContainsAny(b, "\"}]>\n"):
			closer[i] = 1
		}
	}
	return v, closer, err
}

// taggedSample walks the grammar with random allowed tokens (often among
// the markers, or those that help close things) until EOS or the grammar
// is done. ok is false when it ran out of tokens first.
func taggedSample(t testing.TB, g *constrain.Grammar, v *constrain.Vocab, closer []int8, rng *rand.Rand, maxTokens int) (string, bool) {
	t.Helper()
	var closing, markers []int32
	return walkGrammar(t, g, v, maxTokens, func(s *walkStep) (int32, bool) {
		allowed := s.list()
		if s.eos && (len(allowed) == 0 || rng.Float64() < 0.2) {
			return 0, true
		}
		closing, markers = closing[:0], markers[:0]
		for _, id := range allowed {
			switch closer[id] {
			case 1:
				closing = append(closing, id)
			case 2:
				markers = append(markers, id)
			}
		}
		pick := allowed
		// The longer the walk, the more often a marker: the way out of raw
		// text values and free text.
		switch r := rng.Float64(); {
		case len(markers) > 0 && r < min(0.9, 0.3+float64(s.step)/1000):
			pick = markers
		case len(closing) > 0 && r < 0.6:
			pick = closing
		}
		return pick[rng.IntN(len(pick))], false
	})
}

// taggedGrammarWalk compiles the format's grammars for the test tools in
// every mode and checks random samples: they parse, CallsOnly gives calls,
// TextOnly none, and every call's arguments validate against its schema.
// The walks run over single bytes plus the markers, and (not in -short or
// -race runs, where they are slow) one call also over the real qwen2
// vocabulary.
func taggedGrammarWalk(t *testing.T, f Format) {
	v, closer := taggedByteVocab(t)
	taggedWalkModes(t, f, v, closer, []Mode{CallsOnly, TextOrCalls, TextOnly}, []bool{false, true}, 24)
	if !testing.Short() && !taggedRace {
		v, closer := taggedVocab(t)
		taggedWalkModes(t, f, v, closer, []Mode{CallsOnly}, []bool{false}, 6)
	}
}

func taggedWalkModes(t *testing.T, f Format, v *constrain.Vocab, closer []int8, modes []Mode, parallels []bool, seeds uint64) {
	schemas := toolSchemas(t, taggedGrammarTools)
	for _, mode := range modes {
		for _, parallel := range parallels {
			opts := GrammarOptions{Mode: mode, Tools: taggedGrammarTools, Parallel: parallel}
			g, err := Grammar(f, opts)
			require.NoError(t, err, "mode %d", mode)
			finished, calls := 0, 0
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(seed, uint64(mode)*2+map[bool]uint64{false: 0, true: 1}[parallel]))
				text, ok := taggedSample(t, g, v, closer, rng, 3000)
				if !ok {
					continue
				}
				finished++
				got, err := f.Parse(text)
				require.NoError(t, err, "mode %d sample %q", mode, text)
				if tp, ok := f.(TypedParser); ok {
					got, err = tp.ParseWithTools(text, taggedGrammarTools)
					require.NoError(t, err, "mode %d sample %q", mode, text)
				}
				switch mode {
				case CallsOnly:
					require.NotEmpty(t, got.Calls, "sample %q", text)
				case TextOnly:
					require.Empty(t, got.Calls, "sample %q", text)
				}
				if !parallel {
					require.LessOrEqual(t, len(got.Calls), 1, "sample %q", text)
				}
				for _, c := range got.Calls {
					requireValidArgs(t, schemas, v, c, text)
					calls++
				}
			}
			require.GreaterOrEqual(t, uint64(finished), seeds/2, "mode %d parallel %v: too few samples finished", mode, parallel)
			if mode == CallsOnly {
				require.Positive(t, calls)
			}
		}
	}
}

// taggedBad is a malformed reply: the error must point at the first
// occurrence of at (after skipping the first skip bytes), and the content
// before the call must survive.
type taggedBad struct {
	reply, at string
	content   string
}

// taggedCheckMalformed parses each bad reply and checks the error.
func taggedCheckMalformed(t *testing.T, f Format, cases []taggedBad) {
	t.Helper()
	for _, c := range cases {
		want := strings.Index(c.reply, c.at)
		require.GreaterOrEqual(t, want, 0, "anchor %q", c.at)
		_, tce := checkMalformed(t, f, c.reply, c.content, want)
		require.True(t, strings.HasPrefix(c.reply[tce.Offset:], tce.Text), "error text %q", tce.Text)
		// Streaming shows no more than the content.
		p := f.ParsePartial(c.reply)
		require.True(t, strings.HasPrefix(c.content, p.Content), "partial %+v", p)
	}
}

func TestTaggedPython(t *testing.T) {
	for in, want := range map[string]string{
		"True": "true", "None": "null", "['a', \"b\", 1, -2.5]": `["a","b",1,-2.5]`,
		"{'k': (1, 2), 'n': {'x': False}}": `{"k":[1,2],"n":{"x":false}}`, "'it\\'s\\n'": `"it's\n"`, "[1, 2,]": "[1,2]",
	} {
		got, ok := taggedPython(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "Paris", "[1, 2", "{'a' 1}", "1 2", "[" + strings.Repeat("[", 300) + "]"} {
		_, ok := taggedPython(in)
		require.False(t, ok, in)
	}
}

func TestTaggedUntyped(t *testing.T) {
	for in, want := range map[string]string{
		"3": "3", " -1.5 ": "-1.5", "true": "true", "False": "false", "null": "null", "[1]": "[1]",
		"Paris": `"Paris"`, `"quoted"`: `"\"quoted\""`, "": `""`, " a b ": `" a b "`, "<b>": `"<b>"`, "007": `"007"`,
	} {
		require.Equal(t, want, taggedUntyped(in), in)
	}
}
