package toolcall

import (
	"testing"
)

func TestDeepSeekR1RoundTrip(t *testing.T) {
	f := deepseekR1()
	for _, c := range []taggedCase{
		// The Llama distill only renders calls of a turn without content,
		// with arguments as a string, and writes a later call after the
		// end of the sentence.
		{template: "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja", opts: taggedRenderOpts{StringArgs: true}},
		{template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja"},
		{template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", content: "Let me check."},
		// llama.cpp's template cannot render tools (map | tojson raises
		// in jinja2 too), but renders the calls.
		{template: "llama-cpp-deepseek-r1.jinja", opts: taggedRenderOpts{NoTools: true}},
	} {
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestDeepSeekR1Grammar(t *testing.T) { taggedGrammarWalk(t, deepseekR1()) }
