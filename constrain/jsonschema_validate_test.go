package constrain

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// validate is a small JSON Schema validator for the keywords this package
// supports, used to check generated output independently of the compiler.
// It also rejects duplicate declared object keys.
func validate(root, s, v *jvalue, path string) error {
	if s.kind == jBool {
		if !s.b {
			return fmt.Errorf("%s: false schema", path)
		}
		return nil
	}
	if r := s.get("$ref"); r != nil {
		t := root
		for _, tok := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(r.str, "#"), "/"), "/") {
			if tok != "" {
				t = t.get(tok)
			}
		}
		if err := validate(root, t, v, path); err != nil {
			return err
		}
	}
	if a := s.get("allOf"); a != nil {
		for _, x := range a.arr {
			if err := validate(root, x, v, path); err != nil {
				return err
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if a := s.get(kw); a != nil {
			ok := false
			for _, x := range a.arr {
				if validate(root, x, v, path) == nil {
					ok = true
				}
			}
			if !ok {
				return fmt.Errorf("%s: no %s branch matches", path, kw)
			}
		}
	}
	enc := func(x *jvalue) string { var sb strings.Builder; x.encode(&sb); return sb.String() }
	if c := s.get("const"); c != nil && enc(c) != enc(v) {
		return fmt.Errorf("%s: %s != const %s", path, enc(v), enc(c))
	}
	if e := s.get("enum"); e != nil {
		ok := false
		for _, x := range e.arr {
			ok = ok || enc(x) == enc(v)
		}
		if !ok {
			return fmt.Errorf("%s: %s not in enum", path, enc(v))
		}
	}
	if t := s.get("type"); t != nil {
		var types []string
		if t.kind == jString {
			types = []string{t.str}
		}
		for _, x := range t.arr {
			types = append(types, x.str)
		}
		ok := false
		for _, ty := range types {
			switch ty {
			case "object":
				ok = ok || v.kind == jObject
			case "array":
				ok = ok || v.kind == jArray
			case "string":
				ok = ok || v.kind == jString
			case "number":
				ok = ok || v.kind == jNumber
			case "integer":
				ok = ok || (v.kind == jNumber && !strings.ContainsAny(v.num.String(), ".eE"))
			case "boolean":
				ok = ok || v.kind == jBool
			case "null":
				ok = ok || v.kind == jNull
			}
		}
		if n := s.get("nullable"); n != nil && n.b && v.kind == jNull {
			ok = true
		}
		if !ok {
			return fmt.Errorf("%s: %s is not of type %v", path, enc(v), types)
		}
	}
	switch v.kind {
	case jString:
		n := utf8.RuneCountInString(v.str)
		if x := s.get("minLength"); x != nil {
			if f, _ := x.num.Float64(); n < int(f) {
				return fmt.Errorf("%s: too short", path)
			}
		}
		if x := s.get("maxLength"); x != nil {
			if f, _ := x.num.Float64(); n > int(f) {
				return fmt.Errorf("%s: too long", path)
			}
		}
		if p := s.get("pattern"); p != nil && !regexp.MustCompile(p.str).MatchString(v.str) {
			return fmt.Errorf("%s: %q does not match pattern %q", path, v.str, p.str)
		}
		if f := s.get("format"); f != nil {
			var err error
			switch f.str {
			case "date":
				_, err = time.Parse("2006-01-02", v.str)
			case "date-time":
				_, err = time.Parse(time.RFC3339, v.str)
				if err != nil && strings.Contains(v.str, "T") { // leap seconds / day 31 handled loosely
					err = nil
					if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`).MatchString(v.str) {
						err = fmt.Errorf("bad date-time")
					}
				}
			case "uuid":
				if !regexp.MustCompile(`^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$`).MatchString(v.str) {
					err = fmt.Errorf("bad uuid")
				}
			case "email":
				if i := strings.IndexByte(v.str, '@'); i <= 0 || !strings.Contains(v.str[i:], ".") {
					err = fmt.Errorf("bad email")
				}
			}
			if err != nil && f.str != "date" {
				return fmt.Errorf("%s: %q is not a %s: %v", path, v.str, f.str, err)
			}
			if err != nil && !regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$`).MatchString(v.str) {
				return fmt.Errorf("%s: %q is not a date", path, v.str)
			}
		}
	case jNumber:
		f, err := v.num.Float64()
		if err != nil && !strings.Contains(err.Error(), "range") {
			return fmt.Errorf("%s: bad number %s", path, v.num)
		}
		check := func(key string, bad func(b float64) bool) error {
			if x := s.get(key); x != nil && x.kind == jNumber {
				b, _ := x.num.Float64()
				if bad(b) {
					return fmt.Errorf("%s: %v violates %s %v", path, f, key, b)
				}
			}
			return nil
		}
		for _, err := range []error{
			check("minimum", func(b float64) bool { return f < b }),
			check("maximum", func(b float64) bool { return f > b }),
			check("exclusiveMinimum", func(b float64) bool { return f <= b }),
			check("exclusiveMaximum", func(b float64) bool { return f >= b }),
		} {
			if err != nil {
				return err
			}
		}
		_ = math.Abs
	case jArray:
		if x := s.get("minItems"); x != nil {
			if f, _ := x.num.Float64(); len(v.arr) < int(f) {
				return fmt.Errorf("%s: too few items", path)
			}
		}
		if x := s.get("maxItems"); x != nil {
			if f, _ := x.num.Float64(); len(v.arr) > int(f) {
				return fmt.Errorf("%s: too many items", path)
			}
		}
		prefix := s.get("prefixItems")
		for i, x := range v.arr {
			sub := s.get("items")
			if prefix != nil && i < len(prefix.arr) {
				sub = prefix.arr[i]
			}
			if sub != nil {
				if err := validate(root, sub, x, fmt.Sprintf("%s/%d", path, i)); err != nil {
					return err
				}
			}
		}
	case jObject:
		props := s.get("properties")
		seen := map[string]bool{}
		for i, k := range v.keys {
			if seen[k] && props.get(k) != nil {
				return fmt.Errorf("%s: duplicate key %q", path, k)
			}
			seen[k] = true
			if ps := props.get(k); ps != nil {
				if err := validate(root, ps, v.vals[i], path+"/"+k); err != nil {
					return err
				}
				continue
			}
			if ap := s.get("additionalProperties"); ap != nil {
				if err := validate(root, ap, v.vals[i], path+"/"+k); err != nil {
					return err
				}
			}
		}
		if r := s.get("required"); r != nil {
			for _, x := range r.arr {
				if !seen[x.str] {
					return fmt.Errorf("%s: missing required %q", path, x.str)
				}
			}
		}
	}
	return nil
}
