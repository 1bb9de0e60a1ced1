package toolcall

import (
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Cohere's formats.
//
// Command R7B and Command A (Cohere2, Cohere2MoE) plan between
// <|START_THINKING|> and <|END_THINKING|>, call tools with a JSON list
// between <|START_ACTION|> and <|END_ACTION|>, and answer between
// <|START_RESPONSE|> and <|END_RESPONSE|> (R7B) or <|START_TEXT|> and
// <|END_TEXT|> (Cohere2MoE):
//
//	<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[
//	    {"tool_call_id": "0", "tool_name": "f", "parameters": {…}}
//	]<|END_ACTION|>
//
// A generation prompt that opens the thinking (Cohere2MoE) makes a reply
// start with bare reasoning closed by <|END_THINKING|>.
//
// Command R and R+ (tool_use template) write Action: and a ```json list of
// {"tool_name": …, "parameters": …} objects.

const (
	cohereThinkOpen, cohereThinkClose = "<|START_THINKING|>", "<|END_THINKING|>"
	cohereActOpen, cohereActClose     = "<|START_ACTION|>", "<|END_ACTION|>"
	cohereEOT                         = "<|END_OF_TURN_TOKEN|>"
	// A template's next turn, and the role header of a turn.
	cohereTurn, cohereChatbot = "<|START_OF_TURN_TOKEN|>", "<|CHATBOT_TOKEN|>"
)

func commandR7BFormat() Format {
	f := &blockFormat{
		name: "command-r7b",
		blocks: []otherBlock{
			{open: cohereThinkOpen, close: cohereThinkClose, kind: otherReasoning},
			{open: cohereActOpen, close: cohereActClose, kind: otherCalls},
			{open: "<|START_RESPONSE|>", close: "<|END_RESPONSE|>", kind: otherContent},
			{open: "<|START_TEXT|>", close: "<|END_TEXT|>", kind: otherContent},
		},
		eot:       []string{cohereEOT, cohereTurn},
		heads:     []string{cohereChatbot},
		bareClose: cohereThinkClose,
		body: func(s string, i int, _ string, sink *otherSink) (int, error) {
			return otherJSONList(s, i, sink, func(s string, at int, fields []otherField, complete bool) (Call, error) {
				return otherNamedCall(s, at, fields, complete, "tool_name", "parameters", "tool_call_id")
			})
		},
	}
	stops := f.markers()
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		think := constrain.Optional(constrain.Sequence(constrain.Optional(constrain.Literal(cohereThinkOpen)),
			constrain.TextWithout(stops...), constrain.Literal(cohereThinkClose)))
		answer := constrain.Choice(
			constrain.Sequence(constrain.Literal("<|START_RESPONSE|>"), constrain.TextWithout(stops...), constrain.Literal("<|END_RESPONSE|>")),
			constrain.Sequence(constrain.Literal("<|START_TEXT|>"), constrain.TextWithout(stops...), constrain.Literal("<|END_TEXT|>")))
		if opts.Mode == TextOnly || len(opts.Tools) == 0 && opts.Mode == TextOrCalls {
			return constrain.Sequence(think, answer), nil
		}
		id := constrain.Repeat(constrain.Choice(otherDigits()...), 1, 3)
		call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) {
			return constrain.Sequence(constrain.Literal(`{"tool_call_id": "`), id, constrain.Literal(`", "tool_name": `+otherQuote(t.Name)+`, "parameters": `),
				otherArgs(t, opts.JSON), constrain.Literal("}")), nil
		})
		if err != nil {
			return call, err
		}
		action := constrain.Sequence(constrain.Literal(cohereActOpen+"[\n    "), otherSeveral(call, constrain.Literal(",\n    "), opts.Parallel), constrain.Literal("\n]"+cohereActClose))
		if opts.Mode == CallsOnly {
			return constrain.Sequence(think, action), nil
		}
		return constrain.Sequence(think, constrain.Choice(answer, action)), nil
	}
	return f
}

func commandRFormat() Format {
	f := &blockFormat{
		name:   "command-r",
		blocks: []otherBlock{{open: "Action:", close: "```", kind: otherCalls}},
		eot:    []string{cohereEOT, cohereTurn},
		heads:  []string{cohereChatbot},
		body: func(s string, i int, _ string, sink *otherSink) (int, error) {
			i = skipSpace(s, i)
			i, err := otherExpect(s, i, "```json")
			if err != nil {
				return i, err
			}
			return otherJSONList(s, i, sink, func(s string, at int, fields []otherField, complete bool) (Call, error) {
				return otherNamedCall(s, at, fields, complete, "tool_name", "parameters", "")
			})
		},
	}
	stops := []string{"Action:", cohereEOT, cohereTurn}
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		return otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(constrain.Literal(`{"tool_name": `+otherQuote(t.Name)+`, "parameters": `), otherArgs(t, opts.JSON), constrain.Literal("}")), nil
				})
				if err != nil {
					return call, err
				}
				return constrain.Sequence(constrain.Literal("Action: ```json\n[\n    "), otherSeveral(call, constrain.Literal(",\n    "), opts.Parallel), constrain.Literal("\n]\n```")), nil
			})
	}
	return f
}

// otherQuote is s as a JSON string.
func otherQuote(s string) string {
	var b strings.Builder
	b.WriteString(`"`)
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"`)
	return b.String()
}

func otherDigits() []constrain.Pattern {
	var d []constrain.Pattern
	for c := '0'; c <= '9'; c++ {
		d = append(d, constrain.Literal(string(c)))
	}
	return d
}
