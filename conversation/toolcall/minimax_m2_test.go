package toolcall

import "testing"

func TestMiniMaxM2RoundTrip(t *testing.T) {
	f := minimaxM2()
	for _, content := range []any{"", "Let me check."} {
		c := taggedCase{template: "MiniMax-M2.jinja", content: content}
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestMiniMaxM2Grammar(t *testing.T) { taggedGrammarWalk(t, minimaxM2()) }

func TestMiniMaxM2Malformed(t *testing.T) {
	taggedCheckMalformed(t, minimaxM2(), []taggedBad{
		{reply: "Hi.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"location\">Par", at: "<invoke", content: "Hi."},
		{reply: "Hi.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<param>x</param>\n</invoke>\n</minimax:tool_call>", at: "<param>", content: "Hi."},
		{reply: "Hi.\n<minimax:tool_call>\n{\"name\": \"f\"}\n</minimax:tool_call>", at: "{\"name\"", content: "Hi."},
	})
}
