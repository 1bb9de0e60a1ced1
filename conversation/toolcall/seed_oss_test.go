package toolcall

import "testing"

func TestSeedOSSRoundTrip(t *testing.T) {
	f := seedOSS()
	for _, c := range []taggedCase{
		{template: "ByteDance-Seed-OSS.jinja"},
		{template: "ByteDance-Seed-OSS.jinja", content: "Let me check."},
	} {
		t.Run(c.template, func(t *testing.T) { taggedRoundTrip(t, f, c) })
	}
}

func TestSeedOSSGrammar(t *testing.T) { taggedGrammarWalk(t, seedOSS()) }

func TestSeedOSSMalformed(t *testing.T) {
	taggedCheckMalformed(t, seedOSS(), []taggedBad{
		{reply: "Hi.<seed:tool_call>\n<function=get_weather>\n<parameter=location>Paris</parameter>\n", at: "<seed:tool_call>", content: "Hi."},
		{reply: "Hi.<seed:tool_call>\n<function=get_weather>\n<parameter=location>Paris</parameter>\n</function>\n</tool_call>", at: "</tool_call>", content: "Hi."},
	})
}
