package toolcall

import "testing"

func TestMiniMaxM2RoundTrip(t *testing.T) {
	f := minimaxM2()
	for _, content := range []any{"", "Let me check."} {
		c := taggedCase{template: "MiniMax-M2.jinja", content: content}
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestMinimaxM2Grammar(t *testing.T) { taggedGrammarWalk(t, minimaxM2()) }
