package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var lfm2Markers = []string{"<|tool_call_start|>", "<|tool_call_end|>", "<|im_end|>"}

func TestLFM2RoundTrip(t *testing.T) {
	tt := otherLoadTemplate(t, "LFM2.5-8B-A1B")
	f := lfm2Format()
	parts := otherRoundTrip(t, f, tt, nil, 0)
	for _, part := range parts {
		checkStreaming(t, f, part, lfm2Markers)
	}
	// Text before the calls, and reasoning the thinking wrapper reads.
	got, _ := otherCheckContentCalls(t, f, tt, "Let me check.", otherCallSets()[0], lfm2Markers)
	assert.Equal(t, "Let me check.", got.Content)
}

// LFM2-8B-A1B and LFM2.5-Instruct do not render tool_calls: the model's
// calls stay in the message content as it wrote them, in the same syntax.
func TestLFM2CallsInContent(t *testing.T) {
	f := lfm2Format()
	for _, name := range []string{"LFM2-8B-A1B", "LFM2.5-Instruct"} {
		tt := otherLoadTemplate(t, name)
		part, err := otherRenderCalls(t, tt, nil, "", otherCallSets()[0])
		require.NoError(t, err)
		assert.NotContains(t, part, "get_weather", "%s renders no tool calls", name)
		written := `<|tool_call_start|>[get_weather(city="Zürich 東京 😀", days=3)]<|tool_call_end|>`
		part = otherRenderAnswer(t, tt, nil, written, "")
		got, err := f.Parse(part)
		require.NoError(t, err)
		requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", part)
		checkStreaming(t, f, part, lfm2Markers)
	}
}

func TestPythonLiterals(t *testing.T) {
	f := lfm2Format()
	cases := map[string]string{
		`f(a=1, b="x")`: `{"a":1,"b":"x"}`,
		`f(s='it\'s "q" \\ \n\t\x41\u00fc\U0001F600', t="\d")`:        `{"s":"it's \"q\" \\ \n\tAü😀","t":"\\d"}`,
		`f(a=True, b=False, c=None, d=true, e=null)`:                  `{"a":true,"b":false,"c":null,"d":true,"e":null}`,
		`f(a=[1, 'x', [2.5, -3]], b={'k': None, "n": {'m': (1, 2)}})`: `{"a":[1,"x",[2.5,-3]],"b":{"k":null,"n":{"m":[1,2]}}}`,
		`f(a=1e3, b=-0.5, c=+2, d=1_000, e='''tri"ple''')`:            `{"a":1e3,"b":-0.5,"c":2,"d":1000,"e":"tri\"ple"}`,
		`f()`:           `{}`,
		`f(a=[1, 2,],)`: `{"a":[1,2]}`,
		`ns.f-x(a='')`:  `{"a":""}`,
	}
	for src, want := range cases {
		p, err := f.Parse("<|tool_call_start|>[" + src + "]<|tool_call_end|>")
		require.NoError(t, err, src)
		require.Len(t, p.Calls, 1, src)
		assert.JSONEq(t, want, string(p.Calls[0].Arguments), src)
		assert.True(t, json.Valid(p.Calls[0].Arguments))
	}
}

func TestLFM2Malformed(t *testing.T) {
	otherCheckMalformed(t, lfm2Format(), []otherMalformed{
		{reply: `Hi <|tool_call_start|>[get_weather(city="Paris"`, offset: -1, content: "Hi"},
		{reply: `<|tool_call_start|>[get_weather(city="Paris)]<|tool_call_end|>`, offset: -1},
		{reply: `<|tool_call_start|>[get_weather("Paris")]<|tool_call_end|>`, offset: 32},
		{reply: `<|tool_call_start|>[get_weather(city=Paris)]<|tool_call_end|>`, offset: 37},
		{reply: `<|tool_call_start|>[get_weather(city=1) x]<|tool_call_end|>`, offset: 40},
		{reply: `<|tool_call_start|>{"name": "f"}<|tool_call_end|>`, offset: 19},
		{reply: `<|tool_call_start|><|tool_call_end|>`, offset: -1},
	})
}

func TestLFM2Grammar(t *testing.T) {
	otherCheckGrammar(t, lfm2Format(), lfm2Markers)
}

// Gemma 3 has no template of its own for tools; the syntax is the one its
// documentation gives: ```tool_code blocks of Python calls.
func TestGemma3Parse(t *testing.T) {
	f := gemma3Format()
	reply := "I'll look it up.\n```tool_code\nget_weather(city=\"Zürich 東京 😀\", days=3)\n```<end_of_turn>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "I'll look it up.", got.Content)
	requireCalls(t, otherCallSets()[0], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, []string{"```tool_code", "<end_of_turn>"})

	three := otherCallSets()[1]
	for _, reply := range []string{
		"```tool_code\nget_weather(city='São Paulo \"SP\" \\\\ 東京', days=10)\nsearch_docs(query='emoji 😀 and \"quotes\"', limit=-2, exact=False, tags=['a', 'b c'], filter={'lang': 'en', 'since': {'year': 2024}})\nget_weather(city=\"Oslo\", days=0)\n```",
		"```tool_code\n[get_weather(city='São Paulo \"SP\" \\\\ 東京', days=10), search_docs(query='emoji 😀 and \"quotes\"', limit=-2, exact=False, tags=['a', 'b c'], filter={'lang': 'en', 'since': {'year': 2024}}), get_weather(city=\"Oslo\", days=0)]\n```<end_of_turn>\n",
	} {
		got, err := f.Parse(reply)
		require.NoError(t, err, reply)
		requireCalls(t, three, got.Calls, "calls of %q", reply)
		checkStreaming(t, f, reply, []string{"```tool_code", "<end_of_turn>"})
	}
}

func TestGemma3Malformed(t *testing.T) {
	otherCheckMalformed(t, gemma3Format(), []otherMalformed{
		{reply: "Sure.\n```tool_code\nget_weather(city=\"Paris\"\n```", offset: -1, content: "Sure."},
		{reply: "```tool_code\nprint 'x'\n```", offset: 13},
		{reply: "```tool_code\nget_weather(city=[1, 2)\n```", offset: -1},
	})
}

func TestGemma3Grammar(t *testing.T) {
	otherCheckGrammar(t, gemma3Format(), []string{"```tool_code", "```", "<end_of_turn>"})
}
