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
