package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// InputProperty is the property that holds a non-object input once its
// schema is wrapped by [WrapSchema].
const InputProperty = "input"

// annotations are the schema keywords that say nothing about the value's
// shape; a schema holding only these accepts any value.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true, "title": true,
	"description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "$defs": true, "definitions": true,
}

// hoisted are the keywords moved from a wrapped schema to the wrapper, so
// that "#/$defs/…" references keep resolving from the new root.
var hoisted = []string{"$schema", "$defs", "definitions"}

// WrapSchema is the one rule for tool inputs that are not JSON objects
// (Genkit allows a string, a number, an array…): function-calling models
// write their arguments as an object, so a schema that does not describe
// one is wrapped as
//
//	{"type":"object","properties":{"input":SCHEMA},"required":["input"]}
//
// and the model's arguments {"input": VALUE} are unwrapped to VALUE with
// [UnwrapArguments] before the tool sees them. ok reports whether schema
// was wrapped; an object schema, an empty one (any value, which function
// calling reads as an empty object) and anything that is not a JSON
// object are returned unchanged with ok false.
//
// A schema describes an object when its "type" is "object" (or a list of
// "object" and "null"), when it has no "type" but object keywords
// ("properties", "required", …), when its local "$ref" names an object
// schema, or when every branch of its "anyOf"/"oneOf" (any branch of its
// "allOf") does. "$schema", "$defs" and "definitions" move to the
// wrapper.
func WrapSchema(schema json.RawMessage) (wrapped json.RawMessage, ok bool) {
	members, err := objectMembers(schema)
	if err != nil || !needsWrap(members, members, 0) {
		return schema, false
	}
	var inner, top bytes.Buffer
	inner.WriteByte('{')
	n := 0
	for _, m := range members {
		if isHoisted(m.key) {
			continue
		}
		if n > 0 {
			inner.WriteByte(',')
		}
		n++
		writeString(&inner, m.key)
		inner.WriteByte(':')
		inner.Write(m.value)
	}
	inner.WriteByte('}')
	top.WriteString(`{"type":"object","properties":{"input":`)
	top.Write(inner.Bytes())
	top.WriteString(`},"required":["input"]`)
	for _, k := range hoisted {
		if v, ok := lookup(members, k); ok {
			top.WriteByte(',')
			writeString(&top, k)
			top.WriteByte(':')
			top.Write(v)
		}
	}
	top.WriteByte('}')
	return top.Bytes(), true
}

// WrapArguments wraps a non-object input VALUE as {"input": VALUE}, the
// arguments a model writes for a schema wrapped by [WrapSchema] (for a
// history that holds such a call).
func WrapArguments(value json.RawMessage) json.RawMessage {
	v := bytes.TrimSpace(value)
	if len(v) == 0 {
		v = []byte("null")
	}
	return append(append([]byte(`{"input":`), v...), '}')
}

// UnwrapArguments reverses [WrapSchema] for the arguments of a call: it
// returns the value of the "input" member of args. Arguments that are not
// a JSON object (a model that wrote the bare value) are returned
// unchanged; an object without "input" is an [ArgumentError].
func UnwrapArguments(args json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 {
		return nil, &ArgumentError{Path: InputProperty, Problem: "missing"}
	}
	if t[0] != '{' {
		if !json.Valid(t) {
			return nil, &ArgumentError{Problem: "invalid JSON"}
		}
		return t, nil
	}
	members, err := objectMembers(t)
	if err != nil {
		return nil, &ArgumentError{Problem: "invalid JSON: " + err.Error()}
	}
	v, ok := lookup(members, InputProperty)
	if !ok {
		return nil, &ArgumentError{Path: InputProperty, Problem: "missing"}
	}
	for _, m := range members {
		if m.key != InputProperty {
			return nil, &ArgumentError{Path: m.key, Problem: "unknown property"}
		}
	}
	return v, nil
}

// member is one member of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, in order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the object")
	}
	return out, nil
}

func lookup(members []member, key string) (json.RawMessage, bool) {
	for _, m := range members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

func isHoisted(key string) bool {
	for _, k := range hoisted {
		if k == key {
			return true
		}
	}
	return false
}

// needsWrap reports whether the schema with these members describes
// something other than an object; root holds the document's "$defs".
func needsWrap(members, root []member, depth int) bool {
	if depth > 16 {
		return false
	}
	if t, ok := lookup(members, "type"); ok {
		var one string
		if json.Unmarshal(t, &one) == nil {
			return one != "object"
		}
		var many []string
		if json.Unmarshal(t, &many) == nil {
			for _, s := range many {
				if s != "object" && s != "null" {
					return true
				}
			}
			return false
		}
		return false
	}
	for _, k := range []string{"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas"} {
		if _, ok := lookup(members, k); ok {
			return false
		}
	}
	if ref, ok := lookup(members, "$ref"); ok {
		var s string
		if json.Unmarshal(ref, &s) != nil {
			return false
		}
		target, ok := resolveRef(s, root)
		if !ok {
			return false // not ours to judge: leave it as the caller wrote it
		}
		return needsWrap(target, root, depth+1)
	}
	if v, ok := lookup(members, "allOf"); ok {
		branches := schemaList(v)
		for _, b := range branches {
			if !needsWrap(b, root, depth+1) {
				return false
			}
		}
		return len(branches) > 0
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if v, ok := lookup(members, k); ok {
			for _, b := range schemaList(v) {
				if needsWrap(b, root, depth+1) {
					return true
				}
			}
			return false
		}
	}
	for _, k := range []string{"enum", "const"} {
		if v, ok := lookup(members, k); ok {
			vals := []json.RawMessage{v}
			if k == "enum" {
				vals = nil
				_ = json.Unmarshal(v, &vals)
			}
			for _, val := range vals {
				if t := bytes.TrimSpace(val); len(t) == 0 || t[0] != '{' {
					return true
				}
			}
			return false
		}
	}
	for _, m := range members {
		if !annotations[m.key] {
			// A keyword of another type (items, pattern, minimum…).
			return true
		}
	}
	return false // any value
}

// resolveRef finds a local "#/$defs/NAME" or "#/definitions/NAME".
func resolveRef(ref string, root []member) ([]member, bool) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	section, name, ok := strings.Cut(rest, "/")
	if !ok || (section != "$defs" && section != "definitions") || strings.Contains(name, "/") {
		return nil, false
	}
	defs, ok := lookup(root, section)
	if !ok {
		return nil, false
	}
	dm, err := objectMembers(defs)
	if err != nil {
		return nil, false
	}
	target, ok := lookup(dm, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"))
	if !ok {
		return nil, false
	}
	tm, err := objectMembers(target)
	return tm, err == nil
}

// schemaList decodes a list of schemas; entries that are not objects (a
// boolean schema) are skipped.
func schemaList(raw json.RawMessage) [][]member {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out [][]member
	for _, s := range list {
		if m, err := objectMembers(s); err == nil {
			out = append(out, m)
		}
	}
	return out
}
