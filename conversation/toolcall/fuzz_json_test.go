package toolcall

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzJSONFamilies feeds arbitrary replies to every JSON family: nothing
// panics; a reply that parses has calls with names and JSON-object
// arguments; a failure is a *ToolCallError of the format at an offset
// inside the reply; and streaming every prefix shows content that is a
// prefix of the final content and calls that are a prefix of the final
// calls, growing monotonically.
func FuzzJSONFamilies(f *testing.F) {
	seeds := []string{
		"Hello!<|im_end|>",
		"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, \"b\", {\"c\": null}]}}\n</tool_call><|im_end|>",
		"{\"name\": \"get_weather\", \"parameters\": {\"location\": \"Zürich\"}}<|eot_id|>",
		"<|python_tag|>brave_search.call(query=\"x\", n=2)<|eom_id|>",
		"[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}, \"id\": \"abcdefghi\"}]</s>",
		"[THINK]hmm[/THINK][TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{\"x\": \"]\"}</s>",
		" functools[{\"name\": \"f\", \"arguments\": {\"k\": 1.5e3}}]",
		"<function=f>{\"a\": \"\\u00e9\"}</function><|python_tag|>print(1)",
		"all\nhi>>>get_weather\n{\"x\": 1}>>>python\nprint(2)",
		"<|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]<|/tool_call|><|end|>",
		"<TOOLCALL>[{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}]</TOOLCALL>",
		"<thinking>x</thinking><tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>",
		"<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"arguments\": {}}\n</tool_calls>",
		"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ",
		"{\"name\": \"f\", \"parameters\": {}}; {\"name\": ",
		strings.Repeat("[", 3000),
		strings.Repeat("{\"a\":", 2000),
	}
	for _, c := range []struct {
		tc    jsonCase
		calls int
	}{
		{jsonCase{template: "Qwen-Qwen2.5-7B-Instruct"}, 3},
		{jsonCase{template: "meta-llama-Llama-3.2-3B-Instruct", single: true}, 1},
		{jsonCase{template: "mistralai-Mistral-Nemo-Instruct-2407", noSystem: true}, 3},
		{jsonCase{template: "Mistral-Small-3.2-24B-Instruct-2506"}, 3},
		{jsonCase{template: "meetkai-functionary-medium-v3.1"}, 3},
		{jsonCase{template: "meetkai-functionary-medium-v3.2", stringArgs: true}, 3},
		{jsonCase{template: "NVIDIA-Nemotron-Nano-v2", noContent: true}, 3},
		{jsonCase{template: "unsloth-Apriel-1.5"}, 3},
		{jsonCase{template: "MiniMax-M1"}, 3},
	} {
		if reply, ok := jsonFuzzRender(f, c.tc, jsonTestCalls(c.calls)); ok {
			seeds = append(seeds, reply)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	// The formats themselves, without the thinking wrappers some are
	// registered with (the wrapper is thinking.go's).
	var formats []Format
	for _, fm := range jsonFamilies() {
		jf, ok := jsonUnwrap(fm)
		if !ok {
			f.Fatalf("%s is not a JSON family", fm.Name())
		}
		formats = append(formats, jf)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		if len(reply) > 2048 {
			reply = reply[:2048]
		}
		for _, fm := range formats {
			final, err := fm.Parse(reply)
			if err != nil {
				var tce *ToolCallError
				if !errors.As(err, &tce) {
					t.Fatalf("%s: %q: error %T is not a *ToolCallError: %v", fm.Name(), reply, err, err)
				}
				if tce.Format != fm.Name() || tce.Offset < 0 || tce.Offset > len(reply) {
					t.Fatalf("%s: %q: bad error %+v", fm.Name(), reply, tce)
				}
			} else {
				for _, c := range final.Calls {
					if c.Name == "" || !json.Valid(c.Arguments) || !strings.HasPrefix(string(c.Arguments), "{") {
						t.Fatalf("%s: %q: bad call %+v", fm.Name(), reply, c)
					}
				}
			}
			// Streaming: every prefix up to 256 bytes, then every 13th.
			var prev Partial
			for n := 0; n <= len(reply); n++ {
				if n > 256 && n%13 != 0 && n != len(reply) {
					continue
				}
				p := fm.ParsePartial(reply[:n])
				if err != nil {
					continue
				}
				if !strings.HasPrefix(final.Content, p.Content) {
					t.Fatalf("%s: prefix %q: content %q is not a prefix of %q", fm.Name(), reply[:n], p.Content, final.Content)
				}
				if !strings.HasPrefix(p.Content, prev.Content) {
					t.Fatalf("%s: prefix %q: content shrank from %q to %q", fm.Name(), reply[:n], prev.Content, p.Content)
				}
				if len(p.Calls) > len(final.Calls) || len(p.Calls) < len(prev.Calls) {
					t.Fatalf("%s: prefix %q: %d calls (before %d, final %d)", fm.Name(), reply[:n], len(p.Calls), len(prev.Calls), len(final.Calls))
				}
				for i, c := range p.Calls {
					if c.Name != final.Calls[i].Name || string(c.Arguments) != string(final.Calls[i].Arguments) {
						t.Fatalf("%s: prefix %q: call %d %+v, final %+v", fm.Name(), reply[:n], i, c, final.Calls[i])
					}
				}
				prev = p
			}
		}
	})
}

// jsonFuzzRender renders a seed reply, or reports false when the template
// data is absent.
func jsonFuzzRender(f *testing.F, c jsonCase, calls []Call) (string, bool) {
	if _, err := jsonTemplateExists(c.template); err != nil {
		return "", false
	}
	return jsonRender(f, c, "", calls)
}
