package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Gemma 4 and FunctionGemma write a call as call:name{key:value,…}
// between markers, with strings between a quote marker and written raw,
// and object keys bare:
//
//	Gemma 4:       <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
//	FunctionGemma: <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>
//
// Gemma 4 reasons in a channel, <|channel>thought\n…<channel|>. Grammars
// write the arguments in the same dialect (constrain.JSONDialect).

func gemma4Format() Format {
	return gemmaCallFormat("gemma4", "<|tool_call>", "<tool_call|>", `<|"|>`, []string{"<turn|>", "<|tool_response>", "<eos>"},
		&otherBlock{open: "<|channel>", close: "<channel|>", kind: otherReasoning, skip: "thought"})
}

func functionGemmaFormat() Format {
	return gemmaCallFormat("functiongemma", "<start_function_call>", "<end_function_call>", "<escape>", []string{"<end_of_turn>", "<start_function_response>", "<eos>"}, nil)
}

func gemmaCallFormat(name, open, close, quote string, eot []string, thinking *otherBlock) Format {
	f := &blockFormat{
		name:   name,
		blocks: []otherBlock{{open: open, close: close, kind: otherCalls}},
		eot:    eot,
		body: func(s string, i int, _ string, sink *otherSink) (int, error) {
			return gemmaCall(s, i, quote, sink)
		},
	}
	stops := append([]string{open}, eot...)
	var think constrain.Pattern
	if thinking != nil {
		f.blocks = append(f.blocks, *thinking)
		stops = append(stops, thinking.open)
		think = constrain.Optional(constrain.Sequence(constrain.Literal(thinking.open+thinking.skip+"\n"),
			constrain.TextWithout(append([]string{thinking.close}, stops...)...), constrain.Literal(thinking.close)))
	}
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		jo := opts.JSON
		jo.Dialect = constrain.JSONDialect{Quote: quote, BareKeys: true}
		jo.Whitespace = constrain.WhitespaceCompact
		p, err := otherModes(opts,
			func() (constrain.Pattern, error) { return constrain.TextWithout(stops...), nil },
			func() (constrain.Pattern, error) {
				call, err := otherEachTool(name, opts, func(t Tool) (constrain.Pattern, error) {
					return constrain.Sequence(constrain.Literal(open+"call:"+t.Name), otherArgs(t, jo), constrain.Literal(close)), nil
				})
				return otherSeveral(call, constrain.Literal(""), opts.Parallel), err
			})
		if err != nil || thinking == nil || opts.Mode == TextOnly {
			return p, err
		}
		return constrain.Sequence(think, p), nil
	}
	return f
}

// gemmaCall reads call:name{…} at s[i].
func gemmaCall(s string, i int, quote string, sink *otherSink) (int, error) {
	i = skipSpace(s, i)
	i, err := otherExpect(s, i, "call:")
	if err != nil {
		return i, err
	}
	brace := strings.IndexByte(s[i:], '{')
	if brace < 0 {
		if j := strings.IndexAny(s[i:], "<}\n"); j >= 0 {
			return i, otherErrf(i, "call %q has no {arguments}", truncate(s[i:i+j], 40))
		}
		return len(s), otherTruncated(len(s))
	}
	name := strings.TrimSpace(s[i : i+brace])
	if name == "" || strings.ContainsAny(name, "<>{}\n") {
		return i, otherErrf(i, "want a function name, got %q", truncate(name, 40))
	}
	sink.pending = &Call{Name: name}
	p := &otherLit{s: s, quote: quote, bareKeys: true}
	var b bytes.Buffer
	end, err := p.value(&b, i+brace, 0)
	if err != nil {
		return end, err
	}
	sink.add(Call{Name: name, Arguments: json.RawMessage(b.Bytes())})
	return end, nil
}
