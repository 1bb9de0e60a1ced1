package constrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jkind is the kind of a parsed JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is a JSON value that keeps object keys in document order.
type jvalue struct {
	kind jkind
	b    bool
	num  json.Number
	str  string
	arr  []*jvalue
	keys []string
	vals []*jvalue
}

// get returns the value of key in an object, or nil.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// parseJSON parses one JSON document preserving key order.
func parseJSON(data []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("offset %d: trailing data after JSON value", dec.InputOffset())
	}
	return v, nil
}

func readJSON(dec *json.Decoder) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("offset %d: unexpected end of JSON", dec.InputOffset())
		}
		return nil, fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
	}
	switch t := tok.(type) {
	case nil:
		return &jvalue{kind: jNull}, nil
	case bool:
		return &jvalue{kind: jBool, b: t}, nil
	case json.Number:
		return &jvalue{kind: jNumber, num: t}, nil
	case string:
		return &jvalue{kind: jString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &jvalue{kind: jArray}
			for dec.More() {
				x, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, x)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := &jvalue{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
				}
				k, _ := kt.(string)
				x, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k)
				v.vals = append(v.vals, x)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("offset %d: unexpected token %v", dec.InputOffset(), tok)
}

// encode writes v as compact JSON (keys in document order, no HTML escaping).
func (v *jvalue) encode(sb *strings.Builder) {
	switch v.kind {
	case jNull:
		sb.WriteString("null")
	case jBool:
		if v.b {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case jNumber:
		sb.WriteString(v.num.String())
	case jString:
		sb.WriteString(quoteJSON(v.str))
	case jArray:
		sb.WriteByte('[')
		for i, x := range v.arr {
			if i > 0 {
				sb.WriteByte(',')
			}
			x.encode(sb)
		}
		sb.WriteByte(']')
	case jObject:
		sb.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(quoteJSON(k))
			sb.WriteByte(':')
			v.vals[i].encode(sb)
		}
		sb.WriteByte('}')
	}
}

// quoteJSON returns s as a JSON string literal without HTML escaping.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // strings always encode
	return strings.TrimSuffix(buf.String(), "\n")
}

// pointerToken escapes a JSON pointer reference token.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// arrOrNil returns the elements of an array (nil for anything else).
func (v *jvalue) arrOrNil() []*jvalue {
	if v == nil || v.kind != jArray {
		return nil
	}
	return v.arr
}

// keysOrNil returns the keys of an object (nil for anything else).
func (v *jvalue) keysOrNil() []string {
	if v == nil || v.kind != jObject {
		return nil
	}
	return v.keys
}
