package toolcall

// Shared machinery of the JSON families (families_json.go): a JSON scanner
// that tells a complete value from a prefix of one, a reader for call
// objects ({"name": …, "arguments": …}), the region readers that the
// families are values of (calls between markers, written as JSON objects,
// as a JSON list, as JSON lines, or as name + JSON arguments), the driver
// that splits a reply into content and call regions (whole or streaming),
// and the grammar builder.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/litert-go/litert-go/constrain"
)

// scanArgsObject scans a JSON object of arguments at s[i].
func scanArgsObject(s string, i int) (int, *jsonError) {
	if i >= len(s) {
		return i, eofAt(i)
	}
	if s[i] != '{' {
		return i, badAt(i, "arguments are not a JSON object")
	}
	return scanJSON(s, i)
}

// jsonString decodes the JSON string literal lit (already scanned).
func jsonString(lit string) string {
	if len(lit) >= 2 && strings.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1]
	}
	var v string
	if json.Unmarshal([]byte(lit), &v) != nil {
		return ""
	}
	return v
}

// quoteJSON writes s as a JSON string literal.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ---------------------------------------------------------------------------
// Call objects

// callObject is what a JSON call object ({"name": …, "arguments" |
// "parameters": …, "id": …}, or OpenAI's {"type": "function", "function":
// {…}}) holds, as far as it is written.
type callObject struct {
	name     string
	nameDone bool
	id       string
	// argsAt is where the arguments value starts (-1: not yet); argsRaw
	// is its text, argsDone whether it is complete.
	argsAt   int
	argsRaw  string
	argsDone bool
}

// pending is the call as far as it is written: its name once complete and
// the argument text where it is written verbatim (an object).
func (o *callObject) pending() *Call {
	c := &Call{ID: o.id}
	if o.nameDone {
		c.Name = o.name
	}
	if o.argsAt >= 0 && strings.HasPrefix(o.argsRaw, "{") {
		c.Arguments = json.RawMessage(o.argsRaw)
	}
	return c
}

// readCallObject reads the call object at s[i] and returns its end. When
// the text ends inside it, the error has eof set and the object holds what
// was read.
func readCallObject(s string, i int) (callObject, int, *jsonError) {
	return readCallObjectDepth(s, i, 0)
}

func readCallObjectDepth(s string, i, depth int) (callObject, int, *jsonError) {
	o := callObject{argsAt: -1}
	if i >= len(s) {
		return o, i, eofAt(i)
	}
	if s[i] != '{' {
		return o, i, badAt(i, "tool call is not a JSON object")
	}
	seen := map[string]bool{}
	j := skipSpace(s, i+1)
	if j < len(s) && s[j] == '}' {
		return o, j + 1, badAt(i, `tool call has no "name"`)
	}
	for {
		if j >= len(s) {
			return o, j, eofAt(j)
		}
		if s[j] != '"' {
			return o, j, badAt(j, "want a string key in the tool call object")
		}
		kEnd, err := scanString(s, j)
		if err != nil {
			return o, kEnd, err
		}
		key := jsonString(s[j:kEnd])
		if j = skipSpace(s, kEnd); j >= len(s) {
			return o, j, eofAt(j)
		}
		if s[j] != ':' {
			return o, j, badAt(j, "want ':' in the tool call object")
		}
		v := skipSpace(s, j+1)
		switch key {
		case "name", "arguments", "parameters", "id", "function":
			k := key
			if k == "parameters" {
				k = "arguments"
			}
			if seen[k] {
				return o, v, badAt(j, "tool call has two %q keys", key)
			}
			seen[k] = true
		}
		var end int
		switch key {
		case "name":
			if end, err = scanString1(s, v); err != nil {
				return o, end, err
			}
			o.name, o.nameDone = jsonString(s[v:end]), true
		case "id":
			if end, err = scanValue(s, v, 0); err != nil {
				return o, end, err
			}
			if s[v] == '"' {
				o.id = jsonString(s[v:end])
			}
		case "arguments", "parameters":
			o.argsAt = v
			end, err = scanValue(s, v, 0)
			o.argsRaw = s[v:min(end, len(s))]
			if err != nil {
				return o, end, err
			}
			o.argsDone = true
		case "function":
			if depth == 0 && v < len(s) && s[v] == '{' && !seen["name"] {
				inner, e, ierr := readCallObjectDepth(s, v, 1)
				if o.name == "" {
					o.name, o.nameDone = inner.name, inner.nameDone
				}
				o.argsAt, o.argsRaw, o.argsDone = inner.argsAt, inner.argsRaw, inner.argsDone
				if inner.id != "" && o.id == "" {
					o.id = inner.id
				}
				seen["name"], seen["arguments"] = inner.nameDone, inner.argsAt >= 0
				if ierr != nil {
					return o, e, ierr
				}
				end = e
				break
			}
			fallthrough
		default:
			if end, err = scanValue(s, v, 0); err != nil {
				return o, end, err
			}
		}
		if j = skipSpace(s, end); j >= len(s) {
			return o, j, eofAt(j)
		}
		switch s[j] {
		case ',':
			j = skipSpace(s, j+1)
		case '}':
			if !o.nameDone || o.name == "" {
				return o, j + 1, badAt(i, `tool call has no "name"`)
			}
			return o, j + 1, nil
		default:
			return o, j, badAt(j, "want ',' or '}' in the tool call object")
		}
	}
}

// scanString1 scans a JSON string value at s[i] (a name must be one).
func scanString1(s string, i int) (int, *jsonError) {
	if i >= len(s) {
		return i, eofAt(i)
	}
	if s[i] != '"' {
		return i, badAt(i, "tool call name is not a string")
	}
	return scanString(s, i)
}

// call turns a complete call object into a Call: arguments written as a
// JSON string are decoded, missing or null ones become {}.
func (o *callObject) call() (Call, *jsonError) {
	args := strings.TrimSpace(o.argsRaw)
	switch {
	case o.argsAt < 0 || args == "null":
		args = "{}"
	case strings.HasPrefix(args, `"`):
		inner := strings.TrimSpace(jsonString(args))
		if end, err := scanArgsObject(inner, 0); err != nil || end != len(inner) {
			return Call{}, badAt(o.argsAt, "tool call %q: arguments string is not a JSON object", o.name)
		}
		args = inner
	case !strings.HasPrefix(args, "{"):
		return Call{}, badAt(o.argsAt, "tool call %q: arguments are not a JSON object", o.name)
	}
	return Call{ID: o.id, Name: o.name, Arguments: json.RawMessage(args)}, nil
}

// ---------------------------------------------------------------------------
// Regions and the driver

// region is what a region reader found in one call region of a reply.
type region struct {
	calls   []Call
	content string // text inside the region that is content (functionary's "all")
	end     int    // where the region ends
	// open: the reply ends inside the region (or where more could still
	// continue it, for a streaming reply); pending is then the call being
	// written (nil between calls).
	open    bool
	pending *Call
	err     *jsonError
}

// fail makes r a failed region; a reply that merely ends early leaves it
// open.
func (r region) fail(err *jsonError) region {
	if err.eof {
		r.open = true
		return r
	}
	r.err = err
	return r
}

// regionReader reads the region that starts at s[at] with marker ("" for
// one that atStart found). A streaming (partial) read leaves the region
// open where the reply could still continue it.
type regionReader func(f *jsonFormat, s string, at int, marker string, partial bool) region

// jsonFormat is one JSON family: its markers and the readers of its
// regions. It implements Format.
type jsonFormat struct {
	name string
	// eot are the end-of-turn markers the family's replies end with,
	// stripped from the content.
	eot []string
	// opens are the markers that open a call region.
	opens []string
	// atStart, if set, finds a call region at the start of the reply
	// that no marker opens: its start (-1: none) or, for a reply that
	// could still become one, undecided.
	atStart func(s string) (start int, undecided bool)
	read    regionReader
	// grammar describes the call syntax for Grammar.
	grammar grammarSpec
}

func (f *jsonFormat) Name() string { return f.name }

func (f *jsonFormat) Parse(reply string) (Parsed, error) {
	content, calls, _, err := f.scan(reply, false)
	if err != nil {
		return Parsed{Content: content}, err
	}
	return Parsed{Content: content, Calls: calls}, nil
}

func (f *jsonFormat) ParsePartial(reply string) Partial {
	content, calls, pending, _ := f.scan(reply, true)
	return Partial{Content: content, Calls: calls, Pending: pending}
}

// scan splits reply into content and calls. A streaming scan holds back
// what could still turn into a marker or a call and stops at the region
// being written.
func (f *jsonFormat) scan(s string, partial bool) (string, []Call, *Call, error) {
	var content strings.Builder
	var calls []Call
	var pending *Call
	var failure error
	pos := 0
	// step reads the region at s[at] and reports whether the scan ends
	// there.
	step := func(at int, marker string) bool {
		content.WriteString(s[pos:at])
		r := f.read(f, s, at, marker, partial)
		if r.err == nil && r.open && !partial {
			r.err = eofAt(len(s))
		}
		if r.err != nil {
			content.WriteString(r.content) // the content segments before the malformed call
			if !partial {
				msg := r.err.msg
				if r.err.eof {
					msg = "the tool call is cut off"
				}
				calls = nil
				failure = &ToolCallError{Format: f.name, Offset: r.err.off, Text: s[at:], Err: errors.New(msg)}
			}
			return true
		}
		calls = append(calls, r.calls...)
		if r.open {
			content.WriteString(jsonHoldBack(r.content, f.holdMarkers()))
			pending = r.pending
			return true
		}
		content.WriteString(r.content)
		pos = r.end
		return false
	}
	done := false
	if f.atStart != nil {
		st, undecided := f.atStart(s)
		if undecided && partial {
			return "", nil, nil, nil
		}
		if st >= 0 && !undecided {
			done = step(st, "")
		}
	}
	finder := newMarkerFinder(s, f.opens)
	for !done {
		i, m := finder.find(pos)
		if i < 0 {
			tail := s[pos:]
			if partial {
				tail = jsonHoldBack(tail, f.holdMarkers())
			}
			content.WriteString(tail)
			break
		}
		done = step(i, m)
	}
	return trimReply(content.String(), f.eot), calls, pending, failure
}

// holdMarkers are the markers a streaming reply holds back a prefix of.
func (f *jsonFormat) holdMarkers() []string {
	return append(append([]string(nil), f.opens...), f.eot...)
}

// markerFinder finds the next marker of a reply, remembering where each
// marker next occurs so that a reply with many regions is scanned once
// per marker.
type markerFinder struct {
	s       string
	markers []string
	next    []int // next occurrence of each marker at or after the last search (-1: none; -2: not searched)
}

func newMarkerFinder(s string, markers []string) *markerFinder {
	f := &markerFinder{s: s, markers: markers, next: make([]int, len(markers))}
	for i := range f.next {
		f.next[i] = -2
	}
	return f
}

// find returns the first occurrence at or after pos of any marker (the
// longest where several start there), and which.
func (f *markerFinder) find(pos int) (int, string) {
	best, which := -1, ""
	for i, m := range f.markers {
		if f.next[i] == -2 || f.next[i] >= 0 && f.next[i] < pos {
			f.next[i] = -1
			if k := indexMarker(f.s[pos:], m); k >= 0 {
				f.next[i] = pos + k
			}
		}
		if k := f.next[i]; k >= 0 && (best < 0 || k < best || k == best && len(m) > len(which)) {
			best, which = k, m
		}
	}
	return best, which
}

// indexMarker returns where marker m first occurs in s, or -1; for a
// marker that overlaps itself (">>>"), the last start in a run of
// overlapping occurrences (">>>>" holds ">" and then the marker: what
// comes after a marker never starts with the marker's first byte).
func indexMarker(s, m string) int {
	i := strings.Index(s, m)
	if i < 0 {
		return -1
	}
	for i+1+len(m) <= len(s) && s[i+1:i+1+len(m)] == m {
		i++
	}
	return i
}

// jsonHoldBack is holdBack, except that a text ending with a whole marker
// is kept whole (it ends with the marker, not the start of one).
func jsonHoldBack(s string, markers []string) string {
	for _, m := range markers {
		if strings.HasSuffix(s, m) {
			return s
		}
	}
	return holdBack(s, markers)
}

// trimReply strips trailing end-of-turn markers and the whitespace around
// the text.
func trimReply(s string, eot []string) string {
	for {
		t := strings.TrimRight(s, " \t\r\n")
		for _, m := range eot {
			t = strings.TrimSuffix(t, m)
		}
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}

// isTrailer reports whether s is only whitespace and end-of-turn markers.
func isTrailer(s string, eot []string) bool { return trimReply(s, eot) == "" }

// couldContinue reports whether s, the rest of a streaming reply, could
// still become whitespace and end-of-turn markers followed by one of
// markers (or the trailer alone).
func couldContinue(s string, eot []string, markers ...string) bool {
	return isTrailer(jsonHoldBack(s, append(append([]string(nil), eot...), markers...)), eot)
}

// closeAfter handles the closing marker after a call body that ends at j:
// it returns where the region ends, or that it is open (a streaming reply
// that could still write the marker, or a full one cut off before a
// required marker), or that the marker is missing. A marker that is not
// required may be left out where only end-of-turn markers follow.
func (f *jsonFormat) closeAfter(s string, j int, close string, required, partial bool) (end int, open bool, err *jsonError) {
	if close == "" {
		return j, false, nil
	}
	k := skipSpace(s, j)
	if strings.HasPrefix(s[k:], close) {
		return k + len(close), false, nil
	}
	rest := s[k:]
	if partial && (strings.HasPrefix(close, rest) || couldContinue(rest, f.eot, close)) {
		return k, true, nil
	}
	if isTrailer(rest, f.eot) {
		if required {
			return k, false, badAt(k, "want %s after the tool call", close)
		}
		return j, false, nil
	}
	return k, false, badAt(k, "want %s after the tool call", close)
}

// ---------------------------------------------------------------------------
// Object regions: calls written as JSON call objects.

// objectLayout is how a region writes its call objects.
type objectLayout int

const (
	// perCall: one object (or a list of them) between open and close
	// markers, a region per call (Hermes).
	perCall objectLayout = iota
	// listLayout: a JSON array of objects after the marker (Mistral v3,
	// Granite, Nemotron, Apriel, Firefunction).
	listLayout
	// linesLayout: objects separated by whitespace (MiniMax-M1); a list
	// is accepted too.
	linesLayout
)

// objectSyntax reads regions of JSON call objects.
type objectSyntax struct {
	layout objectLayout
	close  string // closing marker ("" none)
	// closeRequired: the closing marker must be written (else it may be
	// left out where the reply ends).
	closeRequired bool
}

func (o objectSyntax) read(f *jsonFormat, s string, at int, marker string, partial bool) region {
	j := at + len(marker)
	r := region{}
	if o.layout == listLayout && strings.HasSuffix(marker, "[") {
		j-- // the marker ends with the list's bracket (functools[)
	}
	j = skipSpace(s, j)
	if j >= len(s) {
		if o.layout == perCall {
			r.pending = &Call{}
		}
		return r.fail(eofAt(j))
	}
	switch {
	case o.layout == listLayout || o.layout == perCall && s[j] == '[':
		if s[j] != '[' {
			return r.fail(badAt(j, "want a JSON list of tool calls"))
		}
		var err *jsonError
		if j, err = readCallList(s, j, &r); err != nil {
			return r.fail(err)
		}
	case o.layout == perCall:
		c, end, err := readCall(s, j, &r)
		if err != nil {
			return r.fail(err)
		}
		end2, open, err := f.closeAfter(s, end, o.close, o.closeRequired, partial)
		if err != nil {
			return r.fail(err)
		}
		if open {
			r.open, r.pending = true, &c
			return r
		}
		r.calls, r.end = append(r.calls, c), end2
		return r
	default: // lines
		for j < len(s) && (s[j] == '{' || s[j] == '[') {
			var err *jsonError
			if s[j] == '[' {
				j, err = readCallList(s, j, &r)
			} else {
				var c Call
				if c, j, err = readCall(s, j, &r); err == nil {
					r.calls = append(r.calls, c)
				}
			}
			if err != nil {
				return r.fail(err)
			}
			j = skipSpace(s, j)
		}
		if len(r.calls) == 0 {
			if j >= len(s) {
				return r.fail(eofAt(j))
			}
			return r.fail(badAt(j, "want a JSON tool call object"))
		}
	}
	end, open, err := f.closeAfter(s, j, o.close, o.closeRequired, partial)
	if err != nil {
		return r.fail(err)
	}
	r.open, r.end = open, end
	return r
}

// readCall reads one call object at s[j]; when the reply ends inside it,
// r.pending is what was written.
func readCall(s string, j int, r *region) (Call, int, *jsonError) {
	obj, end, err := readCallObject(s, j)
	if err != nil {
		if err.eof {
			r.pending = obj.pending()
		}
		return Call{}, end, err
	}
	c, err := obj.call()
	return c, end, err
}

// readCallList reads a JSON list of call objects at s[j] into r and
// returns its end.
func readCallList(s string, j int, r *region) (int, *jsonError) {
	j = skipSpace(s, j+1)
	if j < len(s) && s[j] == ']' {
		return j, badAt(j, "empty list of tool calls")
	}
	for {
		if j >= len(s) {
			return j, eofAt(j)
		}
		c, end, err := readCall(s, j, r)
		if err != nil {
			return end, err
		}
		r.calls = append(r.calls, c)
		if j = skipSpace(s, end); j >= len(s) {
			return j, eofAt(j)
		}
		switch s[j] {
		case ',':
			j = skipSpace(s, j+1)
		case ']':
			return j + 1, nil
		default:
			return j, badAt(j, "want ',' or ']' in the list of tool calls")
		}
	}
}

// ---------------------------------------------------------------------------
// Named regions: the function name between markers, then JSON arguments.

// namedSyntax reads calls written as name + nameEnd + JSON arguments (+
// close): Functionary's <function=name>{…}</function>, Mistral's
// name[ARGS]{…}, Functionary v3.2's name\n{…}.
type namedSyntax struct {
	nameEnd string
	// idMarker, if set, may come between the name and nameEnd, followed
	// by the call id (Mistral's [CALL_ID]).
	idMarker string
	close    string
	// next chains segments inside one region (Functionary v3.2's >>>).
	next string
	// contentName is the recipient whose segment is content ("all").
	contentName string
	// rawCode is the tool whose arguments may be raw code (a call with
	// {"code": …}); the code runs to the next segment or the reply's end.
	rawCode string
}

func (n namedSyntax) read(f *jsonFormat, s string, at int, marker string, partial bool) region {
	r := region{}
	j := at + len(marker)
	// Content segments are collected in content and set on every return.
	var content strings.Builder
	r = n.readSegments(f, s, j, partial, &content)
	r.content = content.String()
	return r
}

func (n namedSyntax) readSegments(f *jsonFormat, s string, j int, partial bool, content *strings.Builder) region {
	r := region{}
	for {
		name, end, k, err := readName(s, j, n.nameEnd, n.idMarker)
		if err != nil {
			if err.eof && n.contentName == "" { // else it may be a content segment
				r.pending = &Call{}
			}
			return r.fail(err)
		}
		c := Call{Name: name}
		if end == n.idMarker {
			id, k2, err := readID(s, k, n.nameEnd)
			if err != nil {
				if err.eof {
					r.pending = &Call{}
				}
				return r.fail(err)
			}
			c.ID, k = id, k2
		}
		j = k
		// segEnd is where a segment of free text (content, raw code) ends.
		segEnd := func() int {
			if n.next != "" {
				if x := indexMarker(s[j:], n.next); x >= 0 {
					return j + x
				}
			}
			return len(s)
		}
		switch {
		case n.contentName != "" && name == n.contentName:
			e := segEnd()
			content.WriteString(s[j:e])
			if e == len(s) {
				r.open, r.end = partial, e
				return r
			}
			j = e
		case n.rawCode != "" && name == n.rawCode && !strings.HasPrefix(strings.TrimLeft(s[j:], " \t\r\n"), "{"):
			e := segEnd()
			if e == len(s) {
				if partial {
					r.open, r.pending = true, &Call{Name: name}
					return r
				}
				r.calls = append(r.calls, codeCall(name, trimReply(s[j:], f.eot)))
				r.end = len(s)
				return r
			}
			r.calls = append(r.calls, codeCall(name, strings.TrimSpace(s[j:e])))
			j = e
		default:
			a := skipSpace(s, j)
			e, err := scanArgsObject(s, a)
			if err != nil {
				if err.eof {
					if a < len(s) {
						c.Arguments = json.RawMessage(s[a:])
					}
					r.pending = &c
				}
				return r.fail(err)
			}
			c.Arguments = json.RawMessage(s[a:e])
			end, open, cerr := f.closeAfter(s, e, n.close, false, partial)
			if cerr != nil {
				return r.fail(cerr)
			}
			if open {
				r.open, r.pending = true, &c
				return r
			}
			r.calls = append(r.calls, c)
			j = end
		}
		if n.next == "" {
			r.end = j
			return r
		}
		k = skipSpace(s, j)
		if strings.HasPrefix(s[k:], n.next) {
			j = k + len(n.next)
			continue
		}
		r.end = j
		r.open = partial && strings.HasPrefix(n.next, s[k:])
		return r
	}
}

// isNameByte reports whether c may be part of a function name.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == ':' || c == '/' || isDigit(c) ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// readName reads a name at s[j] that ends with one of ends; it returns the
// name, which end, and where it ends.
func readName(s string, j int, ends ...string) (name, end string, k int, err *jsonError) {
	k = j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	rest := s[k:]
	for _, e := range ends {
		if e != "" && strings.HasPrefix(rest, e) {
			if k == j {
				return "", "", k, badAt(j, "tool call has no function name")
			}
			if !utf8.ValidString(s[j:k]) {
				return "", "", j, badAt(j, "function name is not valid UTF-8")
			}
			return s[j:k], e, k + len(e), nil
		}
	}
	for _, e := range ends {
		if e != "" && strings.HasPrefix(e, rest) {
			return "", "", len(s), eofAt(len(s))
		}
	}
	return "", "", k, badAt(k, "want %q after the function name", ends[0])
}

// readID reads a call id up to end and returns where end ends.
func readID(s string, j int, end string) (string, int, *jsonError) {
	k := j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	if strings.HasPrefix(s[k:], end) {
		return s[j:k], k + len(end), nil
	}
	if strings.HasPrefix(end, s[k:]) {
		return "", len(s), eofAt(len(s))
	}
	return "", k, badAt(k, "want %q after the call id", end)
}

// codeCall is a call of a code tool with raw code.
func codeCall(name, code string) Call {
	return Call{Name: name, Arguments: json.RawMessage(`{"code": ` + quoteJSON(code) + `}`)}
}

// ---------------------------------------------------------------------------
// Grammars

// grammarSpec describes how a family writes calls, for Grammar: the calls
// are open + call (sep call)* + close; text (after textPrefix) avoids
// stops; in TextOrCalls text comes first and calls follow after
// textCallsSep, or (textOrCalls) a reply is either text or calls.
type grammarSpec struct {
	open, sep, close string
	// call writes one call of the named tool with its arguments.
	call         func(name string, args constrain.Pattern) constrain.Pattern
	stops        []string
	textPrefix   string
	textCallsSep string
	textOrCalls  bool
}

// objectCall writes {"name": "NAME", "KEY": ARGS} (the key is "arguments"
// or "parameters") with the template's spacing, wrapped in before/after.
func objectCall(before, key, after string) func(string, constrain.Pattern) constrain.Pattern {
	return func(name string, args constrain.Pattern) constrain.Pattern {
		return constrain.Sequence(
			constrain.Literal(before+`{"name": `+quoteJSON(name)+`, "`+key+`": `),
			args,
			constrain.Literal("}"+after))
	}
}

// namedCall writes before + NAME + mid + ARGS + after.
func namedCall(before, mid, after string) func(string, constrain.Pattern) constrain.Pattern {
	return func(name string, args constrain.Pattern) constrain.Pattern {
		return constrain.Sequence(constrain.Literal(before+name+mid), args, constrain.Literal(after))
	}
}

// argsPattern is the JSON value of a tool's arguments.
func argsPattern(t Tool, opts GrammarOptions) constrain.Pattern {
	params := t.Parameters
	if len(strings.TrimSpace(string(params))) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	return constrain.JSONValue(params, "", opts.JSON)
}

func (f *jsonFormat) Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	g := f.grammar
	if g.call == nil {
		return constrain.Pattern{}, fmt.Errorf("toolcall: %s: %w", f.name, ErrNoGrammar)
	}
	text := constrain.Sequence(constrain.Literal(g.textPrefix), constrain.TextWithout(g.stops...))
	if opts.Mode == TextOnly || (opts.Mode == TextOrCalls && len(opts.Tools) == 0) {
		return text, nil
	}
	if len(opts.Tools) == 0 {
		return constrain.Pattern{}, fmt.Errorf("toolcall: %s: a forced tool call needs a tool: %w", f.name, ErrNoGrammar)
	}
	alts := make([]constrain.Pattern, len(opts.Tools))
	for i, t := range opts.Tools {
		if t.Name == "" {
			return constrain.Pattern{}, fmt.Errorf("toolcall: %s: tool %d has no name: %w", f.name, i, ErrNoGrammar)
		}
		alts[i] = g.call(t.Name, argsPattern(t, opts))
	}
	one := constrain.Choice(alts...)
	more := 0
	if opts.Parallel {
		more = -1
	}
	calls := constrain.Sequence(constrain.Literal(g.open), one,
		constrain.Repeat(constrain.Sequence(constrain.Literal(g.sep), one), 0, more),
		constrain.Literal(g.close))
	switch {
	case opts.Mode == CallsOnly:
		return calls, nil
	case g.textOrCalls:
		return constrain.Choice(text, calls), nil
	}
	return constrain.Choice(calls,
		constrain.Sequence(text, constrain.Optional(constrain.Sequence(constrain.Literal(g.textCallsSep), calls)))), nil
}
