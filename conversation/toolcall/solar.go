package toolcall

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Solar Open writes a reply as messages that each open with
// <|begin|>assistant (the generation prompt writes the first): reasoning
// in <|think|>…<|end|>, the answer in <|content|>…<|end|>, calls in
// <|tool_calls|>…<|calls|>, each with an id of 10 lowercase letters and
// digits:
//
//	<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Paris"}<|tool_call:end|><|calls|>

const (
	solarCallBegin, solarCallName, solarCallArgs, solarCallEnd = "<|tool_call:begin|>", "<|tool_call:name|>", "<|tool_call:args|>", "<|tool_call:end|>"
	solarBegin                                                 = "<|begin|>assistant"
)

func solarFormat() Format {
	f := &blockFormat{
		name: "solar-open",
		blocks: []otherBlock{
			{open: "<|think|>", close: "<|end|>", kind: otherReasoning},
			{open: "<|content|>", close: "<|end|>", kind: otherContent},
			{open: "<|tool_calls|>", close: "<|calls|>", kind: otherCalls},
			{open: solarBegin, kind: otherMark},
		},
		eot: []string{"<|begin|>user", "<|begin|>system", "<|begin|>tool"},
		// A rendered part may start inside the role header.
		heads: []string{"assistant"},
		body:  solarCalls,
	}
	stops := append(f.markers(), "<|begin|>", "<|end|>", solarCallBegin)
	f.pattern = func(opts GrammarOptions) (constrain.Pattern, error) {
		text := constrain.TextWithout(stops...)
		think := constrain.Optional(constrain.Sequence(constrain.Literal("<|think|>"), text, constrain.Literal("<|end|>"+solarBegin)))
		answer := constrain.Sequence(constrain.Literal("<|content|>"), text, constrain.Literal("<|end|>"))
		if opts.Mode == TextOnly || len(opts.Tools) == 0 && opts.Mode == TextOrCalls {
			return constrain.Sequence(think, answer), nil
		}
		var id []constrain.Pattern
		for _, c := range "abcdefghijklmnopqrstuvwxyz0123456789" {
			id = append(id, constrain.Literal(string(c)))
		}
		call, err := otherEachTool(f.name, opts, func(t Tool) (constrain.Pattern, error) {
			return constrain.Sequence(constrain.Literal(solarCallBegin), constrain.Repeat(constrain.Choice(id...), 10, 10),
				constrain.Literal(solarCallName+t.Name+solarCallArgs), otherArgs(t, opts.JSON), constrain.Literal(solarCallEnd)), nil
		})
		if err != nil {
			return call, err
		}
		calls := constrain.Sequence(constrain.Literal("<|tool_calls|>"), otherSeveral(call, constrain.Literal(""), opts.Parallel), constrain.Literal("<|calls|>"))
		if opts.Mode == CallsOnly {
			return constrain.Sequence(think, calls), nil
		}
		return constrain.Sequence(think, constrain.Choice(answer, calls)), nil
	}
	return f
}

// solarCalls reads <|tool_call:begin|>id<|tool_call:name|>name<|tool_call:args|>{…}<|tool_call:end|>…
func solarCalls(s string, i int, _ string, sink *otherSink) (int, error) {
	for n := 0; ; n++ {
		i = skipSpace(s, i)
		if n > 0 && !strings.HasPrefix(s[i:], solarCallBegin) && !strings.HasPrefix(solarCallBegin, s[i:]) {
			return i, nil
		}
		at, err := otherExpect(s, i, solarCallBegin)
		if err != nil {
			return at, err
		}
		k := strings.Index(s[at:], solarCallName)
		if k < 0 {
			return len(s), otherTruncated(len(s))
		}
		id := s[at : at+k]
		at += k + len(solarCallName)
		k = strings.Index(s[at:], solarCallArgs)
		if k < 0 {
			return len(s), otherTruncated(len(s))
		}
		name := strings.TrimSpace(s[at : at+k])
		if name == "" || strings.Contains(name, "<|") {
			return at, otherErrf(at, "want a function name")
		}
		at += k + len(solarCallArgs)
		end, err := otherJSONObject(s, at)
		if err != nil {
			if errors.Is(err, errOtherTruncated) {
				sink.pending = &Call{ID: id, Name: name, Arguments: json.RawMessage(strings.TrimLeft(s[at:], space))}
			}
			return end, err
		}
		c := Call{ID: id, Name: name, Arguments: json.RawMessage(s[skipSpace(s, at):end])}
		sink.pending = &c
		if i, err = otherExpect(s, skipSpace(s, end), solarCallEnd); err != nil {
			return i, err
		}
		sink.add(c)
	}
}
