package toolcall

import (
	"github.com/litert-go/litert-go/constrain"
)

// deepseekV31 is DeepSeek V3.1's syntax: the name, then the JSON
// arguments, between the call markers, with no type word or fence:
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{"arg": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
func deepseekV31() Format {
	syn := &taggedJSONSyntax{
		sectionBegin: dsCallsBegin, sectionEnd: dsCallsEnd,
		callBegin: dsCallBegin, callEnd: dsCallEnd, sep: dsSep,
		head: func(s string, pos int, final bool) (string, string, int, taggedMatch, error) {
			name, args, m, err := taggedNameUntil(s, pos, dsSep, dsCallEnd, final)
			return name, "", args, m, err
		},
	}
	opens := []string{dsCallsBegin, dsCallBegin}
	drops := []string{dsEOS, dsCallsEnd, dsAssistant}
	return &taggedFormat{
		spec: taggedSpec{name: "deepseek-v3.1", opens: opens, drops: drops, region: syn.region, leadDrops: taggedLeadDrop()},
		pattern: func(opts GrammarOptions) (constrain.Pattern, error) {
			return taggedCompose(opts, taggedGrammarParts{
				stops: taggedAll(opens, drops, []string{dsCallEnd, dsSep}),
				call: func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(
						constrain.Literal(dsCallBegin+t.Name+dsSep),
						constrain.JSONValue(taggedSchema(t), "", opts.JSON),
						constrain.Literal(dsCallEnd)), nil
				},
				block: func(calls constrain.Pattern) constrain.Pattern {
					return constrain.Sequence(constrain.Literal(dsCallsBegin), calls, constrain.Literal(dsCallsEnd))
				},
			})
		},
	}
}
