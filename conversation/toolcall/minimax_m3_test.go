package toolcall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMiniMaxM3RoundTrip(t *testing.T) {
	f := minimaxM3()
	for _, content := range []any{"", "Let me check."} {
		c := taggedCase{template: "MiniMax-M3.jinja", content: content, thinking: Thinking{Open: "<mm:think>", Close: "</mm:think>"}}
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestMiniMaxM3Types(t *testing.T) {
	f := minimaxM3()
	reply := "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"search_notes\">" +
		"]<]minimax[>[<query>3]<]minimax[>[</query>]<]minimax[>[<tags>]<]minimax[>[</tags>" +
		"]<]minimax[>[<filter>]<]minimax[>[<owner>me]<]minimax[>[</owner>]<]minimax[>[</filter>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>[e~[\n"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	require.JSONEq(t, `{"query":3,"tags":"","filter":{"owner":"me"}}`, string(got.Calls[0].Arguments))
	typed, err := f.(TypedParser).ParseWithTools(reply, taggedGrammarTools)
	require.NoError(t, err)
	require.JSONEq(t, `{"query":"3","tags":[],"filter":{"owner":"me"}}`, string(typed.Calls[0].Arguments))
}

func TestMiniMaxM3Grammar(t *testing.T) { taggedGrammarWalk(t, minimaxM3()) }

func TestMiniMaxM3Malformed(t *testing.T) {
	taggedCheckMalformed(t, minimaxM3(), []taggedBad{
		{reply: "Hi." + m3BlockOpen + "\n" + m3Invoke + `f">` + m3NS + "<a>1", at: m3Invoke, content: "Hi."},
		{reply: "Hi." + m3BlockOpen + "\n" + m3Invoke + `f">` + m3NS + "<a>1" + m3NS + "</b>" + m3InvokeEnd + m3BlockClose, at: m3NS + "</b>", content: "Hi."},
		{reply: "Hi." + m3BlockOpen + "\nwhat" + m3BlockClose, at: "what", content: "Hi."},
	})
}
