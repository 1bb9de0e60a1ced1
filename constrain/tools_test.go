package constrain

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testTools = []Tool{
	{Name: "get_weather", Parameters: []byte(testSchemas["weather"])},
	{Name: "search", Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string","maxLength":12},"limit":{"type":"integer","minimum":1,"maximum":5}},"required":["query"]}`)},
	{Name: "now"},
}

// checkToolCall validates one call object against testTools.
func checkToolCall(t *testing.T, obj []byte, argKey string) {
	t.Helper()
	v, err := parseJSON(obj)
	require.NoError(t, err, "call %q", obj)
	require.Equal(t, jObject, v.kind)
	require.Equal(t, []string{"name", argKey}, v.keys, "call %q", obj)
	name := v.get("name").str
	for _, tool := range testTools {
		if tool.Name != name {
			continue
		}
		params := tool.Parameters
		if params == nil {
			params = []byte(`{"type":"object"}`)
		}
		s, err := parseJSON(params)
		require.NoError(t, err)
		require.NoError(t, validate(s, s, v.get(argKey), ""), "call %q", obj)
		return
	}
	t.Fatalf("unknown tool %q in %q", name, obj)
}

func TestToolCallsHermes(t *testing.T) {
	v := testVocab(t)
	for _, mode := range []ToolMode{ToolCallsOnly, TextOrToolCalls} {
		g, err := ToolCalls(ToolFormatHermes, testTools, mode)
		require.NoError(t, err)
		calls := 0
		for seed := uint64(0); seed < 40; seed++ {
			gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 9)), 5000, 0.3)
			require.True(t, gen.eos || gen.steps < 5000, "generation ends")
			out := string(gen.text)
			i := strings.Index(out, "<tool_call>")
			if mode == ToolCallsOnly {
				require.Equal(t, 0, i, "output %q", out)
			}
			if i < 0 {
				continue // text only
			}
			require.NotContains(t, out[:i], "<tool_call>")
			for _, block := range strings.Split(out[i:], "\n</tool_call>") {
				if block == "" {
					continue
				}
				block = strings.TrimPrefix(block, "\n")
				require.True(t, strings.HasPrefix(block, "<tool_call>\n"), "block %q in %q", block, out)
				checkToolCall(t, []byte(strings.TrimPrefix(block, "<tool_call>\n")), "arguments")
				calls++
			}
		}
		if mode == ToolCallsOnly {
			assert.GreaterOrEqual(t, calls, 40, "every generation has at least one call")
		}
	}
}

func TestToolCallsLlama3AndTextOnly(t *testing.T) {
	v := testVocab(t)
	g, err := ToolCalls(ToolFormatLlama3JSON, testTools, ToolCallsOnly)
	require.NoError(t, err)
	for seed := uint64(0); seed < 30; seed++ {
		gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 4)), 5000, 0.5)
		require.True(t, gen.eos || gen.steps < 5000)
		checkToolCall(t, gen.text, "parameters")
	}
	g, err = ToolCalls(ToolFormatLlama3JSON, testTools, TextOrToolCalls)
	require.NoError(t, err)
	for seed := uint64(0); seed < 30; seed++ {
		gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 4)), 5000, 0.3)
		if strings.HasPrefix(string(gen.text), "{") {
			checkToolCall(t, gen.text, "parameters")
		} else {
			assert.NotContains(t, string(gen.text), `{"name"`)
		}
	}
	g, err = ToolCalls(ToolFormatHermes, nil, TextOnly)
	require.NoError(t, err)
	m := g.NewMatcher(v)
	require.NoError(t, m.AcceptBytes([]byte("Hello <tool and _call> are fine, 中文")))
	assert.True(t, m.Accepting())
	assert.Error(t, m.AcceptBytes([]byte("<tool_call>")))
	mask := make([]uint64, v.MaskWords())
	m.FillMask(mask)
	id := tokenID(t, v, "<tool_call>")
	assert.Zero(t, mask[id>>6]&(1<<(uint(id)&63)), "<tool_call> token is masked in text")
}

func TestToolCallsErrors(t *testing.T) {
	_, err := ToolCalls(ToolFormatHermes, nil, ToolCallsOnly)
	assert.True(t, errors.Is(err, ErrInvalid))
	_, err = ToolCalls(ToolFormatHermes, []Tool{{Name: "a"}, {Name: "a"}}, ToolCallsOnly)
	assert.True(t, errors.Is(err, ErrInvalid))
	_, err = ToolCalls(ToolFormatHermes, []Tool{{Name: "a", Parameters: []byte(`{"type":"object","properties":{"x":{"type":"array","uniqueItems":true}}}`)}}, ToolCallsOnly)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnsupported))
	var ce *CompileError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "/0/parameters/properties/x/uniqueItems", ce.Pointer)
}

func TestToolCallsQwenVocab(t *testing.T) {
	v := qwenToolVocab(t)
	g, err := ToolCalls(ToolFormatQwen, testTools, ToolCallsOnly)
	require.NoError(t, err)
	m := g.NewMatcher(v)
	mask := make([]uint64, v.MaskWords())
	m.FillMask(mask)
	var allowed []string
	for w, bits := range mask {
		for bits != 0 {
			id := int32(w*64 + trailingZeros(bits))
			bits &= bits - 1
			allowed = append(allowed, string(v.TokenBytes(id)))
		}
	}
	assert.Contains(t, allowed, "<tool_call>", "the added token <tool_call> is allowed as one token")
	assert.Contains(t, allowed, "<")
	for seed := uint64(0); seed < 3; seed++ {
		gen := sampleRandom(t, g, v, rand.New(rand.NewPCG(seed, 1)), 1500, 0.5)
		if !gen.eos && gen.steps >= 1500 {
			continue
		}
		out := string(gen.text)
		require.True(t, strings.HasPrefix(out, "<tool_call>\n"), out)
		first := strings.TrimPrefix(out, "<tool_call>\n")
		first = first[:strings.Index(first, "\n</tool_call>")]
		checkToolCall(t, []byte(first), "arguments")
	}
}
