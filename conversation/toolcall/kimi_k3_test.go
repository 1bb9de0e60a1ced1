package toolcall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKimiK3RoundTrip(t *testing.T) {
	f := kimiK3()
	for _, content := range []any{"", "Let me check."} {
		c := taggedCase{template: "Kimi-K3.jinja", content: content}
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestKimiK3Reasoning(t *testing.T) {
	f := kimiK3()
	reply := "I should look it up.<|close|>think<|sep|><|open|>response<|sep|>Looking.<|close|>response<|sep|>" +
		`<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>3<|close|>argument<|sep|>` +
		`<|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|>` +
		`<|open|>call tool="a&quot;b" index="2"<|sep|><|open|>json type="object"<|sep|>{"x": [1]}<|close|>json<|sep|><|close|>call<|sep|>` +
		"<|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	require.Equal(t, "I should look it up.", got.Reasoning)
	require.Equal(t, "Looking.", got.Content)
	require.Equal(t, []Call{
		{Name: "get_weather", Arguments: []byte(`{"city":"3","days":3}`)},
		{Name: `a"b`, Arguments: []byte(`{"x": [1]}`)},
	}, got.Calls)
	taggedCheckStreaming(t, f, reply)

	// Thinking off: the prompt opened the response.
	got, err = f.Parse("Just text.<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>")
	require.NoError(t, err)
	require.Equal(t, Parsed{Content: "Just text."}, got)
}

func TestKimiK3Grammar(t *testing.T) { taggedGrammarWalk(t, kimiK3()) }

func TestKimiK3Malformed(t *testing.T) {
	pre := "<|close|>think<|sep|><|open|>response<|sep|>Hi.<|close|>response<|sep|>"
	taggedCheckMalformed(t, kimiK3(), []taggedBad{
		{reply: pre + `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>x`, at: `<|open|>call`, content: "Hi."},
		{reply: pre + `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>three<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`, at: "three", content: "Hi."},
		{reply: pre + `<|open|>tools<|sep|><|open|>call index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`, at: `<|open|>call`, content: "Hi."},
		{reply: pre + `<|open|>tools<|sep|>junk<|close|>tools<|sep|>`, at: "junk", content: "Hi."},
	})
}
