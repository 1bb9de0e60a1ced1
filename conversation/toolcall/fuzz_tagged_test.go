package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// taggedFuzzTemplates are the templates whose renders seed the corpus.
var taggedFuzzTemplates = []taggedCase{
	{template: "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja", opts: taggedRenderOpts{StringArgs: true}},
	{template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja"},
	{template: "llama-cpp-deepseek-r1.jinja", opts: taggedRenderOpts{NoTools: true}},
	{template: "deepseek-ai-DeepSeek-V3.1.jinja", content: "Let me check."},
	{template: "deepseek-ai-DeepSeek-V3.2.jinja", content: "Let me check."},
	{template: "deepseek-ai-DeepSeek-V4.jinja", content: "Let me check."},
	{template: "moonshotai-Kimi-K2.jinja", content: "Let me check."},
	{template: "Kimi-K3.jinja", content: "Let me check."},
	{template: "Qwen3-Coder.jinja", content: "Let me check."},
	{template: "Qwen3.5-4B.jinja", content: "Let me check."},
	{template: "ByteDance-Seed-OSS.jinja", content: "Let me check."},
	{template: "GLM-4.6.jinja", content: "Let me check."},
	{template: "GLM-4.7-Flash.jinja", content: "Let me check."},
	{template: "MiniMax-M2.jinja", content: "Let me check."},
	{template: "MiniMax-M3.jinja", content: "Let me check."},
}

// FuzzTaggedFamilies feeds arbitrary replies to every tagged format: no
// panic; a successful Parse gives calls whose arguments are JSON objects
// (also with the tool schemas); and every prefix read as a partial reply
// shows content that is a prefix of the final content and calls that are
// a prefix of the final calls.
func FuzzTaggedFamilies(f *testing.F) {
	for _, c := range taggedFuzzTemplates {
		for _, calls := range [][]taggedCall{taggedOneCall, taggedThreeCalls} {
			if reply, ok := taggedRender(f, c.template, c.content, calls, c.opts); ok {
				f.Add(reply)
			}
		}
	}
	for _, s := range []string{
		"", "plain text", "<tool_call>", "<tool_call>\n<function=f>\n<parameter=a>\n{\"x\": \"</parameter>\"}\n</parameter>\n</function>\n</tool_call>",
		dsCallsBegin + dsCallBegin + "f" + dsSep + `{"a": "` + dsCallEnd + `"}` + dsCallEnd + dsCallsEnd,
		"<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">[1, 2</parameter>\n</invoke>\n</minimax:tool_call>",
		m3BlockOpen + m3Invoke + `f">` + m3NS + "<a>" + m3NS + "<item>1" + m3NS + "</item>" + m3NS + "</a>" + m3InvokeEnd + m3BlockClose,
		"<seed:tool_call>\n<function=f>\n<parameter=a>{'k': (1, 2), 'b': None}</parameter>\n</function>\n</seed:tool_call>",
	} {
		f.Add(s)
	}
	formats := taggedFamilies()
	f.Fuzz(func(t *testing.T, reply string) {
		if len(reply) > 1<<14 {
			reply = reply[:1<<14]
		}
		for _, fm := range formats {
			final, err := fm.Parse(reply)
			checkArgs := func(p Parsed) {
				for _, c := range p.Calls {
					var obj map[string]json.RawMessage
					if json.Unmarshal(c.Arguments, &obj) != nil {
						t.Fatalf("%s: arguments %q of %q are not a JSON object", fm.Name(), c.Arguments, reply)
					}
				}
			}
			if err == nil {
				checkArgs(final)
			}
			if tp, ok := fm.(TypedParser); ok {
				if typed, err := tp.ParseWithTools(reply, taggedGrammarTools); err == nil {
					checkArgs(typed)
				}
				_ = tp.ParsePartialWithTools(reply, taggedGrammarTools)
			}
			step := 1
			if len(reply) > 128 {
				step = len(reply) / 64
			}
			for i := 0; i <= len(reply); i += step {
				p := fm.ParsePartial(reply[:i])
				if err != nil {
					continue
				}
				if !strings.HasPrefix(final.Content, p.Content) {
					t.Fatalf("%s: prefix %q shows content %q, not a prefix of %q", fm.Name(), reply[:i], p.Content, final.Content)
				}
				if len(p.Calls) > len(final.Calls) {
					t.Fatalf("%s: prefix %q shows %d calls of %d", fm.Name(), reply[:i], len(p.Calls), len(final.Calls))
				}
				for k, c := range p.Calls {
					if c.Name != final.Calls[k].Name || string(c.Arguments) != string(final.Calls[k].Arguments) || c.ID != final.Calls[k].ID {
						t.Fatalf("%s: prefix %q shows call %d %+v, final %+v", fm.Name(), reply[:i], k, c, final.Calls[k])
					}
				}
			}
		}
	})
}
