package toolcall

import "testing"

func TestDeepSeekV31RoundTrip(t *testing.T) {
	f := deepseekV31()
	for _, c := range []taggedCase{
		{template: "deepseek-ai-DeepSeek-V3.1.jinja"},
		{template: "deepseek-ai-DeepSeek-V3.1.jinja", content: "Let me check."},
	} {
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestDeepseekV31Grammar(t *testing.T) { taggedGrammarWalk(t, deepseekV31()) }
