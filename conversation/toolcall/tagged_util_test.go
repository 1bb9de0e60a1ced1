package toolcall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/template"
)

// taggedTemplateDir is where the real chat templates live (read-only).
const taggedTemplateDir = "../../../shared/testdata/templates"

// taggedTemplateInfo is one entry of templates.json.
type taggedTemplateInfo struct {
	Template string  `json:"template"`
	BOS      *string `json:"bos_token"`
	EOS      *string `json:"eos_token"`
}

// taggedTemplate reads a template and its special tokens, or skips.
func taggedTemplate(t testing.TB, name string) (*template.Template, string, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(taggedTemplateDir, name))
	if err != nil {
		t.Skipf("template %s not available (%v): the shared test data is missing", name, err)
	}
	raw, err := os.ReadFile(filepath.Join(taggedTemplateDir, "templates.json"))
	if err != nil {
		t.Skipf("templates.json not available (%v)", err)
	}
	var infos []taggedTemplateInfo
	require.NoError(t, json.Unmarshal(raw, &infos))
	bos, eos := "", ""
	for _, in := range infos {
		if in.Template == name {
			if in.BOS != nil {
				bos = *in.BOS
			}
			if in.EOS != nil {
				eos = *in.EOS
			}
		}
	}
	tmpl, err := template.Parse(string(src))
	require.NoError(t, err, name)
	return tmpl, bos, eos
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

// taggedCheckStreaming feeds every byte prefix of reply to ParsePartial
// and checks the streaming invariants against the final Parse.
func taggedCheckStreaming(t testing.TB, f Format, reply string) {
	t.Helper()
	final, err := f.Parse(reply)
	require.NoError(t, err)
	markers := taggedFormatMarkers(f)
	var prev Partial
	for i := 0; i <= len(reply); i++ {
		p := f.ParsePartial(reply[:i])
		require.True(t, strings.HasPrefix(final.Content, p.Content), "prefix %d %q: content %q not a prefix of %q", i, reply[:i], p.Content, final.Content)
		require.True(t, strings.HasPrefix(final.Reasoning, p.Reasoning), "prefix %d %q: reasoning %q not a prefix of %q", i, reply[:i], p.Reasoning, final.Reasoning)
		require.True(t, strings.HasPrefix(p.Content, prev.Content), "prefix %d: content shrank from %q to %q", i, prev.Content, p.Content)
		require.True(t, strings.HasPrefix(p.Reasoning, prev.Reasoning), "prefix %d: reasoning shrank", i)
		for _, m := range markers {
			require.NotContains(t, p.Content, m, "prefix %d", i)
		}
		require.LessOrEqual(t, len(p.Calls), len(final.Calls), "prefix %d", i)
		require.GreaterOrEqual(t, len(p.Calls), len(prev.Calls), "prefix %d", i)
		for k, c := range p.Calls {
			require.Equal(t, final.Calls[k], c, "prefix %d call %d", i, k)
		}
		if p.Pending != nil {
			k := len(p.Calls)
			require.Less(t, k, len(final.Calls), "prefix %d %q: pending call beyond the final calls", i, reply[:i])
			if p.Pending.Name != "" {
				require.Equal(t, final.Calls[k].Name, p.Pending.Name, "prefix %d", i)
			}
			require.True(t, strings.HasPrefix(string(final.Calls[k].Arguments), string(p.Pending.Arguments)),
				"prefix %d %q: pending arguments %q not a prefix of %q", i, reply[:i], p.Pending.Arguments, final.Calls[k].Arguments)
		}
		prev = p
	}
	require.Equal(t, final.Content, prev.Content)
	require.Equal(t, final.Calls, prev.Calls)
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
