package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/litert-go/litert-go/constrain"
)

// This file holds what the tagged families (DeepSeek, Kimi, Qwen3-Coder,
// Seed-OSS, GLM, MiniMax, …) share: the scanner that splits a reply into
// text and call regions, the typing of XML-style parameter values, and the
// schema helpers their grammars and typed parsers use.

// TypedParser is implemented by the formats whose syntax does not write the
// JSON type of every argument (XML-style parameters: qwen3-coder,
// seed-oss, glm, minimax-m2, minimax-m3). Parse types a raw value by its
// text (see taggedUntyped); a caller that knows the tool schemas gets
// exact types from ParseWithTools (a string parameter written "3" stays
// the string "3"). The ...WithTools methods otherwise behave as Parse and
// ParsePartial.
type TypedParser interface {
	ParseWithTools(reply string, tools []Tool) (Parsed, error)
	ParsePartialWithTools(reply string, tools []Tool) Partial
}

// taggedRegion is what a region parser reports about one call region
// (from its opening marker on).
type taggedRegion struct {
	calls   []Call
	end     int   // offset just past the region, when done
	done    bool  // the region is complete
	pending *Call // the call being written (partial input only)
	err     error // the region is malformed (or truncated, on final input)
	errAt   int   // where it failed
}

// add records the outcome of parsing one call: a finished call is appended
// and add reports true; an error or a call still being written ends the
// region, and add reports false.
func (r *taggedRegion) add(c Call, pending *Call, err error, errAt int) bool {
	switch {
	case err != nil:
		r.err, r.errAt = err, errAt
		return false
	case pending != nil:
		r.pending = pending
		return false
	}
	r.calls = append(r.calls, c)
	return true
}

// taggedSpec is one tagged family: which markers open call regions, which
// markers are dropped from the text, and how a region is parsed.
type taggedSpec struct {
	name string
	// opens are the markers that start a call region.
	opens []string
	// drops are markers removed wherever they stand in the text:
	// end-of-turn markers (the reply ends with them) and stray turn
	// markers some templates write between calls and text.
	drops []string
	// region parses the call region that starts at at (on one of opens).
	// final says the input is complete.
	region func(s string, at int, final bool, tools taggedTools) taggedRegion
	// reasoning, when set, splits reasoning off the text first.
	reasoning *taggedReasoning
	// leadDrops are markers dropped at the start of a reply only: the
	// "</think>" that closes an empty reasoning block the generation
	// prompt opened (templates that write "<think></think>" into the
	// prompt but "</think>" into the stored turn leave it in the cut).
	leadDrops []string
}

// taggedLeadDrop returns the lead drop of most tagged families.
func taggedLeadDrop() []string { return []string{"</think>"} }

// dropLead removes a lead drop from the start of s and returns the offset
// of the rest. more says s may still grow into one (partial input).
func (sp *taggedSpec) dropLead(s string) (rest string, at int, more bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	for _, m := range sp.leadDrops {
		if strings.HasPrefix(t, m) {
			at = len(s) - len(t) + len(m)
			return s[at:], at, false
		}
		if t != "" && strings.HasPrefix(m, t) {
			more = true
		}
	}
	return s, 0, more
}

// taggedReasoning is a reasoning block the format itself reads (the
// generic <think> wrapper does not know its markers).
type taggedReasoning struct {
	open, close string
	// openedByPrompt: the generation prompt may open the block, so a reply
	// can start inside it. Text before close is then reasoning; while close
	// has not been seen, ParsePartial cannot tell reasoning from content
	// and shows the text as Reasoning (the default of such templates)
	// unless one of notAfter, markers that only follow the content, says
	// the block was not open.
	openedByPrompt bool
	notAfter       []string
}

// taggedTools maps a tool name to its schema (nil: unknown schemas; values
// are then typed by their text).
type taggedTools map[string]*taggedTool

type taggedTool struct {
	params json.RawMessage
	props  []taggedProp
}

func taggedToolMap(tools []Tool) taggedTools {
	if len(tools) == 0 {
		return nil
	}
	m := taggedTools{}
	for _, t := range tools {
		props, _ := taggedProps(t.Parameters)
		m[t.Name] = &taggedTool{params: t.Parameters, props: props}
	}
	return m
}

// prop returns the schema of the named tool's parameter (nil: unknown).
func (t taggedTools) prop(tool, key string) *taggedProp {
	tt := t[tool]
	if tt == nil {
		return nil
	}
	for i, p := range tt.props {
		if p.Name == key {
			return &tt.props[i]
		}
	}
	return nil
}

// parse implements Parse and ParseWithTools.
func (sp *taggedSpec) parse(reply string, tools taggedTools) (Parsed, error) {
	var out Parsed
	text, textAt, _ := sp.dropLead(reply)
	if sp.reasoning != nil {
		r, rest, at := sp.reasoning.split(text, true)
		out.Reasoning = strings.TrimSpace(r)
		text, textAt = rest, textAt+at
	}
	content, calls, _, err := sp.scan(text, true, tools)
	out.Content = strings.TrimSpace(content)
	out.Calls = calls
	if err != nil {
		err.Offset += textAt
		return out, err
	}
	return out, nil
}

// partial implements ParsePartial and ParsePartialWithTools.
func (sp *taggedSpec) partial(reply string, tools taggedTools) Partial {
	var out Partial
	text, _, more := sp.dropLead(reply)
	if more {
		return out
	}
	if sp.reasoning != nil {
		r, rest, _ := sp.reasoning.split(text, false)
		out.Reasoning = strings.TrimSpace(r)
		if rest == "" && len(r) > 0 {
			// Still inside the block: hold back what may become the
			// close marker, and trailing space the final trim drops.
			out.Reasoning = strings.TrimSpace(taggedWholeRunes(holdBack(strings.TrimLeft(r, " \t\r\n"), []string{sp.reasoning.close})))
		}
		text = rest
	}
	content, calls, pending, _ := sp.scan(text, false, tools)
	out.Content = strings.TrimSpace(taggedWholeRunes(content))
	out.Calls = calls
	out.Pending = pending
	return out
}

// taggedWholeRunes cuts a character the text ends inside of (a byte
// prefix of a streamed reply), so that partial text is valid UTF-8.
func taggedWholeRunes(s string) string {
	for k := 1; k <= 3 && k <= len(s); k++ {
		if utf8.RuneStart(s[len(s)-k]) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				return s[:len(s)-k]
			}
			break
		}
	}
	return s
}

// split separates the reasoning block from the reply. It returns the
// reasoning text, the text after the block and the offset of that text.
// On partial input the reasoning is what is known so far (rest is "" while
// inside the block).
func (r *taggedReasoning) split(s string, final bool) (reasoning, rest string, at int) {
	lead := len(s) - len(strings.TrimLeft(s, " \t\r\n"))
	body := s[lead:]
	opened := false
	switch {
	case strings.HasPrefix(body, r.open):
		opened = true
		body = body[len(r.open):]
		lead += len(r.open)
	case !final && strings.HasPrefix(r.open, body):
		return "", "", 0 // may still become the open marker
	}
	if i := strings.Index(body, r.close); i >= 0 {
		return body[:i], body[i+len(r.close):], lead + i + len(r.close)
	}
	if !opened && r.openedByPrompt && !final {
		for _, m := range r.notAfter {
			if strings.Contains(body, m) {
				return "", s, 0
			}
		}
		return body, "", len(s)
	}
	if opened {
		return body, "", len(s) // unterminated: all reasoning
	}
	return "", s, 0
}

// scan reads text and call regions. On partial input it holds back any
// tail that may still become a marker and reports the call being written.
func (sp *taggedSpec) scan(s string, final bool, tools taggedTools) (string, []Call, *Call, *ToolCallError) {
	var content strings.Builder
	var calls []Call
	pos := 0
	finder := newTaggedFinder(s, sp.opens, sp.drops)
	for {
		at, marker, open := finder.find(pos)
		if at < 0 {
			rest := s[pos:]
			if !final {
				rest = holdBack(rest, sp.opens, sp.drops)
			}
			content.WriteString(rest)
			return content.String(), calls, nil, nil
		}
		content.WriteString(s[pos:at])
		if !open {
			pos = at + len(marker)
			continue
		}
		r := sp.region(s, at, final, tools)
		calls = append(calls, r.calls...)
		if r.err != nil {
			return content.String(), calls, nil, &ToolCallError{Format: sp.name, Offset: r.errAt, Text: taggedErrText(s, r.errAt), Err: r.err}
		}
		if !r.done {
			return content.String(), calls, r.pending, nil
		}
		pos = r.end
	}
}

// taggedErrText is the offending text from the error's offset on (at most
// 500 bytes, cut at a character boundary).
func taggedErrText(s string, at int) string {
	t := s[min(at, len(s)):]
	if len(t) > 500 {
		n := 500
		for n > 0 && !utf8.RuneStart(t[n]) {
			n--
		}
		t = t[:n]
	}
	return t
}

// taggedFinder finds the earliest marker (an open or a drop) at or after
// a position. It remembers each marker's next occurrence, so that a scan
// of the whole reply reads it once per marker, not once per marker found.
type taggedFinder struct {
	s       string
	markers []string
	open    []bool
	next    []int // next occurrence; -1: none left; -2: not searched yet
}

func newTaggedFinder(s string, opens, drops []string) *taggedFinder {
	f := &taggedFinder{s: s}
	for k, group := range [2][]string{opens, drops} {
		for _, m := range group {
			f.markers = append(f.markers, m)
			f.open = append(f.open, k == 0)
			f.next = append(f.next, -2)
		}
	}
	return f
}

// find returns the earliest marker at or after pos (the longest where
// several start there); -1 when none.
func (f *taggedFinder) find(pos int) (int, string, bool) {
	best, marker, open := -1, "", false
	for i, m := range f.markers {
		if f.next[i] == -1 {
			continue
		}
		if f.next[i] < pos {
			j := strings.Index(f.s[pos:], m)
			if j < 0 {
				f.next[i] = -1
				continue
			}
			f.next[i] = pos + j
		}
		if at := f.next[i]; best < 0 || at < best || (at == best && len(m) > len(marker)) {
			best, marker, open = at, m, f.open[i]
		}
	}
	return best, marker, open
}

// Matching with flexible whitespace.

// taggedMatch is the outcome of matching a literal.
type taggedMatch int

const (
	taggedNo   taggedMatch = iota // the text differs
	taggedYes                     // matched
	taggedMore                    // the text ended inside the literal
)

// taggedFlex matches lit at s[pos:], where each '\n' in lit matches any
// run of whitespace (none included). It returns the end of the match.
// At the end of partial input, whitespace that may continue and a literal
// cut short both give taggedMore; on final input a literal whose rest is
// only '\n's matches.
func taggedFlex(s string, pos int, lit string, final bool) (int, taggedMatch) {
	i := pos
	for j := 0; j < len(lit); j++ {
		if lit[j] == '\n' {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i == len(s) && !final {
				return i, taggedMore
			}
			continue
		}
		if i == len(s) {
			if final {
				return i, taggedNo
			}
			return i, taggedMore
		}
		if s[i] != lit[j] {
			return i, taggedNo
		}
		i++
	}
	return i, taggedYes
}

var (
	errTaggedTruncated = errors.New("the call is not complete")
	errTaggedNoName    = errors.New("the call names no function")
)

func taggedExpected(what string) error { return fmt.Errorf("expected %q", what) }

// taggedJSONEnd returns the end of the JSON value that starts at pos, so
// that a marker inside a JSON string does not end it. more says the text
// ends inside the value; end is -1 when it is not JSON.
func taggedJSONEnd(s string, pos int) (end int, more bool) {
	end, err := scanJSON(s, skipSpace(s, pos))
	if err != nil {
		return -1, err.eof
	}
	return end, false
}

// Argument values.

// taggedHint is what the syntax itself says of a value's type.
type taggedHint int

const (
	hintNone   taggedHint = iota // nothing: decide by schema or text
	hintString                   // the value is a raw string
	hintJSON                     // the value is JSON
)

// taggedArgValue turns a raw parameter value into JSON text.
//
// The XML-style syntaxes write strings raw and other values as JSON (some
// templates as Python literals: True, None, ['a'], {'k': 1}). A hint from
// the syntax (DSML's string="true|false", Kimi K3's type) decides first;
// then the parameter's schema when the caller gave the tools; else the text
// (taggedUntyped).
func taggedArgValue(raw string, hint taggedHint, prop *taggedProp) (string, error) {
	switch hint {
	case hintString:
		return taggedJSONString(raw), nil
	case hintJSON:
		t := strings.TrimSpace(raw)
		if json.Valid([]byte(t)) {
			return t, nil
		}
		if v, ok := taggedPython(t); ok {
			return v, nil
		}
		return "", fmt.Errorf("value %q is not JSON", truncate(raw, 80))
	}
	if prop == nil || len(prop.Types) == 0 {
		return taggedUntyped(raw), nil
	}
	if prop.onlyString() {
		return taggedJSONString(raw), nil
	}
	t := strings.TrimSpace(raw)
	cand := ""
	if json.Valid([]byte(t)) {
		cand = t
	} else if v, ok := taggedPython(t); ok {
		cand = v
	}
	if cand != "" && prop.admits(cand) {
		return cand, nil
	}
	if prop.Types["string"] || cand == "" {
		return taggedJSONString(raw), nil
	}
	return cand, nil
}

// taggedUntyped types a raw value by its text alone: a value that is a JSON
// number, boolean, null, array or object (or the Python literal of one:
// True, False, None, ['a', 1], {'k': 'v'}) is taken as that value; any
// other text, quoted text included, is a string. The limit of this rule: a
// string parameter whose value reads as one of those ("3", "true", "[1]")
// comes back as a number, boolean or array. Callers that know the schemas
// use ParseWithTools to avoid it.
func taggedUntyped(raw string) string {
	t := strings.TrimSpace(raw)
	if t == "" || t[0] == '"' {
		return taggedJSONString(raw)
	}
	if json.Valid([]byte(t)) {
		return t
	}
	if v, ok := taggedPython(t); ok && v[0] != '"' {
		return v
	}
	return taggedJSONString(raw)
}

// taggedJSONString writes s as a JSON string (no HTML escaping).
func taggedJSONString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// taggedObject builds a JSON object from keys and JSON values, in order.
func taggedObject(keys, values []string) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(taggedJSONString(keys[i]))
		b.WriteByte(':')
		b.WriteString(values[i])
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// taggedPython converts a Python literal (as Jinja's |string writes lists,
// dicts and booleans) to JSON: None, True, False, numbers, '…'/"…"
// strings, lists, tuples and dicts. ok is false for anything else.
func taggedPython(s string) (string, bool) {
	p := taggedPy{s: s}
	var b strings.Builder
	if !p.value(&b, 0) {
		return "", false
	}
	p.space()
	if p.i != len(p.s) {
		return "", false
	}
	out := b.String()
	if !json.Valid([]byte(out)) {
		return "", false
	}
	return out, true
}

type taggedPy struct {
	s string
	i int
}

const taggedMaxDepth = 200

func (p *taggedPy) space() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *taggedPy) value(b *strings.Builder, depth int) bool {
	if depth > taggedMaxDepth {
		return false
	}
	p.space()
	if p.i >= len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '[' || c == '(':
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		p.i++
		b.WriteByte('[')
		return p.items(b, closer, depth, false)
	case c == '{':
		p.i++
		b.WriteByte('{')
		return p.items(b, '}', depth, true)
	case c == '\'' || c == '"':
		str, ok := p.str()
		if !ok {
			return false
		}
		b.WriteString(taggedJSONString(str))
		return true
	}
	for _, w := range [...][2]string{{"None", "null"}, {"True", "true"}, {"False", "false"}, {"null", "null"}, {"true", "true"}, {"false", "false"}} {
		if strings.HasPrefix(p.s[p.i:], w[0]) {
			p.i += len(w[0])
			b.WriteString(w[1])
			return true
		}
	}
	j := p.i
	for j < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[j]) >= 0 {
		j++
	}
	if j == p.i {
		return false
	}
	num := strings.TrimPrefix(p.s[p.i:j], "+")
	if d := strings.TrimPrefix(num, "-"); len(d) > 1 && d[0] == '0' && d[1] >= '0' && d[1] <= '9' {
		return false // 007 is no Python number (nor a JSON one)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	if !json.Valid([]byte(num)) {
		num = strconv.FormatFloat(f, 'g', -1, 64)
	}
	b.WriteString(num)
	p.i = j
	return true
}

func (p *taggedPy) items(b *strings.Builder, closer byte, depth int, dict bool) bool {
	first := true
	for {
		p.space()
		if p.i >= len(p.s) {
			return false
		}
		if p.s[p.i] == closer {
			p.i++
			if dict {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
			return true
		}
		if !first {
			if p.s[p.i] != ',' {
				return false
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == closer {
				continue // trailing comma
			}
			b.WriteByte(',')
		}
		first = false
		if dict {
			p.space()
			if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
				return false
			}
			k, ok := p.str()
			if !ok {
				return false
			}
			b.WriteString(taggedJSONString(k))
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return false
			}
			p.i++
			b.WriteByte(':')
		}
		if !p.value(b, depth+1) {
			return false
		}
	}
}

// str reads a quoted Python string with its escapes.
func (p *taggedPy) str() (string, bool) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), true
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return "", false
				}
				v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(v)) {
					return "", false
				}
				b.WriteRune(rune(v))
				p.i += n
			default:
				if e != '\\' && e != '\'' && e != '"' {
					b.WriteByte('\\')
				}
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", false
}

// Schemas.

// taggedProp is one declared parameter of a tool.
type taggedProp struct {
	Name     string
	Pointer  string          // JSON pointer of its schema in the parameters
	Schema   json.RawMessage // its schema
	Types    map[string]bool // JSON types it admits (empty: any)
	Strings  []string        // the values when it is an enum/const of strings only
	Required bool
}

// onlyString says the parameter admits strings and nothing else (false
// for an unknown parameter).
func (p *taggedProp) onlyString() bool {
	return p != nil && len(p.Types) == 1 && p.Types["string"]
}

// admits says a JSON value's type is one the parameter admits.
func (p *taggedProp) admits(v string) bool {
	if len(p.Types) == 0 {
		return true
	}
	t := taggedJSONType(v)
	if p.Types[t] {
		return true
	}
	switch t {
	case "integer":
		return p.Types["number"]
	case "number":
		return p.Types["integer"] && taggedIntegral(v)
	}
	return false
}

func taggedIntegral(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f == float64(int64(f))
}

// taggedJSONType names the type of a JSON value ("integer" for numbers
// without fraction or exponent).
func taggedJSONType(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if strings.ContainsAny(v, ".eE") {
		return "number"
	}
	return "integer"
}

// taggedProps lists the declared properties of a parameters schema, in
// the order written, with the types each admits.
func taggedProps(params json.RawMessage) ([]taggedProp, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, nil
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(params, &root); err != nil {
		return nil, fmt.Errorf("tool parameters: %w", err)
	}
	names, err := taggedKeys(root["properties"])
	if err != nil {
		return nil, err
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(root["properties"], &props)
	var required []string
	_ = json.Unmarshal(root["required"], &required)
	var out []taggedProp
	for _, n := range names {
		p := taggedProp{Name: n, Pointer: "/properties/" + taggedPointerEscape(n), Schema: props[n], Types: map[string]bool{}}
		for _, r := range required {
			if r == n {
				p.Required = true
			}
		}
		strs, allStrings := taggedSchemaTypes(params, props[n], p.Types, 0)
		if allStrings && len(strs) > 0 {
			p.Strings = strs
		}
		out = append(out, p)
	}
	return out, nil
}

// taggedKeys returns the keys of a JSON object in the order written.
func taggedKeys(obj json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(obj)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("tool parameters: properties is not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func taggedPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// taggedSchemaTypes adds the JSON types schema admits to types (nothing
// added: any). It returns the string values of an enum or const, and
// whether the schema only admits those.
func taggedSchemaTypes(root, schema json.RawMessage, types map[string]bool, depth int) ([]string, bool) {
	if depth > 8 {
		return nil, false
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	if ref, ok := s["$ref"]; ok {
		var r string
		if json.Unmarshal(ref, &r) == nil && strings.HasPrefix(r, "#") {
			if sub, ok := taggedPointer(root, r[1:]); ok {
				return taggedSchemaTypes(root, sub, types, depth+1)
			}
		}
		return nil, false
	}
	switch t := s["type"]; {
	case len(t) > 0 && t[0] == '"':
		var name string
		_ = json.Unmarshal(t, &name)
		types[name] = true
	case len(t) > 0 && t[0] == '[':
		var names []string
		_ = json.Unmarshal(t, &names)
		for _, n := range names {
			types[n] = true
		}
	}
	var values []json.RawMessage
	if c, ok := s["const"]; ok {
		values = append(values, c)
	}
	if e, ok := s["enum"]; ok {
		var more []json.RawMessage
		_ = json.Unmarshal(e, &more)
		values = append(values, more...)
	}
	var strs []string
	allStrings := len(values) > 0
	for _, v := range values {
		var str string
		if json.Unmarshal(v, &str) == nil {
			strs = append(strs, str)
		} else {
			allStrings = false
		}
		if len(s["type"]) == 0 {
			types[taggedJSONType(string(v))] = true
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		var branches []json.RawMessage
		if json.Unmarshal(s[key], &branches) != nil {
			continue
		}
		sub := map[string]bool{}
		for _, br := range branches {
			n := len(sub)
			taggedSchemaTypes(root, br, sub, depth+1)
			if len(sub) == n { // a branch admitting anything
				return nil, false
			}
		}
		for k := range sub {
			types[k] = true
		}
	}
	if types["integer"] && types["number"] {
		delete(types, "integer")
	}
	return strs, allStrings
}

// taggedPointer resolves a JSON pointer in doc.
func taggedPointer(doc json.RawMessage, ptr string) (json.RawMessage, bool) {
	cur := doc
	if ptr == "" {
		return cur, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, part := range strings.Split(ptr[1:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) == nil {
			next, ok := obj[part]
			if !ok {
				return nil, false
			}
			cur = next
			continue
		}
		var arr []json.RawMessage
		if json.Unmarshal(cur, &arr) != nil {
			return nil, false
		}
		i, err := strconv.Atoi(part)
		if err != nil || i < 0 || i >= len(arr) {
			return nil, false
		}
		cur = arr[i]
	}
	return cur, true
}

// Calls with JSON arguments between markers (DeepSeek R1 and V3.1, Kimi K2).

// taggedJSONSyntax is a family whose calls write the function (and maybe
// an id) between markers, then the JSON arguments verbatim.
type taggedJSONSyntax struct {
	sectionBegin, sectionEnd string // around all calls
	callBegin, callEnd       string // around one call
	sep                      string // between the call's head and its arguments
	// head reads what stands between callBegin and the arguments, from
	// pos (just past callBegin). It returns the call's name and id, where
	// its arguments start, and a match status (taggedMore: the head is
	// not complete yet; name is then set once it is known).
	head func(s string, pos int, final bool) (name, id string, args int, m taggedMatch, err error)
	// fence: the arguments may be wrapped in a ``` block (DeepSeek R1).
	fence bool
}

// region parses a section (or a lone call) of JSON-argument calls.
func (x *taggedJSONSyntax) region(s string, at int, final bool, _ taggedTools) taggedRegion {
	var r taggedRegion
	pos := at
	inSection := strings.HasPrefix(s[at:], x.sectionBegin)
	if inSection {
		pos += len(x.sectionBegin)
	}
	for {
		p := skipSpace(s, pos)
		switch {
		case strings.HasPrefix(s[p:], x.callBegin):
			c, end, pending, err, errAt := x.call(s, p+len(x.callBegin), final)
			if !r.add(c, pending, err, errAt) {
				return r
			}
			pos = end
			if !inSection {
				r.done, r.end = true, pos
				return r
			}
		case inSection && strings.HasPrefix(s[p:], x.sectionEnd):
			r.done, r.end = true, p+len(x.sectionEnd)
			return r
		case p == len(s) && final:
			// An unclosed section at the end of the reply (some templates
			// never write the section end for one call).
			r.done, r.end = true, p
			return r
		case !final && (strings.HasPrefix(x.callBegin, s[p:]) || strings.HasPrefix(x.sectionEnd, s[p:])):
			return r // more to come
		default:
			r.err, r.errAt = taggedExpected(x.callBegin), p
			if inSection && len(r.calls) > 0 {
				r.err = fmt.Errorf("expected %q or %q", x.callBegin, x.sectionEnd)
			}
			return r
		}
	}
}

// call parses one call from pos (just past callBegin).
func (x *taggedJSONSyntax) call(s string, pos int, final bool) (c Call, end int, pending *Call, err error, errAt int) {
	name, id, args, m, err := x.head(s, pos, final)
	if err != nil {
		return c, 0, nil, err, pos
	}
	if m == taggedMore {
		return c, 0, &Call{Name: name, ID: id}, nil, 0
	}
	more := func(text string) (Call, int, *Call, error, int) {
		if final {
			return c, 0, nil, errTaggedTruncated, pos - len(x.callBegin)
		}
		return c, 0, &Call{Name: name, ID: id, Arguments: json.RawMessage(strings.TrimRight(text, " \t\r\n"))}, nil, 0
	}
	p := skipSpace(s, args)
	if p == len(s) {
		return more("")
	}
	if s[p] != '{' {
		return c, 0, nil, errors.New("arguments are not a JSON object"), p
	}
	e, incomplete := taggedJSONEnd(s, p)
	if incomplete {
		return more(s[p:])
	}
	if e < 0 {
		return c, 0, nil, fmt.Errorf("arguments are not valid JSON: %q", truncate(s[p:], 80)), p
	}
	text := s[p:e]
	q := skipSpace(s, e)
	if x.fence && strings.HasPrefix(s[q:], "```") {
		q = skipSpace(s, q+3)
	}
	switch {
	case strings.HasPrefix(s[q:], x.callEnd):
		return Call{ID: id, Name: name, Arguments: json.RawMessage(text)}, q + len(x.callEnd), nil, nil, 0
	case !final && (strings.HasPrefix(x.callEnd, s[q:]) || (x.fence && strings.HasPrefix("```", s[q:]))):
		return more(text)
	}
	return c, 0, nil, taggedExpected(x.callEnd), q
}

// taggedNameUntil reads a name from pos up to stop: the head of the calls
// whose name ends at a marker.
func taggedNameUntil(s string, pos int, stop, callEnd string, final bool) (name string, after int, m taggedMatch, err error) {
	i := strings.Index(s[pos:], stop)
	if e := strings.Index(s[pos:], callEnd); e >= 0 && (i < 0 || e < i) {
		return "", 0, taggedNo, taggedExpected(stop)
	}
	if i < 0 {
		if final {
			return "", 0, taggedNo, errTaggedTruncated
		}
		return "", 0, taggedMore, nil
	}
	name = strings.TrimSpace(s[pos : pos+i])
	if name == "" {
		return "", 0, taggedNo, errTaggedNoName
	}
	return name, pos + i + len(stop), taggedYes, nil
}

// Grammars.

// taggedGrammarParts are the pieces of a family's grammar.
type taggedGrammarParts struct {
	// stops: what free text may not contain (the markers that open calls,
	// and those the parser drops).
	stops []string
	// call forces one call of the tool.
	call func(t Tool) (constrain.Pattern, error)
	// sep stands between two calls.
	sep string
	// block wraps the calls (section markers, leading newlines).
	block func(calls constrain.Pattern) constrain.Pattern
}

// taggedCompose builds the grammar of a mode from the family's parts.
func taggedCompose(opts GrammarOptions, parts taggedGrammarParts) (constrain.Pattern, error) {
	text := constrain.TextWithout(parts.stops...)
	if opts.Mode == TextOnly || (opts.Mode == TextOrCalls && len(opts.Tools) == 0) {
		return text, nil
	}
	if len(opts.Tools) == 0 {
		return constrain.Pattern{}, errors.New("a grammar that forces a tool call needs at least one tool")
	}
	var alts []constrain.Pattern
	for _, t := range opts.Tools {
		p, err := parts.call(t)
		if err != nil {
			return constrain.Pattern{}, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		alts = append(alts, p)
	}
	one := constrain.Choice(alts...)
	calls := one
	if opts.Parallel {
		calls = constrain.Sequence(one, constrain.Repeat(constrain.Sequence(constrain.Literal(parts.sep), one), 0, -1))
	}
	block := calls
	if parts.block != nil {
		block = parts.block(calls)
	}
	if opts.Mode == CallsOnly {
		return block, nil
	}
	return constrain.Sequence(text, constrain.Optional(block)), nil
}

// taggedSchema is a tool's parameters schema ({"type":"object"} if none).
func taggedSchema(t Tool) []byte {
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		return []byte(`{"type":"object"}`)
	}
	return t.Parameters
}

// taggedValuePattern forces one parameter's value in an XML-style syntax:
// a parameter that only admits strings is written raw (one of its enum
// values, or text without the stops); any other as JSON valid against its
// schema. hint says which of the two it chose.
func taggedValuePattern(t Tool, p taggedProp, opts GrammarOptions, stops ...string) (constrain.Pattern, taggedHint) {
	if p.onlyString() {
		if len(p.Strings) > 0 {
			var alts []constrain.Pattern
			for _, s := range p.Strings {
				alts = append(alts, constrain.Literal(s))
			}
			return constrain.Choice(alts...), hintString
		}
		return constrain.TextWithout(stops...), hintString
	}
	return constrain.JSONValue(taggedSchema(t), p.Pointer, opts.JSON), hintJSON
}

// taggedParamsPattern forces a tool's parameters in declaration order,
// each written by param; required ones must appear, the others may.
func taggedParamsPattern(t Tool, param func(p taggedProp) constrain.Pattern) (constrain.Pattern, error) {
	props, err := taggedProps(t.Parameters)
	if err != nil {
		return constrain.Pattern{}, err
	}
	var parts []constrain.Pattern
	for _, p := range props {
		pat := param(p)
		if !p.Required {
			pat = constrain.Optional(pat)
		}
		parts = append(parts, pat)
	}
	return constrain.Sequence(parts...), nil
}

// taggedDigits matches a decimal index.
func taggedDigits() constrain.Pattern {
	var d []constrain.Pattern
	for c := '0'; c <= '9'; c++ {
		d = append(d, constrain.Literal(string(c)))
	}
	return constrain.Sequence(constrain.Choice(d...), constrain.Repeat(constrain.Choice(d...), 0, 3))
}

// taggedAll joins marker lists.
func taggedAll(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// taggedFormat is a tagged family as a Format.
type taggedFormat struct {
	spec    taggedSpec
	pattern func(opts GrammarOptions) (constrain.Pattern, error)
}

func (f *taggedFormat) Name() string { return f.spec.name }

func (f *taggedFormat) Parse(reply string) (Parsed, error) { return f.spec.parse(reply, nil) }

func (f *taggedFormat) ParsePartial(reply string) Partial { return f.spec.partial(reply, nil) }

func (f *taggedFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	return f.pattern(opts)
}

// taggedTypedFormat is a tagged family whose values need the schemas for
// exact types: it is also a TypedParser.
type taggedTypedFormat struct{ taggedFormat }

func (f *taggedTypedFormat) ParseWithTools(reply string, tools []Tool) (Parsed, error) {
	return f.spec.parse(reply, taggedToolMap(tools))
}

func (f *taggedTypedFormat) ParsePartialWithTools(reply string, tools []Tool) Partial {
	return f.spec.partial(reply, taggedToolMap(tools))
}

// markers lists the markers the family never shows as text.
func (sp *taggedSpec) markers() []string {
	m := taggedAll(sp.opens, sp.drops)
	if sp.reasoning != nil {
		m = append(m, sp.reasoning.open, sp.reasoning.close)
	}
	return m
}

// Calls with XML-style parameters (Qwen3-Coder, Seed-OSS, GLM, MiniMax M2,
// DeepSeek DSML).

// taggedXMLSyntax is a family whose calls write the function name in a
// tag and each parameter as a key and a value between tags. In the
// literals a '\n' is what the template writes; the parser takes any run of
// whitespace (or none) there.
type taggedXMLSyntax struct {
	blockOpen, blockClose string // around all calls ("": each call stands alone)
	callOpen              string // before the function name
	nameStops             string // bytes that end the name
	afterName             string // after the name
	callClose             string // ends a call
	paramOpen             string // before a parameter's key
	keyStops              string // bytes that end the key
	afterKey              string // after the key, before the value
	// stringAttr: afterKey is followed by `true">` or `false">`, which
	// says whether the value is a raw string or JSON (DSML).
	stringAttr bool
	valueClose string // ends a value (matched exactly)
	afterValue string // written after valueClose
	// valueNewlines: the value is written between newlines that are not
	// part of it (one is dropped on each side).
	valueNewlines bool

	// Grammar only.
	lead string // written before the block (or before each call)
	sep  string // between calls
	// optionalNewlines: the newlines of the literals may be left out (the
	// family's templates write both ways).
	optionalNewlines bool
}

// region parses a block of calls, or one call where calls stand alone.
func (x *taggedXMLSyntax) region(s string, at int, final bool, tools taggedTools) taggedRegion {
	var r taggedRegion
	if x.blockOpen == "" {
		c, end, pending, err, errAt := x.call(s, at, final, tools)
		if r.add(c, pending, err, errAt) {
			r.done, r.end = true, end
		}
		return r
	}
	pos, m := taggedFlex(s, at, x.blockOpen, final)
	switch m {
	case taggedMore:
		return r
	case taggedNo:
		r.err, r.errAt = taggedExpected(x.blockOpen), at
		return r
	}
	for {
		p := skipSpace(s, pos)
		_, mOpen := taggedFlex(s, p, x.callOpen, final)
		end, mClose := taggedFlex(s, p, x.blockClose, final)
		switch {
		case mClose == taggedYes:
			r.done, r.end = true, end
			return r
		case mOpen == taggedYes || (mOpen == taggedMore && mClose == taggedNo):
			c, end, pending, err, errAt := x.call(s, p, final, tools)
			if !r.add(c, pending, err, errAt) {
				return r
			}
			pos = end
		case mOpen == taggedMore || mClose == taggedMore:
			return r
		case p == len(s):
			r.err, r.errAt = errTaggedTruncated, at
			return r
		default:
			r.err, r.errAt = fmt.Errorf("expected %q or %q", strings.TrimSpace(x.callOpen), strings.TrimSpace(x.blockClose)), p
			return r
		}
	}
}

// call parses one call from pos (on callOpen). A call not complete yet
// gives pending (its Name once the name is complete).
func (x *taggedXMLSyntax) call(s string, pos int, final bool, tools taggedTools) (c Call, end int, pending *Call, err error, errAt int) {
	start := pos
	more := func(name string) (Call, int, *Call, error, int) {
		if final {
			return c, 0, nil, errTaggedTruncated, start
		}
		return c, 0, &Call{Name: name}, nil, 0
	}
	fail := func(err error, at int) (Call, int, *Call, error, int) { return c, 0, nil, err, at }
	p, m := taggedFlex(s, pos, x.callOpen, final)
	if m == taggedMore {
		return more("")
	}
	if m == taggedNo {
		return fail(taggedExpected(x.callOpen), p)
	}
	n := p
	for n < len(s) && strings.IndexByte(x.nameStops, s[n]) < 0 {
		n++
	}
	if n == len(s) {
		return more("")
	}
	name := strings.TrimSpace(s[p:n])
	if name == "" {
		return fail(errTaggedNoName, p)
	}
	p, m = taggedFlex(s, n, x.afterName, final)
	if m == taggedMore {
		return more(name)
	}
	if m == taggedNo {
		return fail(taggedExpected(x.afterName), p)
	}
	var keys, values []string
	for {
		p = skipSpace(s, p)
		q, m := taggedFlex(s, p, x.paramOpen, final)
		if m == taggedYes {
			key, val, next, m, err := x.param(s, q, final, name, tools)
			if err != nil {
				return fail(err, next)
			}
			if m == taggedMore {
				return more(name)
			}
			keys, values = append(keys, key), append(values, val)
			p = next
			continue
		}
		e, m2 := taggedFlex(s, p, x.callClose, final)
		if m2 == taggedYes {
			return Call{Name: name, Arguments: taggedObject(keys, values)}, e, nil, nil, 0
		}
		if m == taggedMore || m2 == taggedMore || max(q, e) == len(s) {
			return more(name)
		}
		// Report at the tag where the text parts from both.
		at := max(p, q, e)
		if lt := strings.LastIndexByte(s[p:min(at+1, len(s))], '<'); lt >= 0 {
			at = p + lt
		}
		return fail(fmt.Errorf("expected %q or %q", strings.TrimSpace(x.paramOpen), strings.TrimSpace(x.callClose)), at)
	}
}

// param reads one parameter from pos (just past paramOpen): its key and
// its value as JSON.
func (x *taggedXMLSyntax) param(s string, pos int, final bool, tool string, tools taggedTools) (key, value string, next int, m taggedMatch, err error) {
	k := pos
	for k < len(s) && strings.IndexByte(x.keyStops, s[k]) < 0 {
		k++
	}
	if k == len(s) {
		return "", "", 0, taggedMore, nil
	}
	key = strings.TrimSpace(s[pos:k])
	if key == "" {
		return "", "", pos, taggedNo, errors.New("a parameter has no name")
	}
	p, m := taggedFlex(s, k, x.afterKey, final)
	if m == taggedNo && p < len(s) {
		return "", "", p, m, taggedExpected(x.afterKey)
	}
	if m != taggedYes {
		return "", "", 0, taggedMore, nil
	}
	hint := hintNone
	if x.stringAttr {
		switch {
		case strings.HasPrefix(s[p:], `true">`):
			hint, p = hintString, p+len(`true">`)
		case strings.HasPrefix(s[p:], `false">`):
			hint, p = hintJSON, p+len(`false">`)
		case strings.HasPrefix(`true">`, s[p:]) || strings.HasPrefix(`false">`, s[p:]):
			return "", "", 0, taggedMore, nil
		default:
			return "", "", p, taggedNo, errors.New(`expected string="true" or string="false"`)
		}
	}
	raw, next, m := taggedValueText(s, p, x.valueClose, final, hint == hintString || tools.prop(tool, key).onlyString())
	if m != taggedYes {
		return "", "", 0, taggedMore, nil // the caller reports a final one as truncated
	}
	if x.valueNewlines {
		raw = strings.TrimPrefix(raw, "\n")
		raw = strings.TrimSuffix(raw, "\n")
	}
	value, err = taggedArgValue(raw, hint, tools.prop(tool, key))
	if err != nil {
		return "", "", p, taggedNo, fmt.Errorf("parameter %q: %w", key, err)
	}
	return key, value, next, taggedYes, nil
}

// taggedValueText finds the raw text of a value from p to its close
// marker and returns it and the offset past the marker. A value that may
// be JSON and starts as an array or object ends where the JSON does (a
// close marker inside one of its strings does not end it). taggedNo: the
// text ends first (final input).
func taggedValueText(s string, p int, closeMarker string, final, rawString bool) (string, int, taggedMatch) {
	i := strings.Index(s[p:], closeMarker)
	if q := skipSpace(s, p); !rawString && q < len(s) && (s[q] == '{' || s[q] == '[') &&
		(i < 0 || !json.Valid([]byte(s[q:p+i]))) {
		// Read the JSON through markers in its strings, but no further
		// than a window past the first marker: a reply full of values
		// that never end must not be read once per value.
		const window = 1 << 16
		limit := len(s)
		if i >= 0 {
			limit = min(len(s), p+i+len(closeMarker)+window)
		}
		e, more := taggedJSONEnd(s[:limit], q)
		if more && !final && limit == len(s) {
			return "", 0, taggedMore
		}
		if e >= 0 {
			if r := skipSpace(s, e); strings.HasPrefix(s[r:], closeMarker) {
				return s[p:r], r + len(closeMarker), taggedYes
			} else if !final && strings.HasPrefix(closeMarker, s[r:]) {
				return "", 0, taggedMore
			}
		}
	}
	if i < 0 {
		if final {
			return "", 0, taggedNo
		}
		return "", 0, taggedMore
	}
	return s[p : p+i], p + i + len(closeMarker), taggedYes
}

// lit is a literal of the syntax as the grammar writes it.
func (x *taggedXMLSyntax) lit(s string) constrain.Pattern {
	if !x.optionalNewlines || !strings.Contains(s, "\n") {
		return constrain.Literal(s)
	}
	var parts []constrain.Pattern
	for i, piece := range strings.Split(s, "\n") {
		if i > 0 {
			parts = append(parts, constrain.Optional(constrain.Literal("\n")))
		}
		if piece != "" {
			parts = append(parts, constrain.Literal(piece))
		}
	}
	return constrain.Sequence(parts...)
}

// grammar builds the family's grammar; stops are the markers free text
// may not contain.
func (x *taggedXMLSyntax) pattern(opts GrammarOptions, stops []string) (constrain.Pattern, error) {
	return taggedCompose(opts, taggedGrammarParts{
		stops: stops,
		call: func(t Tool) (constrain.Pattern, error) {
			params, err := taggedParamsPattern(t, func(p taggedProp) constrain.Pattern {
				value, hint := taggedValuePattern(t, p, opts, x.valueClose)
				parts := []constrain.Pattern{x.lit(x.paramOpen + p.Name + x.afterKey)}
				if x.stringAttr {
					if hint == hintString {
						parts = append(parts, constrain.Literal(`true">`))
					} else {
						parts = append(parts, constrain.Literal(`false">`))
					}
				}
				if x.valueNewlines {
					value = constrain.Sequence(constrain.Literal("\n"), value, constrain.Literal("\n"))
				}
				parts = append(parts, value, x.lit(x.valueClose+x.afterValue))
				return constrain.Sequence(parts...)
			})
			if err != nil {
				return constrain.Pattern{}, err
			}
			return constrain.Sequence(x.lit(x.callOpen+t.Name+x.afterName), params, x.lit(x.callClose)), nil
		},
		sep: x.sep,
		block: func(calls constrain.Pattern) constrain.Pattern {
			if x.blockOpen == "" {
				return constrain.Sequence(x.lit(x.lead), calls)
			}
			return constrain.Sequence(x.lit(x.lead+x.blockOpen), calls, x.lit(x.blockClose))
		},
	})
}

// taggedCallFunc parses one call at pos; see taggedXMLSyntax.call.
type taggedCallFunc func(s string, pos int, final bool, tools taggedTools) (c Call, end int, pending *Call, err error, errAt int)

// taggedBlockRegion parses a block of calls from at (on open) to close:
// calls that start with callOpen, read by call, between spaces. want
// names the call's start in errors.
func taggedBlockRegion(s string, at int, final bool, tools taggedTools, open, close, callOpen, want string, call taggedCallFunc) taggedRegion {
	var r taggedRegion
	pos := at + len(open)
	for {
		p := skipSpace(s, pos)
		rest := s[p:]
		switch {
		case strings.HasPrefix(rest, close):
			r.done, r.end = true, p+len(close)
			return r
		case strings.HasPrefix(rest, callOpen):
			c, end, pending, err, errAt := call(s, p, final, tools)
			if !r.add(c, pending, err, errAt) {
				return r
			}
			pos = end
		case !final && (strings.HasPrefix(close, rest) || strings.HasPrefix(callOpen, rest)):
			return r
		case p == len(s):
			r.err, r.errAt = errTaggedTruncated, at
			return r
		default:
			r.err, r.errAt = fmt.Errorf("expected %q or %q", want, close), p
			return r
		}
	}
}
