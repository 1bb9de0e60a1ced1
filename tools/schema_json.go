package tools

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// marshalSchema renders n as compact JSON Schema with a fixed key order:
// type, description, format, contentEncoding, enum, minimum, items,
// minItems, maxItems, properties (in struct field order), required,
// additionalProperties.
func marshalSchema(n *node) []byte {
	var buf bytes.Buffer
	writeNode(&buf, n)
	return buf.Bytes()
}

// objectWriter writes the members of one JSON object.
type objectWriter struct {
	buf   *bytes.Buffer
	first bool
}

func (w *objectWriter) key(k string) {
	if !w.first {
		w.buf.WriteByte(',')
	}
	w.first = false
	writeString(w.buf, k)
	w.buf.WriteByte(':')
}

func (w *objectWriter) str(k, v string) {
	w.key(k)
	writeString(w.buf, v)
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	buf.Write(b)
}

func typeName(n *node) string {
	if n.quoted {
		return "string"
	}
	switch n.kind {
	case kindBool:
		return "boolean"
	case kindInt, kindUint:
		return "integer"
	case kindFloat:
		return "number"
	case kindString, kindBytes, kindTime:
		return "string"
	case kindArray:
		return "array"
	case kindObject, kindMap:
		return "object"
	}
	return ""
}

func writeNode(buf *bytes.Buffer, n *node) {
	buf.WriteByte('{')
	w := &objectWriter{buf: buf, first: true}
	if t := typeName(n); t != "" {
		w.str("type", t)
	}
	if n.description != "" {
		w.str("description", n.description)
	}
	switch n.kind {
	case kindTime:
		w.str("format", "date-time")
	case kindBytes:
		w.str("contentEncoding", "base64")
	}
	if len(n.enum) > 0 {
		w.key("enum")
		buf.WriteByte('[')
		for i, v := range n.enum {
			if i > 0 {
				buf.WriteByte(',')
			}
			b, _ := json.Marshal(v) // strings and numbers only
			buf.Write(b)
		}
		buf.WriteByte(']')
	}
	if n.kind == kindUint && !n.quoted {
		w.key("minimum")
		buf.WriteByte('0')
	}
	switch n.kind {
	case kindArray:
		w.key("items")
		writeNode(buf, n.items)
		if n.length >= 0 {
			w.key("minItems")
			buf.WriteString(strconv.Itoa(n.length))
			w.key("maxItems")
			buf.WriteString(strconv.Itoa(n.length))
		}
	case kindObject:
		w.key("properties")
		buf.WriteByte('{')
		for i, p := range n.props {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, p.name)
			buf.WriteByte(':')
			writeNode(buf, p.node)
		}
		buf.WriteByte('}')
		var required []string
		for _, p := range n.props {
			if p.required {
				required = append(required, p.name)
			}
		}
		if len(required) > 0 {
			w.key("required")
			b, _ := json.Marshal(required)
			buf.Write(b)
		}
		w.key("additionalProperties")
		buf.WriteString("false")
	case kindMap:
		w.key("additionalProperties")
		writeNode(buf, n.values)
	}
	buf.WriteByte('}')
}
