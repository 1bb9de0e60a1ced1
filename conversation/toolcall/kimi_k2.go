package toolcall

import (
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Kimi K2's special tokens.
const (
	kimiSectionBegin = "<|tool_calls_section_begin|>"
	kimiSectionEnd   = "<|tool_calls_section_end|>"
	kimiCallBegin    = "<|tool_call_begin|>"
	kimiCallEnd      = "<|tool_call_end|>"
	kimiArgBegin     = "<|tool_call_argument_begin|>"
	kimiEOT          = "<|im_end|>"
)

// kimiK2 is Kimi K2's syntax. The call id names the function and counts
// the calls of the conversation; it is the call's ID:
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{"arg": 1}<|tool_call_end|><|tool_calls_section_end|>
func kimiK2() Format {
	syn := &taggedJSONSyntax{
		sectionBegin: kimiSectionBegin, sectionEnd: kimiSectionEnd,
		callBegin: kimiCallBegin, callEnd: kimiCallEnd, sep: kimiArgBegin,
		head: kimiHead,
	}
	opens := []string{kimiSectionBegin, kimiCallBegin}
	drops := []string{kimiEOT, kimiSectionEnd}
	return &taggedFormat{
		spec: taggedSpec{name: "kimi-k2", opens: opens, drops: drops, region: syn.region, leadDrops: taggedLeadDrop()},
		pattern: func(opts GrammarOptions) (constrain.Pattern, error) {
			return taggedCompose(opts, taggedGrammarParts{
				stops: taggedAll(opens, drops, []string{kimiCallEnd, kimiArgBegin}),
				call: func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(
						constrain.Literal(kimiCallBegin+"functions."+t.Name+":"),
						taggedDigits(),
						constrain.Literal(kimiArgBegin),
						constrain.JSONValue(taggedSchema(t), "", opts.JSON),
						constrain.Literal(kimiCallEnd)), nil
				},
				block: func(calls constrain.Pattern) constrain.Pattern {
					return constrain.Sequence(constrain.Literal(kimiSectionBegin), calls, constrain.Literal(kimiSectionEnd))
				},
			})
		},
	}
}

// kimiHead reads the call id `functions.name:index`; the name is what
// stands between the namespace and the index.
func kimiHead(s string, pos int, final bool) (name, id string, args int, m taggedMatch, err error) {
	id, args, m, err = taggedNameUntil(s, pos, kimiArgBegin, kimiCallEnd, final)
	if m != taggedYes {
		return "", "", 0, m, err
	}
	name = strings.TrimPrefix(id, "functions.")
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return "", "", 0, taggedNo, errTaggedNoName
	}
	return name, id, args, taggedYes, nil
}
