package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxArgumentErrors bounds the problems reported for one call.
const maxArgumentErrors = 20

// checkArgs decodes raw model arguments, validates them against n and
// returns them normalized (optional nulls dropped, integral floats such as
// 2.0 rewritten as integers) and re-encoded, ready for json.Unmarshal.
func checkArgs(n *node, raw []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		if n.kind != kindObject && !n.nullable {
			return nil, ArgumentErrors{{Problem: "missing"}}
		}
		if n.kind == kindObject {
			trimmed = []byte("{}")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ArgumentErrors{{Problem: "invalid JSON: " + err.Error()}}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ArgumentErrors{{Problem: "invalid JSON: unexpected data after the arguments object"}}
	}
	c := &checker{}
	v = c.check(n, v, "")
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return json.Marshal(v)
}

// checker accumulates argument problems.
type checker struct {
	errs ArgumentErrors
}

func (c *checker) fail(path, format string, args ...any) {
	if len(c.errs) < maxArgumentErrors {
		c.errs = append(c.errs, &ArgumentError{Path: path, Problem: fmt.Sprintf(format, args...)})
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// check validates v against n and returns the normalized value.
func (c *checker) check(n *node, v any, path string) any {
	if v == nil {
		if n.nullable || n.kind == kindAny {
			return nil
		}
		c.fail(path, "want %s, got null", typeName(n))
		return v
	}
	if n.quoted {
		return c.checkQuoted(n, v, path)
	}
	switch n.kind {
	case kindAny:
		return v
	case kindBool:
		if _, ok := v.(bool); !ok {
			c.fail(path, "want boolean, got %s", jsonType(v))
		}
		return v
	case kindInt, kindUint, kindFloat:
		num, ok := v.(json.Number)
		if !ok {
			c.fail(path, "want %s, got %s", typeName(n), jsonType(v))
			return v
		}
		return c.checkNumber(n, num, path)
	case kindString:
		s, ok := v.(string)
		if !ok {
			c.fail(path, "want string, got %s", jsonType(v))
			return v
		}
		c.checkEnum(n, s, path)
		return v
	case kindBytes:
		s, ok := v.(string)
		if !ok {
			c.fail(path, "want base64 string, got %s", jsonType(v))
		} else if _, err := decodeBase64(s); err != nil {
			c.fail(path, "want base64 string: %v", err)
		}
		return v
	case kindTime:
		s, ok := v.(string)
		if !ok {
			c.fail(path, "want date-time string (RFC 3339), got %s", jsonType(v))
		} else if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			c.fail(path, "want date-time string (RFC 3339, e.g. 2024-05-01T10:00:00Z), got %q", s)
		}
		return v
	case kindArray:
		return c.checkArray(n, v, path)
	case kindObject:
		return c.checkObject(n, v, path)
	case kindMap:
		return c.checkMap(n, v, path)
	}
	return v
}

func (c *checker) checkArray(n *node, v any, path string) any {
	arr, ok := v.([]any)
	if !ok {
		c.fail(path, "want array, got %s", jsonType(v))
		return v
	}
	if n.length >= 0 && len(arr) != n.length {
		c.fail(path, "want exactly %d items, got %d", n.length, len(arr))
	}
	for i, e := range arr {
		arr[i] = c.check(n.items, e, fmt.Sprintf("%s[%d]", path, i))
	}
	return arr
}

func (c *checker) checkObject(n *node, v any, path string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "want object, got %s", jsonType(v))
		return v
	}
	known := make([]string, len(n.props))
	for i, p := range n.props {
		known[i] = p.name
		pv, present := obj[p.name]
		switch {
		case !present:
			if p.required {
				c.fail(joinPath(path, p.name), "missing required field")
			}
		case pv == nil && !p.required && !p.node.nullable:
			delete(obj, p.name) // an explicit null for an optional field means absent
		default:
			obj[p.name] = c.check(p.node, pv, joinPath(path, p.name))
		}
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		if len(known) == 0 {
			c.fail(joinPath(path, k), "unknown field; no fields are accepted")
		} else {
			c.fail(joinPath(path, k), "unknown field; known fields: %s", strings.Join(known, ", "))
		}
	}
	return obj
}

func (c *checker) checkMap(n *node, v any, path string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "want object, got %s", jsonType(v))
		return v
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kp := fmt.Sprintf("%s[%q]", path, k)
		if n.intKeys {
			if _, err := strconv.ParseInt(k, 10, 64); err != nil {
				if _, err := strconv.ParseUint(k, 10, 64); err != nil {
					c.fail(kp, "map key must be an integer")
					continue
				}
			}
		}
		obj[k] = c.check(n.values, obj[k], kp)
	}
	return obj
}

// checkNumber validates a number against an integer or float node. An
// integer written with a fraction or exponent (2.0, 1e3) is accepted and
// rewritten in integer form.
func (c *checker) checkNumber(n *node, num json.Number, path string) any {
	s := num.String()
	switch n.kind {
	case kindFloat:
		f, err := strconv.ParseFloat(s, n.bits)
		if err != nil {
			c.fail(path, "number %s is out of range for a %d-bit float", s, n.bits)
		}
		c.checkEnum(n, f, path)
		return num
	case kindInt:
		i, err := strconv.ParseInt(s, 10, n.bits)
		if err != nil {
			f, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				if ferr == nil && f == math.Trunc(f) {
					c.fail(path, "integer %s is out of range for %d bits", s, n.bits)
				} else {
					c.fail(path, "want integer, got number")
				}
				return num
			}
			i = int64(f)
			if i != (i<<(64-n.bits))>>(64-n.bits) {
				c.fail(path, "integer %s is out of range for %d bits", s, n.bits)
				return num
			}
		}
		c.checkEnum(n, i, path)
		return json.Number(strconv.FormatInt(i, 10))
	default: // kindUint
		u, err := strconv.ParseUint(s, 10, n.bits)
		if err != nil {
			f, ferr := strconv.ParseFloat(s, 64)
			switch {
			case ferr == nil && f < 0:
				c.fail(path, "want non-negative integer, got %s", s)
				return num
			case ferr != nil || f != math.Trunc(f) || f > 1<<53:
				if ferr == nil && f == math.Trunc(f) {
					c.fail(path, "integer %s is out of range for %d bits", s, n.bits)
				} else {
					c.fail(path, "want integer, got number")
				}
				return num
			}
			u = uint64(f)
			if n.bits < 64 && u >= 1<<n.bits {
				c.fail(path, "integer %s is out of range for %d bits", s, n.bits)
				return num
			}
		}
		c.checkEnum(n, u, path)
		return json.Number(strconv.FormatUint(u, 10))
	}
}

// checkQuoted validates a number or boolean carried in a string
// (`json:",string"`).
func (c *checker) checkQuoted(n *node, v any, path string) any {
	s, ok := v.(string)
	if !ok {
		c.fail(path, "want string, got %s", jsonType(v))
		return v
	}
	if n.kind == kindBool {
		if s != "true" && s != "false" {
			c.fail(path, "want \"true\" or \"false\", got %q", s)
		}
		return v
	}
	inner := *n
	inner.quoted = false
	sub := &checker{}
	norm := sub.checkNumber(&inner, json.Number(s), path)
	if len(sub.errs) > 0 {
		c.fail(path, "want %s in a string, got %q", typeName(&inner), s)
		return v
	}
	return string(norm.(json.Number))
}

// checkEnum reports a value outside the node's enum.
func (c *checker) checkEnum(n *node, v any, path string) {
	if len(n.enum) == 0 || slices.Contains(n.enum, v) {
		return
	}
	allowed := make([]string, len(n.enum))
	for i, e := range n.enum {
		b, _ := json.Marshal(e)
		allowed[i] = string(b)
	}
	got, _ := json.Marshal(v)
	c.fail(path, "%s is not one of %s", got, strings.Join(allowed, ", "))
}
