package toolcall

// Shared machinery of the formats with syntaxes of their own (harmony,
// python calls, Gemma's call:name{…}, Command R, Apertus, …): a reader of
// replies made of marked blocks, scanners for JSON and for Python and
// Gemma literals that tell a truncated value from a malformed one, and
// grammar helpers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/litert-go/litert-go/constrain"
)

// errOtherTruncated says a call's text ended before the call did: while
// streaming, the call is still being written; in a complete reply, the
// call is truncated.
var errOtherTruncated = errors.New("the call is cut off")

// otherSyntaxError is a malformed call found at byte Off of the text read.
type otherSyntaxError struct {
	Off int
	Err error
}

func (e *otherSyntaxError) Error() string { return e.Err.Error() }
func (e *otherSyntaxError) Unwrap() error { return e.Err }

func otherErrf(off int, format string, args ...any) error {
	return &otherSyntaxError{Off: off, Err: fmt.Errorf(format, args...)}
}

func otherTruncated(off int) error { return &otherSyntaxError{Off: off, Err: errOtherTruncated} }

// otherShift moves the offset of err by delta.
func otherShift(err error, delta int) error {
	var se *otherSyntaxError
	if errors.As(err, &se) {
		return &otherSyntaxError{Off: se.Off + delta, Err: se.Err}
	}
	return &otherSyntaxError{Off: delta, Err: err}
}

// otherOffset is the offset err carries (0 if none).
func otherOffset(err error) int {
	var se *otherSyntaxError
	if errors.As(err, &se) {
		return se.Off
	}
	return 0
}

// otherSink collects the calls a body reader finds.
type otherSink struct {
	// final says the reply is complete (else it is still being written).
	final bool
	calls []Call
	// pending is the call being read, once its name is known; its
	// Arguments are a prefix of the final ones where the syntax writes
	// them verbatim.
	pending *Call
}

func (s *otherSink) add(c Call) {
	s.calls = append(s.calls, c)
	s.pending = nil
}

// otherBody reads the calls of a calls block that start at s[i] into
// sink and returns where they end; the block's close marker (stop) is
// then expected. It returns an error wrapping errOtherTruncated when s
// ends inside a call.
type otherBody func(s string, i int, stop string, sink *otherSink) (int, error)

type otherKind int

const (
	otherContent   otherKind = iota // the body is answer text
	otherReasoning                  // the body is reasoning text
	otherCalls                      // the body holds calls
	otherMark                       // no body: the marker alone, dropped (a repeated role header)
	otherHeader                     // a header whose body (a recipient) is dropped
)

// otherBlock is a marked part of a reply.
type otherBlock struct {
	open, close string // close "": the block runs to the end of the reply
	kind        otherKind
	// skip is a word the body of a text block starts with that is not
	// part of the text (Gemma 4's channel name "thought").
	skip string
}

// blockFormat reads replies made of text and marked blocks.
type blockFormat struct {
	name   string
	blocks []otherBlock
	// eot are the end-of-turn markers the template writes after a reply:
	// the reply ends at the first one (where no block opens), and what
	// follows (a template's next turn) is not read.
	eot []string
	// heads are role headers a rendered part may start with (the
	// template's own, when a generation prompt is not a prefix); dropped.
	heads []string
	// bareClose, when set, closes reasoning that the generation prompt
	// opened: text before it (when no block opens first) is reasoning.
	bareClose string
	body      otherBody
	pattern   func(opts GrammarOptions) (constrain.Pattern, error)
}

func (f *blockFormat) Name() string { return f.name }

func (f *blockFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	return f.pattern(opts)
}

// markers are all the strings that structure a reply, held back while
// streaming.
func (f *blockFormat) markers() []string {
	var m []string
	for _, b := range f.blocks {
		m = append(m, b.open)
		if b.close != "" {
			m = append(m, b.close)
		}
	}
	m = append(m, f.eot...)
	m = append(m, f.heads...)
	if f.bareClose != "" {
		m = append(m, f.bareClose)
	}
	return m
}

// otherFinder finds markers in s at or after positions that only grow,
// remembering each marker's next occurrence, so that a scan of a reply
// costs O(len(s)) per marker rather than per step.
type otherFinder struct {
	s    string
	next map[string]int // the next occurrence at or after the last query; -1: none
}

func newOtherFinder(s string) *otherFinder { return &otherFinder{s: s, next: map[string]int{}} }

func (f *otherFinder) find(m string, pos int) int {
	if i, ok := f.next[m]; ok && (i < 0 || i >= pos) {
		return i
	}
	i := strings.Index(f.s[pos:], m)
	if i >= 0 {
		i += pos
	}
	f.next[m] = i
	return i
}

// nextOpen finds the first block opening at or after pos (the longest
// open marker where several start at one place).
func (f *blockFormat) nextOpen(fi *otherFinder, pos int) (int, *otherBlock) {
	best, which := -1, -1
	for i, b := range f.blocks {
		if j := fi.find(b.open, pos); j >= 0 && (best < 0 || j < best || j == best && len(b.open) > len(f.blocks[which].open)) {
			best, which = j, i
		}
	}
	if best < 0 {
		return -1, nil
	}
	return best, &f.blocks[which]
}

// opensAt reports whether a block opens at s[i].
func (f *blockFormat) opensAt(s string, i int) bool {
	for _, b := range f.blocks {
		if strings.HasPrefix(s[i:], b.open) {
			return true
		}
	}
	return false
}

// otherScan is what a scan of a reply found.
type otherScan struct {
	content, reasoning strings.Builder
	calls              []Call
	pending            *Call
	err                *ToolCallError
}

func (f *blockFormat) scan(reply string, final bool) *otherScan {
	out := &otherScan{}
	s := reply
	fi := newOtherFinder(s)
	markers := f.markers()
	pos := 0
	if lead := skipSpace(s, 0); len(f.heads) > 0 {
		for _, h := range f.heads {
			if strings.HasPrefix(s[lead:], h) {
				pos = lead + len(h)
			} else if !final && strings.HasPrefix(h, s[lead:]) {
				return out
			}
		}
	}
	if f.bareClose != "" {
		lead := skipSpace(s, pos)
		j, _ := f.nextOpen(fi, lead)
		if j != lead {
			i := fi.find(f.bareClose, pos)
			switch e := f.nextEOT(fi, pos); {
			case i >= 0 && (j < 0 || i < j) && (e < 0 || i < e):
				out.reasoning.WriteString(s[pos:i])
				pos = i + len(f.bareClose)
			case i < 0 && j < 0 && e < 0 && !final:
				return out // reasoning or an answer: not known yet
			}
		}
	}
	for {
		j, b := f.nextOpen(fi, pos)
		if e := f.nextEOT(fi, pos); e >= 0 && (j < 0 || e < j) {
			out.content.WriteString(s[pos:e]) // the reply ends here
			return out
		}
		if j < 0 {
			text := s[pos:]
			if !final {
				text = holdBack(text, markers)
			}
			out.content.WriteString(text)
			return out
		}
		out.content.WriteString(s[pos:j])
		start := j + len(b.open)
		next, closed := len(s), b.close == "" && final
		switch b.kind {
		case otherMark:
			next, closed = start, true
		case otherContent, otherReasoning, otherHeader:
			end, ended := len(s), false
			if b.close != "" {
				if k := fi.find(b.close, start); k >= 0 {
					end, next, closed = k, k+len(b.close), true
				}
			}
			if e := f.nextEOT(fi, start); e >= 0 && e < end {
				end, closed, ended = e, true, true
			}
			body := s[start:end]
			if !closed && !final {
				body = holdBack(body, markers)
				if strings.HasPrefix(b.skip, body) {
					body = ""
				}
			}
			body = strings.TrimPrefix(body, b.skip)
			switch b.kind {
			case otherContent:
				out.content.WriteString(body)
			case otherReasoning:
				out.reasoning.WriteString(body)
			}
			if ended {
				return out
			}
		case otherCalls:
			sink := &otherSink{final: final}
			end, err := f.body(s, start, b.close, sink)
			out.calls = append(out.calls, sink.calls...)
			if err == nil {
				next, closed, err = f.closeAt(s, end, b.close, final)
			}
			if err != nil {
				if final {
					out.calls = out.calls[:len(out.calls)-len(sink.calls)]
					out.err = &ToolCallError{Format: f.name, Offset: otherOffset(err), Text: s[j:], Err: err}
				} else if errors.Is(err, errOtherTruncated) {
					out.pending = sink.pending
				}
				return out
			}
		}
		if !closed && !final {
			return out
		}
		pos = next
		if pos >= len(s) {
			return out
		}
	}
}

// closeAt expects the close marker of a calls block at s[i] (after
// space). A reply that ends first is a block still being written, or in a
// complete reply one whose close marker the model left out.
func (f *blockFormat) closeAt(s string, i int, close string, final bool) (next int, closed bool, err error) {
	if close == "" {
		return i, true, nil
	}
	k := skipSpace(s, i)
	switch {
	case strings.HasPrefix(s[k:], close):
		return k + len(close), true, nil
	case k == len(s) || !final && strings.HasPrefix(close, s[k:]):
		return len(s), final, nil
	}
	return k, false, otherErrf(k, "want %q after the calls, got %q", close, truncate(s[k:], 20))
}

func (f *blockFormat) Parse(reply string) (Parsed, error) {
	sc := f.scan(reply, true)
	p := Parsed{Content: strings.TrimSpace(sc.content.String()), Reasoning: strings.TrimSpace(sc.reasoning.String()), Calls: sc.calls}
	if sc.err != nil {
		return p, sc.err
	}
	return p, nil
}

func (f *blockFormat) ParsePartial(reply string) Partial {
	sc := f.scan(reply, false)
	return Partial{Content: strings.TrimSpace(sc.content.String()), Reasoning: strings.TrimSpace(sc.reasoning.String()), Calls: sc.calls, Pending: sc.pending}
}

// nextEOT finds the first end-of-turn marker at or after pos that does
// not open a block: the reply ends there (what follows, such as a
// template's next turn, is not the model's).
func (f *blockFormat) nextEOT(fi *otherFinder, pos int) int {
	best := -1
	for _, m := range f.eot {
		for from := pos; ; {
			i := fi.find(m, from)
			if i < 0 {
				break
			}
			if f.opensAt(fi.s, i) {
				from = i + 1
				continue
			}
			if best < 0 || i < best {
				best = i
			}
			break
		}
	}
	return best
}

// otherExpect checks that s continues with lit at i; a prefix of lit at
// the end of s is truncation.
func otherExpect(s string, i int, lit string) (int, error) {
	if strings.HasPrefix(s[i:], lit) {
		return i + len(lit), nil
	}
	if strings.HasPrefix(lit, s[i:]) {
		return i, otherTruncated(len(s))
	}
	return i, otherErrf(i, "want %q, got %q", lit, truncate(s[i:], 20))
}

// --- JSON ---

// otherJSONEnd returns the end of the JSON value that starts at s[i]
// (after space); a value cut off by the end of s is truncation.
func otherJSONEnd(s string, i int) (int, error) {
	end, err := scanJSON(s, skipSpace(s, i))
	switch {
	case err == nil:
		return end, nil
	case err.eof:
		return len(s), otherTruncated(len(s))
	}
	return err.tok, otherErrf(err.tok, "%s", err.msg)
}

// otherJSONObject checks that a JSON object starts at s[i] (after space)
// and returns its end.
func otherJSONObject(s string, i int) (int, error) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] != '{' {
		return i, otherErrf(i, "arguments are not a JSON object")
	}
	return otherJSONEnd(s, i)
}

// otherField is one member of a JSON object: its key and the span of its
// value.
type otherField struct {
	key        string
	start, end int // end < 0: the value is cut off
}

// otherJSONFields reads the members of the JSON object at s[i] (after
// space). On truncation it returns the members read so far, the last one
// possibly with end -1 (its value is being written).
func otherJSONFields(s string, i int) (fields []otherField, end int, err error) {
	i = skipSpace(s, i)
	if i >= len(s) {
		return nil, i, otherTruncated(i)
	}
	if s[i] != '{' {
		return nil, i, otherErrf(i, "want a JSON object")
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return nil, i + 1, nil
	}
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return fields, i, otherTruncated(i)
		}
		if s[i] != '"' {
			return fields, i, otherErrf(i, "want an object key")
		}
		kend, err := otherJSONEnd(s, i)
		if err != nil {
			return fields, kend, err
		}
		var key string
		_ = json.Unmarshal([]byte(s[i:kend]), &key)
		i = skipSpace(s, kend)
		if i >= len(s) {
			return fields, i, otherTruncated(i)
		}
		if s[i] != ':' {
			return fields, i, otherErrf(i, "want ':' after an object key")
		}
		vstart := skipSpace(s, i+1)
		vend, err := otherJSONEnd(s, vstart)
		if err != nil {
			if errors.Is(err, errOtherTruncated) {
				fields = append(fields, otherField{key: key, start: vstart, end: -1})
			}
			return fields, vend, err
		}
		fields = append(fields, otherField{key: key, start: vstart, end: vend})
		i = skipSpace(s, vend)
		if i >= len(s) {
			return fields, i, otherTruncated(i)
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			return fields, i + 1, nil
		default:
			return fields, i, otherErrf(i, "want ',' or '}'")
		}
	}
}

// otherJSONString decodes the JSON string s.
func otherJSONString(s string) (string, bool) {
	var v string
	if len(s) == 0 || s[0] != '"' || json.Unmarshal([]byte(s), &v) != nil {
		return "", false
	}
	return v, true
}

// otherJSONList reads a JSON array of call objects at s[i] (after space):
// each complete element goes to elem, a cut-off one to partialElem (for
// the pending call). It returns the end of the array.
func otherJSONList(s string, i int, sink *otherSink, elem func(s string, at int, fields []otherField, complete bool) (Call, error)) (int, error) {
	i = skipSpace(s, i)
	if i >= len(s) {
		return i, otherTruncated(i)
	}
	if s[i] != '[' {
		return i, otherErrf(i, "want a JSON array of calls")
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1, nil
	}
	for {
		i = skipSpace(s, i)
		fields, end, err := otherJSONFields(s, i)
		if err != nil {
			if errors.Is(err, errOtherTruncated) {
				if c, perr := elem(s, i, fields, false); perr == nil && c.Name != "" {
					sink.pending = &c
				}
			}
			return end, err
		}
		c, err := elem(s, i, fields, true)
		if err != nil {
			return i, err
		}
		sink.add(c)
		i = skipSpace(s, end)
		if i >= len(s) {
			return i, otherTruncated(i)
		}
		switch s[i] {
		case ',':
			i++
		case ']':
			return i + 1, nil
		default:
			return i, otherErrf(i, "want ',' or ']' between calls")
		}
	}
}

// otherNamedCall builds a call from the members of a JSON call object
// holding the name under nameKey, the arguments under argsKey and an id
// under idKey (if not ""). With a cut-off member (end < 0) it returns what
// is known: the name once written, a prefix of the arguments.
func otherNamedCall(s string, at int, fields []otherField, complete bool, nameKey, argsKey, idKey string) (Call, error) {
	var c Call
	hasArgs := false
	for _, f := range fields {
		if f.end < 0 {
			if f.key == argsKey {
				c.Arguments = json.RawMessage(s[f.start:])
			}
			continue
		}
		raw := s[f.start:f.end]
		switch f.key {
		case nameKey:
			name, ok := otherJSONString(raw)
			if !ok || name == "" {
				return c, otherErrf(f.start, "%q must be a non-empty string", nameKey)
			}
			c.Name = name
		case argsKey:
			if raw[0] != '{' {
				return c, otherErrf(f.start, "%q must be a JSON object", argsKey)
			}
			c.Arguments, hasArgs = json.RawMessage(raw), true
		case idKey:
			if id, ok := otherJSONString(raw); ok {
				c.ID = id
			} else {
				c.ID = raw
			}
		}
	}
	if complete {
		if c.Name == "" {
			return c, otherErrf(at, "call has no %q", nameKey)
		}
		if !hasArgs {
			c.Arguments = json.RawMessage("{}")
		}
	}
	return c, nil
}

// --- Python and Gemma literals ---

// otherLit converts Python literals (True, 'text', [1, 2], {'a': None})
// or Gemma values ({key:<|"|>text<|"|>}) into JSON.
type otherLit struct {
	s string
	// quote delimits raw strings (Gemma's <|"|>, FunctionGemma's
	// <escape>); "" for none.
	quote string
	// python reads Python strings ('…' and "…" with Python's escapes)
	// and literals; otherwise strings are JSON's.
	python bool
	// bareKeys reads unquoted object keys.
	bareKeys bool
}

func (p *otherLit) space(i int) int { return skipSpace(p.s, i) }

// value writes the value at s[i] as JSON and returns its end.
func (p *otherLit) value(b *bytes.Buffer, i int, depth int) (int, error) {
	if depth > 200 {
		return i, otherErrf(i, "values nested too deeply")
	}
	i = p.space(i)
	s := p.s
	if i >= len(s) {
		return i, otherTruncated(i)
	}
	if p.quote != "" {
		if strings.HasPrefix(s[i:], p.quote) {
			body := i + len(p.quote)
			end := strings.Index(s[body:], p.quote)
			if end < 0 {
				return len(s), otherTruncated(len(s))
			}
			otherWriteString(b, s[body:body+end])
			return body + end + len(p.quote), nil
		}
		if strings.HasPrefix(p.quote, s[i:]) {
			return len(s), otherTruncated(len(s))
		}
	}
	switch c := s[i]; {
	case c == '"' || c == '\'' && p.python:
		str, end, err := p.str(i)
		if err != nil {
			return end, err
		}
		otherWriteString(b, str)
		return end, nil
	case c == '{':
		b.WriteByte('{')
		i = p.space(i + 1)
		for n := 0; ; n++ {
			if i >= len(s) {
				return i, otherTruncated(i)
			}
			if s[i] == '}' {
				b.WriteByte('}')
				return i + 1, nil
			}
			if n > 0 {
				b.WriteByte(',')
			}
			end, err := p.key(b, i, depth)
			if err != nil {
				return end, err
			}
			i = p.space(end)
			if i >= len(s) {
				return i, otherTruncated(i)
			}
			if s[i] != ':' {
				return i, otherErrf(i, "want ':' after a key")
			}
			b.WriteByte(':')
			if i, err = p.value(b, i+1, depth+1); err != nil {
				return i, err
			}
			i = p.space(i)
			if i >= len(s) {
				return i, otherTruncated(i)
			}
			switch s[i] {
			case ',':
				i = p.space(i + 1)
			case '}':
			default:
				return i, otherErrf(i, "want ',' or '}'")
			}
		}
	case c == '[' || c == '(' && p.python:
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		b.WriteByte('[')
		i = p.space(i + 1)
		for n := 0; ; n++ {
			if i >= len(s) {
				return i, otherTruncated(i)
			}
			if s[i] == closer {
				b.WriteByte(']')
				return i + 1, nil
			}
			if n > 0 {
				b.WriteByte(',')
			}
			var err error
			if i, err = p.value(b, i, depth+1); err != nil {
				return i, err
			}
			i = p.space(i)
			if i >= len(s) {
				return i, otherTruncated(i)
			}
			switch s[i] {
			case ',':
				i = p.space(i + 1)
			case closer:
			default:
				return i, otherErrf(i, "want ',' or %q", closer)
			}
		}
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		start := i
		for i < len(s) && strings.IndexByte("+-0123456789.eE_", s[i]) >= 0 {
			i++
		}
		if i == len(s) {
			return i, otherTruncated(i)
		}
		num := strings.ReplaceAll(s[start:i], "_", "")
		if !json.Valid([]byte(num)) {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return start, otherErrf(start, "malformed number %q", s[start:i])
			}
			num = strconv.FormatFloat(f, 'g', -1, 64)
			if !json.Valid([]byte(num)) {
				return start, otherErrf(start, "number %q has no JSON spelling", s[start:i])
			}
		}
		b.WriteString(num)
		return i, nil
	default:
		start := i
		for i < len(s) && otherIdentByte(s[i], i > start) {
			i++
		}
		word := s[start:i]
		if i == len(s) {
			for _, w := range []string{"True", "False", "None", "true", "false", "null"} {
				if strings.HasPrefix(w, word) && word != "" {
					return i, otherTruncated(i)
				}
			}
		}
		switch word {
		case "True", "true":
			b.WriteString("true")
		case "False", "false":
			b.WriteString("false")
		case "None", "null":
			b.WriteString("null")
		default:
			return start, otherErrf(start, "want a value, got %q", truncate(s[start:], 20))
		}
		return i, nil
	}
}

// key writes an object key as a JSON string.
func (p *otherLit) key(b *bytes.Buffer, i int, depth int) (int, error) {
	s := p.s
	if p.bareKeys && !(p.quote != "" && (strings.HasPrefix(s[i:], p.quote) || strings.HasPrefix(p.quote, s[i:]))) && s[i] != '"' && s[i] != '\'' {
		start := i
		for i < len(s) && strings.IndexByte(":,{}[] \t\r\n", s[i]) < 0 {
			i++
		}
		if i == len(s) {
			return i, otherTruncated(i)
		}
		if i == start {
			return i, otherErrf(i, "want a key")
		}
		otherWriteString(b, s[start:i])
		return i, nil
	}
	var kb bytes.Buffer
	end, err := p.value(&kb, i, depth+1)
	if err != nil {
		return end, err
	}
	if kb.Len() == 0 || kb.Bytes()[0] != '"' {
		return i, otherErrf(i, "object key is not a string")
	}
	b.Write(kb.Bytes())
	return end, nil
}

// str decodes the Python or JSON string literal at s[i].
func (p *otherLit) str(i int) (string, int, error) {
	s := p.s
	q := s[i]
	if !p.python {
		end, err := otherJSONEnd(s, i)
		if err != nil {
			return "", end, err
		}
		v, _ := otherJSONString(s[i:end])
		return v, end, nil
	}
	if strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		return p.pyTriple(i)
	}
	var out strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch c {
		case q:
			return out.String(), j + 1, nil
		case '\n':
			return "", j, otherErrf(j, "newline in a string")
		case '\\':
			n, err := otherPyEscape(&out, s, j)
			if err != nil {
				return "", n, err
			}
			j = n - 1
		default:
			out.WriteByte(c)
		}
	}
	return "", len(s), otherTruncated(len(s))
}

// pyTriple decodes a triple-quoted Python string at s[i].
func (p *otherLit) pyTriple(i int) (string, int, error) {
	s := p.s
	delim := s[i : i+3]
	var out strings.Builder
	for j := i + 3; j < len(s); j++ {
		if strings.HasPrefix(s[j:], delim) {
			return out.String(), j + 3, nil
		}
		if s[j] == '\\' {
			n, err := otherPyEscape(&out, s, j)
			if err != nil {
				return "", n, err
			}
			j = n - 1
			continue
		}
		out.WriteByte(s[j])
	}
	return "", len(s), otherTruncated(len(s))
}

// otherPyEscape decodes the Python escape at s[j] (a backslash) and
// returns the index after it. Unknown escapes keep their backslash, as
// Python does.
func otherPyEscape(out *strings.Builder, s string, j int) (int, error) {
	if j+1 >= len(s) {
		return len(s), otherTruncated(len(s))
	}
	c := s[j+1]
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}
	if r, ok := simple[c]; ok {
		out.WriteString(r)
		return j + 2, nil
	}
	hex := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hex[c]; ok {
		if j+2+n > len(s) {
			return len(s), otherTruncated(len(s))
		}
		v, err := strconv.ParseUint(s[j+2:j+2+n], 16, 32)
		if err != nil || v > utf8.MaxRune {
			return j, otherErrf(j, "malformed escape %q", s[j:j+2+n])
		}
		out.WriteRune(rune(v))
		return j + 2 + n, nil
	}
	if c >= '0' && c <= '7' {
		k := j + 1
		for k < len(s) && k < j+4 && s[k] >= '0' && s[k] <= '7' {
			k++
		}
		v, _ := strconv.ParseUint(s[j+1:k], 8, 32)
		out.WriteRune(rune(v))
		return k, nil
	}
	out.WriteByte('\\')
	return j + 1, nil
}

func otherIdentByte(c byte, notFirst bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || notFirst && c >= '0' && c <= '9'
}

// otherWriteString writes s as a JSON string (no HTML escaping).
func otherWriteString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1)
}

// otherPyCall reads name(key=value, …) at s[i] (after space) with Python
// literal values; it reports the name to sink once the '(' is read.
func otherPyCall(s string, i int, sink *otherSink) (Call, int, error) {
	i = skipSpace(s, i)
	start := i
	for i < len(s) && (otherIdentByte(s[i], i > start) || s[i] == '.' && i > start || s[i] == '-' && i > start) {
		i++
	}
	if i == len(s) {
		return Call{}, i, otherTruncated(i)
	}
	name := s[start:i]
	if name == "" || s[i] != '(' {
		return Call{}, start, otherErrf(start, "want a call name(arguments), got %q", truncate(s[start:], 30))
	}
	sink.pending = &Call{Name: name}
	p := &otherLit{s: s, python: true}
	var b bytes.Buffer
	b.WriteByte('{')
	i = skipSpace(s, i+1)
	for n := 0; ; n++ {
		if i >= len(s) {
			return Call{}, i, otherTruncated(i)
		}
		if s[i] == ')' {
			b.WriteByte('}')
			return Call{Name: name, Arguments: json.RawMessage(b.Bytes())}, i + 1, nil
		}
		kstart := i
		for i < len(s) && otherIdentByte(s[i], i > kstart) {
			i++
		}
		key := s[kstart:i]
		i = skipSpace(s, i)
		if i >= len(s) {
			return Call{}, i, otherTruncated(i)
		}
		if key == "" || s[i] != '=' {
			return Call{}, kstart, otherErrf(kstart, "call %s: want key=value", name)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		otherWriteString(&b, key)
		b.WriteByte(':')
		var err error
		if i, err = p.value(&b, i+1, 0); err != nil {
			return Call{}, i, err
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return Call{}, i, otherTruncated(i)
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ')':
		default:
			return Call{}, i, otherErrf(i, "call %s: want ',' or ')'", name)
		}
	}
}

// --- grammar helpers ---

// otherSchema is a tool's parameter schema ({"type":"object"} if none).
func otherSchema(t Tool) []byte {
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		return []byte(`{"type":"object"}`)
	}
	return t.Parameters
}

// otherArgs is the arguments object of tool t.
func otherArgs(t Tool, opts constrain.JSONOptions) constrain.Pattern {
	return constrain.JSONValue(otherSchema(t), "", opts)
}

// otherEachTool is a choice of one call to any of the tools.
func otherEachTool(name string, opts GrammarOptions, one func(t Tool) (constrain.Pattern, error)) (constrain.Pattern, error) {
	if len(opts.Tools) == 0 {
		return constrain.Pattern{}, fmt.Errorf("toolcall: %s grammar: no tools to call", name)
	}
	alts := make([]constrain.Pattern, 0, len(opts.Tools))
	for _, t := range opts.Tools {
		p, err := one(t)
		if err != nil {
			return constrain.Pattern{}, err
		}
		alts = append(alts, p)
	}
	return constrain.Choice(alts...), nil
}

// otherSeveral is one call, or with parallel 1..n calls separated by sep.
func otherSeveral(one, sep constrain.Pattern, parallel bool) constrain.Pattern {
	if !parallel {
		return one
	}
	return constrain.Sequence(one, constrain.Repeat(constrain.Sequence(sep, one), 0, -1))
}

// otherProperty is one declared property of an arguments schema.
type otherProperty struct {
	name     string
	required bool
	str      bool     // typed "string" only
	enum     []string // the string values of an enum or const of strings
}

// otherProperties lists the declared properties of a tool's schema in
// declaration order.
func otherProperties(t Tool) ([]otherProperty, error) {
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(otherSchema(t), &schema); err != nil {
		return nil, fmt.Errorf("toolcall: tool %s: parameters: %w", t.Name, err)
	}
	if len(schema.Properties) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("toolcall: tool %s: properties must be an object", t.Name)
	}
	req := map[string]bool{}
	for _, r := range schema.Required {
		req[r] = true
	}
	var props []otherProperty
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("toolcall: tool %s: properties: %w", t.Name, err)
		}
		name, _ := tok.(string)
		var ps struct {
			Type  json.RawMessage `json:"type"`
			Enum  []any           `json:"enum"`
			Const *any            `json:"const"`
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("toolcall: tool %s: property %s: %w", t.Name, name, err)
		}
		_ = json.Unmarshal(raw, &ps)
		p := otherProperty{name: name, required: req[name], str: string(ps.Type) == `"string"`}
		vals := ps.Enum
		if ps.Const != nil {
			vals = []any{*ps.Const}
		}
		for _, v := range vals {
			if s, ok := v.(string); ok {
				p.enum = append(p.enum, s)
			}
		}
		if len(p.enum) != len(vals) {
			p.enum = nil
		}
		props = append(props, p)
	}
	return props, nil
}

// otherPointer is the JSON pointer of a property's schema.
func otherPointer(name string) string {
	return "/properties/" + strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// otherKeyValues is the members of an arguments object written one after
// another in declaration order, each by member(p), joined by sep:
// required members always, optional ones as the model likes.
func otherKeyValues(props []otherProperty, sep constrain.Pattern, member func(p otherProperty) constrain.Pattern) constrain.Pattern {
	n := len(props)
	firstRequired := n
	for i, p := range props {
		if p.required {
			firstRequired = i
			break
		}
	}
	// rest(j): the members after j, each preceded by sep.
	rest := func(j int) constrain.Pattern {
		var parts []constrain.Pattern
		for m := j + 1; m < n; m++ {
			kv := constrain.Sequence(sep, member(props[m]))
			if !props[m].required {
				kv = constrain.Optional(kv)
			}
			parts = append(parts, kv)
		}
		return constrain.Sequence(parts...)
	}
	var alts []constrain.Pattern
	for j := 0; j <= firstRequired && j < n; j++ {
		alts = append(alts, constrain.Sequence(member(props[j]), rest(j)))
	}
	if firstRequired == n {
		alts = append(alts, constrain.Literal(""))
	}
	return constrain.Choice(alts...)
}

// otherModes combines answer text and calls as the mode asks: text, the
// calls, or text then optionally calls.
func otherModes(opts GrammarOptions, text, calls func() (constrain.Pattern, error)) (constrain.Pattern, error) {
	t, err := text()
	if err != nil || opts.Mode == TextOnly {
		return t, err
	}
	if len(opts.Tools) == 0 && opts.Mode == TextOrCalls {
		return t, nil
	}
	c, err := calls()
	if err != nil || opts.Mode == CallsOnly {
		return c, err
	}
	return constrain.Sequence(t, constrain.Optional(c)), nil
}

// otherSortedMarkers returns markers longest first, without duplicates.
func otherSortedMarkers(ms ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// --- calls written with tags ---

// otherTagSyntax describes calls written with tags (Hy3, MiniCPM, Muse):
// callOpen NAME nameEnd, then parameters keyOpen KEY keyEnd valOpen VALUE
// valClose, then callClose. Values are JSON (or Python literals) when
// they read as such, else raw strings.
type otherTagSyntax struct {
	callOpen, nameEnd, keyOpen, keyEnd, valOpen, valClose, callClose string
	// sep is the line break the grammar writes after the name, between
	// a key and its value, and after each value.
	sep, keySep string
	// one: the block's open marker is callOpen; the body is one call.
	one bool
	// python reads values as Python literals (else JSON); cdata unwraps
	// <![CDATA[…]]> values.
	python, cdata bool
}

// calls reads the calls at s[i].
func (x *otherTagSyntax) calls(s string, i int, _ string, sink *otherSink) (int, error) {
	for n := 0; ; n++ {
		i = skipSpace(s, i)
		at := i
		if !x.one {
			if n > 0 && !strings.HasPrefix(s[i:], x.callOpen) && !strings.HasPrefix(x.callOpen, s[i:]) {
				return i, nil
			}
			var err error
			if at, err = otherExpect(s, i, x.callOpen); err != nil {
				return at, err
			}
		}
		k := strings.Index(s[at:], x.nameEnd)
		if k < 0 {
			if j := strings.IndexAny(s[at:], "<>\n"); j >= 0 {
				return at, otherErrf(at, "want a function name then %q", x.nameEnd)
			}
			return len(s), otherTruncated(len(s))
		}
		name := strings.TrimSpace(s[at : at+k])
		if name == "" || strings.ContainsAny(name, "<>\n\"") {
			return at, otherErrf(at, "want a function name, got %q", truncate(name, 40))
		}
		at += k + len(x.nameEnd)
		sink.pending = &Call{Name: name}
		var b bytes.Buffer
		b.WriteByte('{')
		for m := 0; ; m++ {
			at = skipSpace(s, at)
			if strings.HasPrefix(s[at:], x.callClose) {
				at += len(x.callClose)
				break
			}
			if at == len(s) || strings.HasPrefix(x.callClose, s[at:]) && !strings.HasPrefix(x.keyOpen, s[at:]) {
				return len(s), otherTruncated(len(s))
			}
			var err error
			if at, err = otherExpect(s, at, x.keyOpen); err != nil {
				return at, err
			}
			k := strings.Index(s[at:], x.keyEnd)
			if k < 0 {
				return len(s), otherTruncated(len(s))
			}
			key := s[at : at+k]
			if strings.ContainsAny(key, "<>\n") {
				return at, otherErrf(at, "malformed parameter name %q", truncate(key, 40))
			}
			at += k + len(x.keyEnd)
			if x.valOpen != "" {
				if at, err = otherExpect(s, skipSpace(s, at), x.valOpen); err != nil {
					return at, err
				}
			}
			val, end, err := x.value(s, at, sink.final)
			if err != nil {
				return end, err
			}
			if m > 0 {
				b.WriteByte(',')
			}
			otherWriteString(&b, key)
			b.WriteByte(':')
			b.Write(val)
			at = end
		}
		b.WriteByte('}')
		sink.add(Call{Name: name, Arguments: json.RawMessage(b.Bytes())})
		i = at
		if x.one {
			return i, nil
		}
	}
}

// value reads the value at s[i] up to valClose, as JSON. While the reply
// is still being written, a structured value cut off is not yet read as
// raw text (its strings may hold the closing tag).
func (x *otherTagSyntax) value(s string, i int, final bool) ([]byte, int, error) {
	// A structured value is scanned, so that strings inside it may hold
	// anything, the closing tag included.
	if j := skipSpace(s, i); j < len(s) && strings.IndexByte(`{["'(`, s[j]) >= 0 {
		var b bytes.Buffer
		var end int
		var err error
		if x.python {
			p := &otherLit{s: s, python: true}
			end, err = p.value(&b, j, 0)
		} else if end, err = otherJSONEnd(s, j); err == nil {
			b.WriteString(s[j:end])
		}
		if err == nil {
			if k := skipSpace(s, end); strings.HasPrefix(s[k:], x.valClose) {
				return b.Bytes(), k + len(x.valClose), nil
			}
		}
		if !final && (errors.Is(err, errOtherTruncated) || err == nil && strings.HasPrefix(x.valClose, s[skipSpace(s, end):])) {
			return nil, len(s), otherTruncated(len(s))
		}
	}
	k := strings.Index(s[i:], x.valClose)
	if k < 0 {
		return nil, len(s), otherTruncated(len(s))
	}
	return x.rawValue(s[i : i+k]), i + k + len(x.valClose), nil
}

// rawValue is the JSON of a value written raw: JSON (or a Python literal)
// when it reads as one, else the text as a string.
func (x *otherTagSyntax) rawValue(raw string) []byte {
	var b bytes.Buffer
	t := strings.TrimSpace(raw)
	if x.cdata && strings.HasPrefix(t, "<![CDATA[") && strings.HasSuffix(t, "]]>") {
		otherWriteString(&b, t[len("<![CDATA["):len(t)-len("]]>")])
		return b.Bytes()
	}
	if x.python {
		p := &otherLit{s: t + "\n", python: true} // the newline ends a trailing number or word
		if end, err := p.value(&b, 0, 0); err == nil && skipSpace(p.s, end) == len(p.s) && t != "" {
			return b.Bytes()
		}
		b.Reset()
	} else if t != "" && json.Valid([]byte(t)) {
		return []byte(t)
	}
	otherWriteString(&b, raw)
	return b.Bytes()
}

// otherTagPattern forces one call of tool t in tag syntax. String-typed
// values are written raw where the reader cannot take them for JSON (or
// in CDATA with cdata), other values in JSON (or Python) spelling.
func (x *otherTagSyntax) pattern(t Tool, opts GrammarOptions) (constrain.Pattern, error) {
	props, err := otherProperties(t)
	if err != nil {
		return constrain.Pattern{}, err
	}
	jo := opts.JSON
	if x.python {
		jo.Dialect = constrain.DialectPython
	}
	schema := otherSchema(t)
	var parts []constrain.Pattern
	parts = append(parts, constrain.Literal(x.callOpen+t.Name+x.nameEnd+x.sep))
	for _, p := range props {
		var val constrain.Pattern
		switch {
		case p.str && x.cdata:
			val = constrain.Sequence(constrain.Literal("<![CDATA["), constrain.TextWithout("]]>", x.valClose), constrain.Literal("]]>"))
			if len(p.enum) > 0 {
				var alts []constrain.Pattern
				for _, e := range p.enum {
					if !strings.Contains(e, "]]>") {
						alts = append(alts, constrain.Literal("<![CDATA["+e+"]]>"))
					}
				}
				val = constrain.Choice(alts...)
			}
		case p.str:
			val = otherRawString(x.valClose, p.enum)
		default:
			val = constrain.JSONValue(schema, otherPointer(p.name), jo)
		}
		kv := constrain.Sequence(constrain.Literal(x.keyOpen+p.name+x.keyEnd+x.keySep+x.valOpen), val, constrain.Literal(x.valClose+x.sep))
		if !p.required {
			kv = constrain.Optional(kv)
		}
		parts = append(parts, kv)
	}
	parts = append(parts, constrain.Literal(x.callClose))
	return constrain.Sequence(parts...), nil
}

// otherRawString is a string value written raw before close, in a form a
// reader of "JSON if it parses, else text" takes for a string: the empty
// string, text whose first character cannot start JSON, or a JSON string
// (that avoids '<') for the rest.
func otherRawString(close string, enum []string) constrain.Pattern {
	if len(enum) > 0 {
		var alts []constrain.Pattern
		for _, e := range enum {
			if strings.Contains(e, close) {
				continue
			}
			if t := strings.TrimSpace(e); t != "" && json.Valid([]byte(t)) || e != t {
				alts = append(alts, constrain.Literal(otherQuote(e)))
			} else {
				alts = append(alts, constrain.Literal(e))
			}
		}
		return constrain.Choice(alts...)
	}
	var safe, other []constrain.Pattern
	for c := byte(0x21); c < 0x7f; c++ {
		if c == '<' {
			continue
		}
		other = append(other, constrain.Literal(string(c)))
		if strings.IndexByte(`{["-0123456789tfn`, c) < 0 {
			safe = append(safe, constrain.Literal(string(c)))
		}
	}
	rest := constrain.TextWithout(close)
	alts := []constrain.Pattern{
		constrain.Literal(""),
		constrain.Sequence(constrain.Choice(safe...), rest),
		constrain.JSONValue([]byte(`{"type":"string","pattern":"^[^<]*$"}`), "", constrain.JSONOptions{}),
	}
	for _, lit := range []string{"true", "false", "null"} {
		for k := 1; k < len(lit); k++ {
			var next []constrain.Pattern
			for c := byte(0x21); c < 0x7f; c++ {
				if c != '<' && c != lit[k] {
					next = append(next, constrain.Literal(string(c)))
				}
			}
			alts = append(alts, constrain.Literal(lit[:k]), constrain.Sequence(constrain.Literal(lit[:k]), constrain.Choice(next...), rest))
		}
		alts = append(alts, constrain.Sequence(constrain.Literal(lit), constrain.Choice(other...), rest))
	}
	return constrain.Choice(alts...)
}
