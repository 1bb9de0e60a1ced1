package toolcall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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

// Parse types raw values by their text; ParseWithTools by the schema: a
// string parameter written 3 stays "3", and an integer one stays 3.
func TestQwen3CoderTypedParse(t *testing.T) {
	f := qwen3Coder()
	reply := "<tool_call>\n<function=search_notes>\n<parameter=query>\n3\n</parameter>\n<parameter=exact>\nTrue\n</parameter>\n" +
		"<parameter=tags>\n[\"a\", \"</parameter>\"]\n</parameter>\n<parameter=filter>\n{'owner': 'me', 'limit': 2}\n</parameter>\n</function>\n</tool_call><|im_end|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	require.Equal(t, `{"query":3,"exact":true,"tags":["a", "</parameter>"],"filter":{"owner":"me","limit":2}}`, string(got.Calls[0].Arguments))
	tp, ok := f.(TypedParser)
	require.True(t, ok)
	typed, err := tp.ParseWithTools(reply, taggedGrammarTools)
	require.NoError(t, err)
	require.Equal(t, `{"query":"3","exact":true,"tags":["a", "</parameter>"],"filter":{"owner":"me","limit":2}}`, string(typed.Calls[0].Arguments))
	require.Equal(t, typed.Calls, tp.ParsePartialWithTools(reply, taggedGrammarTools).Calls)
	// A string parameter keeps text that looks like JSON, up to the first
	// close tag.
	typed, err = tp.ParseWithTools("<tool_call>\n<function=search_notes>\n<parameter=query>\n[draft] {x}\n</parameter>\n</function>\n</tool_call>", taggedGrammarTools)
	require.NoError(t, err)
	require.Equal(t, `{"query":"[draft] {x}"}`, string(typed.Calls[0].Arguments))
}
