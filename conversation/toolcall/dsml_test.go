package toolcall

import "testing"

func TestDSMLRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		f         Format
		templates []string
	}{
		{dsml(), []string{"deepseek-ai-DeepSeek-V3.2.jinja"}},
		{dsmlV4(), []string{"deepseek-ai-DeepSeek-V4.jinja", "deepseek-ai-DeepSeek-V4-Flash-0731.jinja"}},
	} {
		for _, name := range tc.templates {
			for _, content := range []any{nil, "Let me check."} {
				c := taggedCase{template: name, content: content}
				t.Run(tc.f.Name()+"/"+name, func(t *testing.T) { taggedRoundTrip(t, tc.f, c) })
			}
		}
	}
}

func TestDSMLGrammar(t *testing.T) { taggedGrammarWalk(t, dsml()) }

func TestDSMLV4Grammar(t *testing.T) { taggedGrammarWalk(t, dsmlV4()) }
