package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// MiniMax M3's markup: every tag is preceded by the ]<]minimax[>[ token.
const (
	m3NS         = "]<]minimax[>["
	m3BlockOpen  = m3NS + "<tool_call>"
	m3BlockClose = m3NS + "</tool_call>"
	m3Invoke     = m3NS + `<invoke name="`
	m3InvokeEnd  = m3NS + "</invoke>"
	m3EOT        = "[e~["
	m3MaxDepth   = 64
)

// minimaxM3 is MiniMax M3's format. Arguments are XML elements named by
// their keys; nested objects become nested elements and arrays <item>
// elements; scalars are written raw (booleans as true/false, null values
// left out):
//
//	]<]minimax[>[<tool_call>
//	]<]minimax[>[<invoke name="name">]<]minimax[>[<city>Paris]<]minimax[>[</city>
//	]<]minimax[>[<tags>]<]minimax[>[<item>a]<]minimax[>[</item>]<]minimax[>[</tags>]<]minimax[>[</invoke>
//	]<]minimax[>[</tool_call>[e~[
//
// Without the schemas a scalar is typed by its text (see taggedUntyped), an
// element whose children are all <item>s is an array, and an empty element
// is the empty string; ParseWithTools follows the schemas instead. Its
// reasoning, <mm:think>…</mm:think>, is the thinking wrapper's.
func minimaxM3() Format {
	opens := []string{m3BlockOpen}
	drops := []string{m3EOT}
	return &taggedTypedFormat{taggedFormat{
		spec:    taggedSpec{name: "minimax-m3", opens: opens, drops: drops, region: minimaxM3Region, leadDrops: []string{"</mm:think>"}},
		pattern: minimaxM3Pattern,
	}}
}

// m3Schema is the schema of a value being read (nil: unknown).
type m3Schema struct {
	root, node json.RawMessage
}

func (s *m3Schema) types() map[string]bool {
	if s == nil {
		return nil
	}
	t := map[string]bool{}
	taggedSchemaTypes(s.root, s.node, t, 0)
	return t
}

// child is the schema of property key (or of the items, for key "").
func (s *m3Schema) child(key string, item bool) *m3Schema {
	if s == nil {
		return nil
	}
	node := m3Resolve(s.root, s.node)
	var obj map[string]json.RawMessage
	if json.Unmarshal(node, &obj) != nil {
		return nil
	}
	if item {
		if it, ok := obj["items"]; ok {
			return &m3Schema{root: s.root, node: it}
		}
		return nil
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(obj["properties"], &props) != nil {
		return nil
	}
	if p, ok := props[key]; ok {
		return &m3Schema{root: s.root, node: p}
	}
	return nil
}

// m3Resolve follows local $refs.
func m3Resolve(root, node json.RawMessage) json.RawMessage {
	for range 8 {
		var obj struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(node, &obj) != nil || !strings.HasPrefix(obj.Ref, "#") {
			return node
		}
		next, ok := taggedPointer(root, obj.Ref[1:])
		if !ok {
			return node
		}
		node = next
	}
	return node
}

func minimaxM3Region(s string, at int, final bool, tools taggedTools) taggedRegion {
	return taggedBlockRegion(s, at, final, tools, m3BlockOpen, m3BlockClose, m3Invoke, m3Invoke, minimaxM3Call)
}

// errM3More says the text ends inside a call (partial input).
var errM3More = errors.New("more")

func minimaxM3Call(s string, pos int, final bool, tools taggedTools) (c Call, end int, pending *Call, err error, errAt int) {
	p := pos + len(m3Invoke)
	q := strings.IndexByte(s[p:], '"')
	if q < 0 {
		if final {
			return c, 0, nil, errTaggedTruncated, pos
		}
		return c, 0, &Call{}, nil, 0
	}
	name := strings.TrimSpace(s[p : p+q])
	if name == "" {
		return c, 0, nil, errTaggedNoName, p
	}
	p += q + 1
	if !strings.HasPrefix(s[p:], ">") {
		if !final && p == len(s) {
			return c, 0, &Call{Name: name}, nil, 0
		}
		return c, 0, nil, taggedExpected(`">`), p
	}
	p++
	var schema *m3Schema
	if t := tools[name]; t != nil && len(t.params) > 0 {
		schema = &m3Schema{root: t.params, node: t.params}
	}
	keys, values, end, err, errAt := m3Elements(s, p, m3InvokeEnd, final, 0, schema, false)
	if err == errM3More {
		if final {
			return c, 0, nil, errTaggedTruncated, pos
		}
		return c, 0, &Call{Name: name}, nil, 0
	}
	if err != nil {
		return c, 0, nil, err, errAt
	}
	return Call{Name: name, Arguments: taggedObject(keys, values)}, end, nil, nil, 0
}

// m3Elements reads child elements up to closeTag; array collects <item>s.
func m3Elements(s string, pos int, closeTag string, final bool, depth int, schema *m3Schema, array bool) (keys, values []string, end int, err error, errAt int) {
	if depth > m3MaxDepth {
		return nil, nil, 0, errors.New("arguments nest too deep"), pos
	}
	p := pos
	for {
		p = skipSpace(s, p)
		rest := s[p:]
		switch {
		case strings.HasPrefix(rest, closeTag):
			return keys, values, p + len(closeTag), nil, 0
		case strings.HasPrefix(rest, m3NS+"<") && !strings.HasPrefix(rest, m3NS+"</"):
			q := p + len(m3NS) + 1
			gt := strings.IndexByte(s[q:], '>')
			if gt < 0 {
				return nil, nil, 0, errM3More, 0
			}
			key := s[q : q+gt]
			if key == "" || strings.ContainsAny(key, "<\n") {
				return nil, nil, 0, fmt.Errorf("bad element name %q", truncate(key, 40)), q
			}
			sub := schema.child(key, array)
			v, next, err, errAt := m3Value(s, q+gt+1, key, final, depth+1, sub)
			if err != nil {
				return nil, nil, 0, err, errAt
			}
			keys, values = append(keys, key), append(values, v)
			p = next
		case !final && (strings.HasPrefix(closeTag, rest) || strings.HasPrefix(m3NS+"<", rest) || rest == ""):
			return nil, nil, 0, errM3More, 0
		case rest == "":
			return nil, nil, 0, errM3More, 0
		default:
			return nil, nil, 0, fmt.Errorf("expected an element or %q", closeTag), p
		}
	}
}

// m3Value reads the value of element key from pos up to its close tag.
func m3Value(s string, pos int, key string, final bool, depth int, schema *m3Schema) (string, int, error, int) {
	closeTag := m3NS + "</" + key + ">"
	rest := s[pos:]
	types := schema.types()
	if strings.HasPrefix(rest, m3NS+"<") && !strings.HasPrefix(rest, m3NS+"</") {
		asArray := false
		if types["array"] && !types["object"] {
			asArray = true
		}
		keys, values, end, err, errAt := m3Elements(s, pos, closeTag, final, depth, schema, asArray)
		if err != nil {
			return "", 0, err, errAt
		}
		if !types["object"] && !asArray {
			asArray = true
			for _, k := range keys {
				if k != "item" {
					asArray = false
				}
			}
		}
		if asArray {
			return "[" + strings.Join(values, ",") + "]", end, nil, 0
		}
		return string(taggedObject(keys, values)), end, nil, 0
	}
	if !final && len(rest) < len(m3NS)+1 && strings.HasPrefix(m3NS+"<", rest) {
		return "", 0, errM3More, 0 // an element or a scalar
	}
	i := strings.Index(rest, m3NS)
	if i < 0 {
		return "", 0, errM3More, 0
	}
	if !strings.HasPrefix(rest[i:], closeTag) {
		if !final && strings.HasPrefix(closeTag, rest[i:]) {
			return "", 0, errM3More, 0
		}
		return "", 0, taggedExpected(closeTag), pos + i
	}
	raw := rest[:i]
	end := pos + i + len(closeTag)
	if schema == nil {
		return taggedUntyped(raw), end, nil, 0
	}
	if raw == "" && len(types) == 1 {
		switch {
		case types["array"]:
			return "[]", end, nil, 0
		case types["object"]:
			return "{}", end, nil, 0
		}
	}
	v, err := taggedArgValue(raw, hintNone, &taggedProp{Types: types})
	if err != nil {
		return "", 0, err, pos
	}
	return v, end, nil, 0
}

// minimaxM3Pattern forces M3 calls: the schema of each argument becomes
// elements (objects with declared properties, arrays of items, scalars).
// A parameter that admits objects or arrays among other types cannot be
// written as elements: ErrNoGrammar.
func minimaxM3Pattern(opts GrammarOptions) (constrain.Pattern, error) {
	return taggedCompose(opts, taggedGrammarParts{
		stops: []string{m3NS, m3EOT},
		call: func(t Tool) (constrain.Pattern, error) {
			root := taggedSchema(t)
			var failed error
			params, err := taggedParamsPattern(t, func(p taggedProp) constrain.Pattern {
				v, err := m3ValuePattern(root, p.Pointer, opts, 0)
				if err != nil && failed == nil {
					failed = fmt.Errorf("parameter %q: %w", p.Name, err)
				}
				return constrain.Sequence(constrain.Literal(m3NS+"<"+p.Name+">"), v, constrain.Literal(m3NS+"</"+p.Name+">"))
			})
			if err == nil {
				err = failed
			}
			if err != nil {
				return constrain.Pattern{}, err
			}
			return constrain.Sequence(constrain.Literal(m3Invoke+t.Name+`">`), params, constrain.Literal(m3InvokeEnd+"\n")), nil
		},
		block: func(calls constrain.Pattern) constrain.Pattern {
			return constrain.Sequence(constrain.Literal(m3BlockOpen+"\n"), calls, constrain.Literal(m3BlockClose))
		},
	})
}

// m3ValuePattern forces the value of the schema at ptr as elements.
func m3ValuePattern(root []byte, ptr string, opts GrammarOptions, depth int) (constrain.Pattern, error) {
	if depth > 8 {
		return constrain.Pattern{}, fmt.Errorf("%w: the schema nests too deep for MiniMax M3 elements", ErrNoGrammar)
	}
	node, ok := taggedPointer(root, ptr)
	if !ok {
		return constrain.Pattern{}, fmt.Errorf("no schema at %s", ptr)
	}
	// Follow $refs, keeping the pointer of the schema reached.
	for range 8 {
		var ref struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(node, &ref) != nil || !strings.HasPrefix(ref.Ref, "#") {
			break
		}
		ptr = ref.Ref[1:]
		if node, ok = taggedPointer(root, ptr); !ok {
			return constrain.Pattern{}, fmt.Errorf("unresolved $ref %s", ref.Ref)
		}
	}
	types := map[string]bool{}
	strs, allStrings := taggedSchemaTypes(root, node, types, 0)
	delete(types, "null") // null values are left out
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(node, &obj)
	switch {
	case allStrings && len(strs) > 0:
		var alts []constrain.Pattern
		for _, s := range strs {
			alts = append(alts, constrain.Literal(s))
		}
		return constrain.Choice(alts...), nil
	case len(types) == 1 && types["object"]:
		names, err := taggedKeys(obj["properties"])
		if err != nil {
			return constrain.Pattern{}, err
		}
		var required []string
		_ = json.Unmarshal(obj["required"], &required)
		var parts []constrain.Pattern
		for _, n := range names {
			v, err := m3ValuePattern(root, ptr+"/properties/"+taggedPointerEscape(n), opts, depth+1)
			if err != nil {
				return constrain.Pattern{}, err
			}
			el := constrain.Sequence(constrain.Literal(m3NS+"<"+n+">"), v, constrain.Literal(m3NS+"</"+n+">"))
			req := false
			for _, r := range required {
				req = req || r == n
			}
			if !req {
				el = constrain.Optional(el)
			}
			parts = append(parts, el)
		}
		return constrain.Sequence(parts...), nil
	case len(types) == 1 && types["array"]:
		var item constrain.Pattern
		if _, ok := obj["items"]; ok {
			v, err := m3ValuePattern(root, ptr+"/items", opts, depth+1)
			if err != nil {
				return constrain.Pattern{}, err
			}
			item = v
		} else {
			item = constrain.TextWithout(m3NS)
		}
		lo, hi := 0, -1
		if n, err := strconv.Atoi(string(obj["minItems"])); err == nil && n > 0 {
			lo = n
		}
		if n, err := strconv.Atoi(string(obj["maxItems"])); err == nil && n >= lo {
			hi = n
		}
		el := constrain.Sequence(constrain.Literal(m3NS+"<item>"), item, constrain.Literal(m3NS+"</item>"))
		return constrain.Repeat(el, lo, hi), nil
	case types["object"] || types["array"]:
		return constrain.Pattern{}, fmt.Errorf("%w: a value that may be an object or array or a scalar cannot be written as MiniMax M3 elements", ErrNoGrammar)
	case len(types) == 1 && types["string"], len(types) == 0:
		return constrain.TextWithout(m3NS), nil
	case !types["string"]:
		return constrain.JSONValue(root, ptr, opts.JSON), nil
	}
	return constrain.TextWithout(m3NS), nil
}
