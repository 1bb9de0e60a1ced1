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

func TestDeepSeekR1Malformed(t *testing.T) {
	head := "Hi." + dsCallsBegin + dsCallBegin + "function" + dsSep + "get_weather\n```json\n"
	taggedCheckMalformed(t, deepseekR1(), []taggedBad{
		{reply: head + `{"location": "Paris"`, at: dsCallBegin, content: "Hi."},
		{reply: head + `{"location": }` + "\n```" + dsCallEnd + dsCallsEnd, at: `{"location": }`, content: "Hi."},
		{reply: head + `["Paris"]` + "\n```" + dsCallEnd + dsCallsEnd, at: `["Paris"]`, content: "Hi."},
		{reply: "Hi." + dsCallsBegin + "get_weather(Paris)" + dsCallsEnd, at: "get_weather(", content: "Hi."},
		{reply: "Hi." + dsCallsBegin + dsCallBegin + "python" + dsSep + "x\n```json\n{}\n```" + dsCallEnd, at: "python", content: "Hi."},
		{reply: head + `{"a": 1} trailing` + dsCallEnd, at: "trailing", content: "Hi."},
	})
}
