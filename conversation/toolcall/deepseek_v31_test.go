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

func TestDeepSeekV31Grammar(t *testing.T) { taggedGrammarWalk(t, deepseekV31()) }

func TestDeepSeekV31Malformed(t *testing.T) {
	taggedCheckMalformed(t, deepseekV31(), []taggedBad{
		{reply: "Hi." + dsCallsBegin + dsCallBegin + "get_weather" + dsSep + `{"location": "Par`, at: dsCallBegin, content: "Hi."},
		{reply: "Hi." + dsCallsBegin + dsCallBegin + "get_weather" + dsSep + `{location: 1}` + dsCallEnd + dsCallsEnd, at: "{location", content: "Hi."},
		{reply: "Hi." + dsCallsBegin + dsCallBegin + dsSep + `{}` + dsCallEnd + dsCallsEnd, at: dsSep, content: "Hi."},
		{reply: "Hi." + dsCallsBegin + "noise" + dsCallsEnd, at: "noise", content: "Hi."},
	})
}
