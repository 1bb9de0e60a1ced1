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

func TestDSMLMalformed(t *testing.T) {
	open := "Hi.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
	taggedCheckMalformed(t, dsml(), []taggedBad{
		{reply: open + `<｜DSML｜parameter name="days" string="false">3`, at: "<｜DSML｜invoke", content: "Hi."},
		{reply: open + `<｜DSML｜parameter name="days" string="false">three</｜DSML｜parameter>` + "\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", at: "three", content: "Hi."},
		{reply: open + `<｜DSML｜parameter name="days" string="maybe">3</｜DSML｜parameter>` + "\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", at: `maybe"`, content: "Hi."},
	})
	taggedCheckMalformed(t, dsmlV4(), []taggedBad{
		{reply: "Hi.\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", at: "</｜DSML｜function_calls>", content: "Hi."},
	})
}
