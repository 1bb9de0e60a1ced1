package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzOtherFamilies feeds arbitrary replies to every format of the group:
// no input panics; a reply that parses has calls whose arguments are JSON
// objects; and on every prefix ParsePartial shows calls equal to the first
// final ones and content and reasoning that are prefixes of the final
// ones.
func FuzzOtherFamilies(f *testing.F) {
	for _, seed := range otherFuzzSeeds(f) {
		f.Add(seed)
	}
	formats := otherFamilies()
	f.Fuzz(func(t *testing.T, reply string) {
		for _, fm := range formats {
			p, err := fm.Parse(reply)
			step := max(1, len(reply)/64)
			for n := 0; n <= len(reply); n += step {
				pp := fm.ParsePartial(reply[:n])
				if err != nil {
					continue
				}
				if len(pp.Calls) > len(p.Calls) {
					t.Fatalf("%s: prefix %q shows %d calls, the reply %d", fm.Name(), reply[:n], len(pp.Calls), len(p.Calls))
				}
				for i, c := range pp.Calls {
					if c.Name != p.Calls[i].Name || !sameJSON(c.Arguments, p.Calls[i].Arguments) {
						t.Fatalf("%s: prefix %q call %d = %+v, final %+v", fm.Name(), reply[:n], i, c, p.Calls[i])
					}
				}
				if !strings.HasPrefix(p.Content, pp.Content) {
					t.Fatalf("%s: prefix %q content %q is not a prefix of %q", fm.Name(), reply[:n], pp.Content, p.Content)
				}
				if !strings.HasPrefix(p.Reasoning, pp.Reasoning) {
					t.Fatalf("%s: prefix %q reasoning %q is not a prefix of %q", fm.Name(), reply[:n], pp.Reasoning, p.Reasoning)
				}
			}
			if err != nil {
				if _, ok := err.(*ToolCallError); !ok {
					t.Fatalf("%s: error %T is not a *ToolCallError: %v", fm.Name(), err, err)
				}
				continue
			}
			for _, c := range p.Calls {
				var obj map[string]any
				if json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
					t.Fatalf("%s: arguments %q of %q are not a JSON object", fm.Name(), c.Arguments, reply)
				}
			}
		}
	})
}

// otherFuzzSeeds are the templates' renders of the test calls and a few
// written replies.
func otherFuzzSeeds(tb testing.TB) []string {
	seeds := []string{
		`<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": [1, "x"]}<|call|>`,
		`<|tool_call_start|>[f(a=1, b='x\'y', c=[True, None, {'k': 2.5}])]<|tool_call_end|><|im_end|>`,
		"Text\n```tool_code\nf(a=\"b\")\ng(c=3)\n```<end_of_turn>",
		`<|channel>thought` + "\n" + `x<channel|><|tool_call>call:f{a:<|"|>b<|"|>,n:{k:[1,None]}}<tool_call|><|tool_response>`,
		`<start_function_call>call:f{a:<escape>b<escape>}<end_function_call>`,
		"plan<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"a\": 1}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>",
		"Action: ```json\n[{\"tool_name\": \"f\", \"parameters\": {}}]\n```",
		`<|inner_prefix|>t<|inner_suffix|>x<|tools_prefix|>[{"f": {"a": 1}}]<|tools_suffix|><|assistant_end|>`,
		`<|function_call|>{"name": "f", "arguments": {"a": 1}}<|message_sep|>`,
		"<tool_calls:opensource>\n<tool_call:opensource>f<tool_sep:opensource>\n<arg_key:opensource>a</arg_key:opensource>\n<arg_value:opensource>[1]</arg_value:opensource>\n</tool_call:opensource>\n</tool_calls:opensource>",
		`<function name="f"><param name="a"><![CDATA[x<y]]></param></function>`,
		" to=self<|message|>p<|eom|><|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>",
		`<|tool_calls|><|tool_call:begin|>a1<|tool_call:name|>f<|tool_call:args|>{}<|tool_call:end|><|calls|>`,
	}
	for _, name := range []string{"openai-gpt-oss-120b", "LFM2.5-8B-A1B", "google-gemma-4-31B-it", "CohereForAI-c4ai-command-r7b-12-2024-tool_use", "Cohere2MoE",
		"CohereForAI-c4ai-command-r-plus-tool_use", "Apertus-8B-Instruct", "GigaChat3-10B-A1.8B", "GigaChat3.1-10B-A1.8B", "tencent-Hy3", "openbmb-MiniCPM5-1B", "muse-glimmer", "upstage-Solar-Open-100B"} {
		tt, ok := otherTryTemplate(name)
		if !ok {
			continue
		}
		for _, calls := range otherCallSets() {
			if part, err := otherRenderCalls(tb, tt, nil, "", calls); err == nil {
				seeds = append(seeds, part)
			}
		}
	}
	return seeds
}
