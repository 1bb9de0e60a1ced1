package toolcall

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// harmony is gpt-oss's format: a reply (after the generation prompt's
// <|start|>assistant) is a sequence of messages, each a header naming its
// channel (and a recipient), then <|message|> and the body up to <|end|>,
// <|call|> or <|return|>; later messages open with <|start|>assistant:
//
//	<|channel|>analysis<|message|>Let me look.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>
//	<|channel|>final<|message|>It is sunny.<|return|>
//
// The analysis channel is reasoning, final (and commentary addressed to no
// one, a preamble) is the answer, and a message to functions.NAME is a
// call of NAME with its body as the JSON arguments. The template writes the
// recipient before the channel (" to=functions.f<|channel|>commentary
// json<|message|>"); both orders are read.
//
// <|call|> ends the turn (it is an end-of-turn token of gpt-oss), so a
// reply holds one call: grammars force at most one, whatever Parallel
// says, and end at the arguments, where the model samples <|call|>.
type harmonyFormat struct{}

func harmonyFmt() Format { return harmonyFormat{} }

const (
	harmonyStart, harmonyChannel, harmonyMessage = "<|start|>", "<|channel|>", "<|message|>"
	harmonyConstrain                             = "<|constrain|>"
)

// harmonyEnds returns the markers that end a message.
func harmonyEnds() []string { return []string{"<|end|>", "<|call|>", "<|return|>", "<|endoftext|>"} }

// harmonyMarkers returns all of harmony's markers.
func harmonyMarkers() []string {
	return append([]string{harmonyStart, harmonyChannel, harmonyMessage, harmonyConstrain}, harmonyEnds()...)
}

func (harmonyFormat) Name() string { return "harmony" }

func (f harmonyFormat) Parse(reply string) (Parsed, error) {
	sc := harmonyScan(reply, true)
	p := Parsed{Content: strings.TrimSpace(sc.content.String()), Reasoning: strings.TrimSpace(sc.reasoning.String()), Calls: sc.calls}
	if sc.err != nil {
		return p, sc.err
	}
	return p, nil
}

func (f harmonyFormat) ParsePartial(reply string) Partial {
	sc := harmonyScan(reply, false)
	return Partial{Content: strings.TrimSpace(sc.content.String()), Reasoning: strings.TrimSpace(sc.reasoning.String()), Calls: sc.calls, Pending: sc.pending}
}

// harmonyHeaderStart reports whether s starts (after space) like a
// message header, or could while more is written.
func harmonyHeaderStart(s string, final bool) bool {
	t := strings.TrimLeft(s, space)
	for _, h := range []string{harmonyChannel, "to=", harmonyStart, harmonyMessage, harmonyConstrain} {
		if strings.HasPrefix(t, h) || !final && strings.HasPrefix(h, t) {
			return true
		}
	}
	return false
}

// harmonyHeader reads a header's channel and recipient.
func harmonyHeader(h string) (channel, recipient string) {
	word := func(s string) string {
		end := len(s)
		if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
			end = i
		}
		if i := strings.Index(s[:end], "<|"); i >= 0 {
			end = i
		}
		return s[:end]
	}
	if i := strings.Index(h, harmonyChannel); i >= 0 {
		channel = word(h[i+len(harmonyChannel):])
	}
	if i := strings.Index(h, "to="); i >= 0 {
		recipient = word(h[i+len("to="):])
	}
	return channel, recipient
}

// harmonyEnd finds the end of a message body at or after i: its
// terminator's position and length (-1 if none yet).
func harmonyEnd(s string, i int) (int, int) {
	best, n := -1, 0
	for _, m := range append(harmonyEnds(), harmonyStart) {
		if j := strings.Index(s[i:], m); j >= 0 && (best < 0 || i+j < best) {
			best, n = i+j, len(m)
			if m == harmonyStart {
				n = 0
			}
		}
	}
	return best, n
}

func harmonyScan(reply string, final bool) *otherScan {
	out := &otherScan{}
	s := reply
	pos := 0
	for first := true; pos < len(s); first = false {
		if !first {
			k := skipSpace(s, pos)
			if !strings.HasPrefix(s[k:], harmonyStart) {
				if !final && strings.HasPrefix(harmonyStart, s[k:]) {
					return out
				}
				// Text after the messages: an answer without a header.
				out.content.WriteString(harmonyText(s[pos:], final))
				return out
			}
			pos = k + len(harmonyStart)
		}
		if first && !harmonyHeaderStart(s[pos:], final) {
			end, n := harmonyEnd(s, pos)
			if end < 0 {
				out.content.WriteString(harmonyText(s[pos:], final))
				return out
			}
			out.content.WriteString(s[pos:end])
			pos = end + n
			continue
		}
		m := strings.Index(s[pos:], harmonyMessage)
		if e, _ := harmonyEnd(s, pos); e >= 0 && (m < 0 || e < pos+m) {
			m = -1 // a header cut off by a terminator
		}
		if m < 0 {
			if final {
				if _, to := harmonyHeader(s[pos:]); to != "" {
					out.err = &ToolCallError{Format: "harmony", Offset: pos, Text: s[pos:], Err: errOtherTruncated}
				}
			}
			return out
		}
		channel, recipient := harmonyHeader(s[pos : pos+m])
		start := pos + m + len(harmonyMessage)
		if recipient == "user" || recipient == "assistant" || recipient == "all" {
			recipient = "" // a message, not a call
		}
		if recipient == "" {
			end, n := harmonyEnd(s, start)
			body, closed := s[start:], end >= 0
			if closed {
				body = s[start:end]
			} else {
				body = harmonyText(body, final)
			}
			if channel == "analysis" {
				if out.reasoning.Len() > 0 && body != "" {
					out.reasoning.WriteString("\n")
				}
				out.reasoning.WriteString(body)
			} else {
				out.content.WriteString(body)
			}
			if !closed {
				return out
			}
			pos = end + n
			continue
		}
		name := strings.TrimPrefix(recipient, "functions.")
		end, err := otherJSONObject(s, start)
		if err != nil {
			if !final {
				if errors.Is(err, errOtherTruncated) {
					out.pending = &Call{Name: name, Arguments: json.RawMessage(strings.TrimLeft(s[start:], space))}
				}
				return out
			}
			out.err = &ToolCallError{Format: "harmony", Offset: otherOffset(err), Text: s[pos:], Err: err}
			return out
		}
		call := Call{Name: name, Arguments: json.RawMessage(s[skipSpace(s, start):end])}
		k := skipSpace(s, end)
		term, n := harmonyEnd(s, k)
		switch {
		case term == k:
		case k == len(s) && final:
		case !final && term < 0 && harmonyPrefixOfEnd(s[k:]):
			out.pending = &call
			return out
		default:
			out.err = &ToolCallError{Format: "harmony", Offset: k, Text: s[pos:], Err: otherErrf(k, "want <|call|> after the arguments, got %q", truncate(s[k:], 20))}
			if !final {
				out.err = nil
			}
			return out
		}
		out.calls = append(out.calls, call)
		if term < 0 {
			return out
		}
		pos = term + n
	}
	return out
}

// harmonyPrefixOfEnd reports whether s could start a terminator.
func harmonyPrefixOfEnd(s string) bool {
	for _, m := range append(harmonyEnds(), harmonyStart) {
		if strings.HasPrefix(m, s) {
			return true
		}
	}
	return false
}

// harmonyText is text still being written: it holds back a tail that
// may start a marker.
func harmonyText(s string, final bool) string {
	if final {
		return s
	}
	return holdBack(s, harmonyMarkers())
}

func (f harmonyFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	text := constrain.TextWithout(harmonyMarkers()...)
	analysis := constrain.Optional(constrain.Sequence(constrain.Literal(harmonyChannel+"analysis"+harmonyMessage), text,
		constrain.Literal("<|end|>"+harmonyStart+"assistant")))
	answer := constrain.Sequence(constrain.Literal(harmonyChannel+"final"+harmonyMessage), text)
	if opts.Mode == TextOnly || len(opts.Tools) == 0 && opts.Mode == TextOrCalls {
		return constrain.Sequence(analysis, answer), nil
	}
	call, err := otherEachTool("harmony", opts, func(t Tool) (constrain.Pattern, error) {
		return constrain.Sequence(constrain.Literal(harmonyChannel+"commentary to=functions."+t.Name+" "+harmonyConstrain+"json"+harmonyMessage),
			otherArgs(t, opts.JSON)), nil
	})
	if err != nil {
		return call, err
	}
	if opts.Mode == CallsOnly {
		return constrain.Sequence(analysis, call), nil
	}
	return constrain.Sequence(analysis, constrain.Choice(answer, call)), nil
}
