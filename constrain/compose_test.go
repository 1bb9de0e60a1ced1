package constrain

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accepts reports whether the whole of s is a sentence of g.
func accepts(g *Grammar, v *Vocab, s string) bool {
	m := g.NewMatcher(v)
	return m.AcceptBytes([]byte(s)) == nil && m.Accepting()
}

func TestTextWithout(t *testing.T) {
	v := testVocab(t)
	stops := []string{"<tool_call>", "<｜tool▁calls▁begin｜>", "[TOOL_CALLS]"}
	g, err := Compose(TextWithout(stops...))
	require.NoError(t, err)
	for _, s := range []string{"", "plain text", "<tool", "<tool_cal", "a < b", "<｜tool▁calls", "中文 😀", "[TOOL_CALL]", "<<tool_call"} {
		assert.True(t, accepts(g, v, s), "%q", s)
	}
	for _, s := range []string{"<tool_call>", "x<tool_call>", "<<tool_call>", "see <｜tool▁calls▁begin｜>", "[TOOL_CALLS]", "\xff", "\xed\xa0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80", "ab\xc3"} {
		assert.False(t, accepts(g, v, s), "%q", s)
	}
	// Property: random generations are valid UTF-8 and avoid every stop.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		gen := sampleRandom(t, g, v, rng, 40, 0.05)
		if gen.eos {
			require.True(t, utf8.Valid(gen.text), "%q", gen.text)
		}
		for _, s := range stops {
			require.NotContains(t, string(gen.text), s)
		}
	}
}

func TestComposeToolCall(t *testing.T) {
	v := testVocab(t)
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string"},"days":{"$ref":"#/$defs/n"}},"required":["city"],"$defs":{"n":{"type":"integer","minimum":1,"maximum":7}}}`)
	opts := JSONOptions{Whitespace: WhitespaceSpaced}
	call := Sequence(Literal("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "), JSONValue(schema, "", opts), Literal("}\n</tool_call>"))
	g, err := Compose(Sequence(TextWithout("<tool_call>"), Repeat(call, 1, 2)))
	require.NoError(t, err)
	assert.True(t, accepts(g, v, "Sure.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>"))
	assert.False(t, accepts(g, v, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 9}}\n</tool_call>"))
	assert.False(t, accepts(g, v, "no call"))

	// A property schema compiled on its own still resolves $refs.
	days, err := Compose(JSONValue(schema, "/properties/days", opts))
	require.NoError(t, err)
	assert.True(t, accepts(days, v, "7"))
	assert.False(t, accepts(days, v, "8"))
	assert.False(t, accepts(days, v, `"7"`))

	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		gen := sampleRandom(t, g, v, rng, 200, 0)
		if !gen.eos {
			continue
		}
		text := string(gen.text)
		i := strings.Index(text, "<tool_call>\n")
		require.GreaterOrEqual(t, i, 0, text)
		body := strings.TrimSuffix(strings.SplitN(text[i+len("<tool_call>\n"):], "\n</tool_call>", 2)[0], "")
		var w struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &w), text)
		assert.Equal(t, "get_weather", w.Name)
		assert.Contains(t, w.Arguments, "city")
	}
}

func TestComposeErrors(t *testing.T) {
	_, err := Compose(TextWithout(""))
	require.ErrorIs(t, err, ErrInvalid)
	_, err = Compose(JSONValue([]byte(`{"type":"object"}`), "/properties/x", JSONOptions{}))
	require.ErrorIs(t, err, ErrInvalid)
	_, err = Compose(Repeat(Literal("a"), 2, 1))
	require.ErrorIs(t, err, ErrInvalid)
	_, err = Compose(JSONValue([]byte(`{`), "", JSONOptions{}))
	require.Error(t, err)
}
