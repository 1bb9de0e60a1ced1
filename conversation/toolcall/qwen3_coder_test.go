package toolcall

import "testing"

func TestQwen3CoderRoundTrip(t *testing.T) {
	f := qwen3Coder()
	for _, c := range []taggedCase{
		{template: "Qwen3-Coder.jinja"},
		{template: "Qwen3-Coder.jinja", content: "Let me check."},
		{template: "Qwen3.5-4B.jinja", content: "Let me check."},
		{template: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", content: "Let me check."},
		{template: "StepFun3.5-Flash.jinja", content: "Let me check."},
	} {
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestQwen3CoderGrammar(t *testing.T) { taggedGrammarWalk(t, qwen3Coder()) }

func TestQwen3CoderMalformed(t *testing.T) {
	taggedCheckMalformed(t, qwen3Coder(), []taggedBad{
		{reply: "Hi.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nPar", at: "<tool_call>", content: "Hi."},
		{reply: "Hi.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>", at: "{\"name\"", content: "Hi."},
		{reply: "Hi.\n<tool_call>\n<function=get_weather>\n<param>x</param>\n</function>\n</tool_call>", at: "<param>", content: "Hi."},
		{reply: "Hi.\n<tool_call>\n<function=>\n</function>\n</tool_call>", at: ">\n</function>", content: "Hi."},
	})
}
