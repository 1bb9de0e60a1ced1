package toolcall

import (
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// DeepSeek's special tokens (fullwidth bars ｜ and ▁ as in the vocabulary).
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
	dsEOS        = "<｜end▁of▁sentence｜>"
	dsAssistant  = "<｜Assistant｜>"
)

// deepseekR1 is DeepSeek R1's syntax (and its distills):
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name
//	```json
//	{"arg": 1}
//	```<｜tool▁call▁end｜>
//	<｜tool▁call▁begin｜>…<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>
//
// The distill templates are loose: one never closes the section, another
// writes a later call after the end of the sentence, or the content as a
// second assistant turn after the calls; the parser reads all of these
// (stray section ends, sentence ends and <｜Assistant｜> markers are
// dropped, and a call outside a section still counts).
func deepseekR1() Format {
	syn := &taggedJSONSyntax{
		sectionBegin: dsCallsBegin, sectionEnd: dsCallsEnd,
		callBegin: dsCallBegin, callEnd: dsCallEnd, sep: dsSep,
		head: deepseekR1Head, fence: true,
	}
	opens := []string{dsCallsBegin, dsCallBegin}
	drops := []string{dsEOS, dsCallsEnd, dsAssistant}
	return &taggedFormat{
		spec: taggedSpec{name: "deepseek-r1", opens: opens, drops: drops, region: syn.region, leadDrops: taggedLeadDrop()},
		pattern: func(opts GrammarOptions) (constrain.Pattern, error) {
			return taggedCompose(opts, taggedGrammarParts{
				stops: taggedAll(opens, drops, []string{dsCallEnd, dsSep}),
				call: func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(
						constrain.Literal(dsCallBegin+"function"+dsSep+t.Name+"\n```json\n"),
						constrain.JSONValue(taggedSchema(t), "", opts.JSON),
						constrain.Literal("\n```"+dsCallEnd)), nil
				},
				sep: "\n",
				block: func(calls constrain.Pattern) constrain.Pattern {
					return constrain.Sequence(constrain.Literal(dsCallsBegin), calls, constrain.Literal(dsCallsEnd))
				},
			})
		},
	}
}

// deepseekR1Head reads `function<｜tool▁sep｜>name` and the ```json fence
// line that opens the arguments.
func deepseekR1Head(s string, pos int, final bool) (name, id string, args int, m taggedMatch, err error) {
	typ, p, m, err := taggedNameUntil(s, pos, dsSep, dsCallEnd, final)
	if m != taggedYes {
		return "", "", 0, m, err
	}
	if typ != "function" {
		return "", "", 0, taggedNo, taggedExpected("function" + dsSep)
	}
	p = skipSpace(s, p)
	end := p
	for end < len(s) && !isSpace(s[end]) && s[end] != '`' && s[end] != '{' && !strings.HasPrefix(s[end:], dsCallEnd) {
		end++
	}
	if end == len(s) && !final {
		return "", "", 0, taggedMore, nil
	}
	name = s[p:end]
	if name == "" {
		return "", "", 0, taggedNo, errTaggedNoName
	}
	p = skipSpace(s, end)
	if p == len(s) && !final {
		return name, "", 0, taggedMore, nil
	}
	rest := s[p:]
	switch {
	case strings.HasPrefix(rest, "```json"):
		p += len("```json")
	case !final && strings.HasPrefix("```json", rest):
		return name, "", 0, taggedMore, nil
	case strings.HasPrefix(rest, "```"):
		p += len("```")
	}
	return name, "", p, taggedYes, nil
}
