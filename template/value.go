package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ardanlabs/jinja"
)

// Value is a template value: none, bool, int, float, string, list, ordered
// dict or callable. It is the value type of github.com/ardanlabs/jinja; build
// values with [DecodeOrdered], [FromGo] or the jinja constructors
// (jinja.NewString, jinja.NewDict, ...). Dicts keep insertion order.
type Value = jinja.Value

// DecodeOrdered decodes one JSON document into a [Value], keeping the key
// order of every object, integers as integers and numbers with a fraction or
// exponent as floats, as Python's json.loads does.
func DecodeOrdered(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("decode JSON at offset %d: %w", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jinja.Undefined(), fmt.Errorf("decode JSON at offset %d: trailing data after value", dec.InputOffset())
	}
	return v, nil
}

// maxDepth bounds nesting while decoding untrusted JSON.
const maxDepth = 10000

func decodeValue(dec *json.Decoder) (Value, error) {
	return decodeDepth(dec, 0)
}

func decodeDepth(dec *json.Decoder, depth int) (Value, error) {
	if depth > maxDepth {
		return jinja.Undefined(), fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return jinja.Undefined(), io.ErrUnexpectedEOF
		}
		return jinja.Undefined(), err
	}
	switch t := tok.(type) {
	case nil:
		return jinja.None(), nil
	case bool:
		return jinja.NewBool(t), nil
	case string:
		return jinja.NewString(t), nil
	case json.Number:
		return numberValue(t)
	case json.Delim:
		switch t {
		case '{':
			d := jinja.NewDict()
			dict := d.AsDict()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return jinja.Undefined(), err
				}
				key, ok := k.(string)
				if !ok {
					return jinja.Undefined(), fmt.Errorf("object key %v is not a string", k)
				}
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return jinja.Undefined(), err
				}
				dict.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), err
			}
			return d, nil
		case '[':
			items := []Value{}
			for dec.More() {
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return jinja.Undefined(), err
				}
				items = append(items, v)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewList(items), nil
		}
	}
	return jinja.Undefined(), fmt.Errorf("unexpected JSON token %v", tok)
}

// numberValue converts a JSON number like Python's json module: no fraction
// or exponent gives an int, anything else a float.
func numberValue(n json.Number) (Value, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := n.Int64(); err == nil {
			return jinja.NewInt(i), nil
		}
		// Python ints are unbounded; the nearest representable value is a float.
	}
	f, err := n.Float64()
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("number %q: %w", s, err)
	}
	return jinja.NewFloat(f), nil
}

// FromGo converts a Go value to a [Value]. It accepts what jinja.FromGoValue
// accepts (nil, bool, int, int64, float64, string, []any, map[string]any, ...;
// Go maps have no order, so their keys are sorted) plus [Value] itself, and
// json.RawMessage, which is decoded with [DecodeOrdered] so key order is kept.
func FromGo(v any) (Value, error) {
	switch t := v.(type) {
	case Value:
		return t, nil
	case json.RawMessage:
		return DecodeOrdered(t)
	case []Value:
		return jinja.NewList(append([]Value(nil), t...)), nil
	}
	return jinja.FromGoValue(v), nil
}
