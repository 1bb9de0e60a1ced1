package constrain

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// This file validates literal values (const and enum members) against the
// rest of a schema, so a literal the schema otherwise excludes is not
// generated.

// ratOf returns the exact value of a JSON number.
func ratOf(v *jvalue) (*big.Rat, bool) {
	if v == nil || v.kind != jNumber || len(v.num) > 400 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(v.num))
	return r, ok
}

// jsonEqual compares JSON values by value: numbers numerically, objects
// regardless of key order.
func jsonEqual(a, b *jvalue) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jNull:
		return true
	case jBool:
		return a.b == b.b
	case jNumber:
		x, ok1 := ratOf(a)
		y, ok2 := ratOf(b)
		return ok1 && ok2 && x.Cmp(y) == 0
	case jString:
		return a.str == b.str
	case jArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !jsonEqual(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.keys) != len(b.keys) {
		return false
	}
	for i, k := range a.keys {
		y := b.get(k)
		if y == nil || !jsonEqual(a.vals[i], y) {
			return false
		}
	}
	return true
}

// validConj reports whether literal v satisfies every member of x and no
// negated schema.
func (c *schemaCompiler) validConj(v *jvalue, x conj) (bool, error) {
	for _, m := range x.pos {
		ok, err := c.valid(v, m.s, 0)
		if err != nil || !ok {
			return false, err
		}
	}
	for _, n := range x.neg {
		ok, err := c.valid(v, n, 0)
		if err != nil || ok {
			return false, err
		}
	}
	return true, nil
}

// maxValidDepth bounds the nesting of schemas the literal validator follows.
const maxValidDepth = 64

// valid validates v against schema s.
func (c *schemaCompiler) valid(v *jvalue, s sref, depth int) (bool, error) {
	if depth > maxValidDepth {
		return false, c.tooLarge(s.ptr, "schemas nested deeper than %d while checking a literal", maxValidDepth)
	}
	if s.v.kind == jBool {
		return s.v.b, nil
	}
	if s.v.kind != jObject {
		return false, c.errf(s.ptr, ErrSyntax, "schema must be an object or a boolean")
	}
	sub := func(x *jvalue, path string, val *jvalue) (bool, error) {
		return c.valid(val, c.sub(s, x, path), depth+1)
	}
	if r := s.v.get("$ref"); r != nil && r.kind == jString {
		t, err := c.resolveRef(r.str, s, s.ptr+"/$ref")
		if err != nil {
			return false, err
		}
		ok, err := c.valid(v, t, depth+1)
		if err != nil || !ok || s.doc.draft == 7 {
			return ok, err
		}
	}
	if r := s.v.get("$dynamicRef"); r != nil && r.kind == jString {
		t, err := c.resolveRef(r.str, s, s.ptr+"/$dynamicRef")
		if err != nil {
			return false, err
		}
		if ok, err := c.valid(v, t, depth+1); err != nil || !ok {
			return ok, err
		}
	}
	types, err := c.memberTypes(s.v, false)
	if err != nil {
		return false, c.errf(s.ptr+"/type", ErrSyntax, "%v", err)
	}
	if types&valueType(v) == 0 {
		return false, nil
	}
	if l, ok := literalsOf(s.v); ok {
		found := false
		for _, x := range l {
			found = found || jsonEqual(x, v)
		}
		if !found {
			return false, nil
		}
	}
	for i, k := range s.v.keys {
		kv := s.v.vals[i]
		p := "/" + pointerToken(k)
		switch k {
		case "allOf", "anyOf", "oneOf":
			n := 0
			for j, x := range kv.arr {
				ok, err := sub(x, p+"/"+strconv.Itoa(j), v)
				if err != nil {
					return false, err
				}
				if ok {
					n++
				}
			}
			if k == "allOf" && n != len(kv.arr) || k == "anyOf" && n == 0 || k == "oneOf" && n != 1 {
				return false, nil
			}
		case "not":
			ok, err := sub(kv, p, v)
			if err != nil || ok {
				return false, err
			}
		case "if":
			ok, err := sub(kv, p, v)
			if err != nil {
				return false, err
			}
			branch := "else"
			if ok {
				branch = "then"
			}
			if b := s.v.get(branch); b != nil {
				if ok, err := sub(b, "/"+branch, v); err != nil || !ok {
					return false, err
				}
			}
		case "unevaluatedProperties", "unevaluatedItems":
			if v.kind == jObject || v.kind == jArray {
				return false, c.unsupported(s.ptr+p, "%s on a const or enum value is not supported", k)
			}
		}
	}
	switch v.kind {
	case jNumber:
		return c.validNumber(v, s)
	case jString:
		return c.validString(v, s)
	case jArray:
		return c.validArray(v, s, depth)
	case jObject:
		return c.validObject(v, s, depth)
	}
	return true, nil
}

func valueType(v *jvalue) int {
	switch v.kind {
	case jNull:
		return tNull
	case jBool:
		return tBool
	case jObject:
		return tObject
	case jArray:
		return tArray
	case jString:
		return tString
	}
	if r, ok := ratOf(v); ok && r.IsInt() {
		return tInteger
	}
	return tFraction
}

func (c *schemaCompiler) validNumber(v *jvalue, s sref) (bool, error) {
	x, ok := ratOf(v)
	if !ok {
		return false, nil
	}
	iv, err := c.interval(s)
	if err != nil {
		return false, err
	}
	if !iv.contains(x) {
		return false, nil
	}
	if m := s.v.get("multipleOf"); m != nil {
		r, ok := ratOf(m)
		if !ok || r.Sign() <= 0 {
			return false, c.errf(s.ptr+"/multipleOf", ErrSyntax, "multipleOf must be a positive number")
		}
		if !new(big.Rat).Quo(x, r).IsInt() {
			return false, nil
		}
	}
	return true, nil
}

func (c *schemaCompiler) validString(v *jvalue, s sref) (bool, error) {
	n := utf8.RuneCountInString(v.str)
	for _, k := range []string{"minLength", "maxLength"} {
		b, ok, err := c.intKeyword(s, k)
		if err != nil {
			return false, err
		}
		if ok && (k == "minLength" && n < b || k == "maxLength" && n > b) {
			return false, nil
		}
	}
	if p := s.v.get("pattern"); p != nil && p.kind == jString {
		re, err := ecmaRegexp(p.str)
		if err != nil {
			return false, c.unsupported(s.ptr+"/pattern", "pattern %q: %v", p.str, err)
		}
		if !re.MatchString(v.str) {
			return false, nil
		}
	}
	if f := s.v.get("format"); f != nil && f.kind == jString && !c.opts.Spec {
		if src, ok := formatRegexes[f.str]; ok && !regexp.MustCompile(`^(?:`+src+`)$`).MatchString(v.str) {
			return false, nil
		}
	}
	return true, nil
}

func (c *schemaCompiler) validArray(v *jvalue, s sref, depth int) (bool, error) {
	lo, hi, err := c.bounds(conj{pos: []member{{s: s}}}, "minItems", "maxItems")
	if err != nil || len(v.arr) < lo || hi >= 0 && len(v.arr) > hi {
		return false, err
	}
	prefix, rest, restPath := c.itemSchemas(s)
	for i, x := range v.arr {
		var is sref
		switch {
		case i < len(prefix):
			is = prefix[i]
		case rest != nil:
			is = c.sub(s, rest, restPath)
		default:
			continue
		}
		if ok, err := c.valid(x, is, depth+1); err != nil || !ok {
			return false, err
		}
	}
	if u := s.v.get("uniqueItems"); u != nil && u.kind == jBool && u.b {
		for i := range v.arr {
			for j := i + 1; j < len(v.arr); j++ {
				if jsonEqual(v.arr[i], v.arr[j]) {
					return false, nil
				}
			}
		}
	}
	if ct := s.v.get("contains"); ct != nil {
		n := 0
		for _, x := range v.arr {
			ok, err := c.valid(x, c.sub(s, ct, "/contains"), depth+1)
			if err != nil {
				return false, err
			}
			if ok {
				n++
			}
		}
		lo, hi := 1, -1
		if s.doc.draft != 7 {
			var err error
			if lo, hi, err = c.containsBounds(s); err != nil {
				return false, err
			}
		}
		if n < lo || hi >= 0 && n > hi {
			return false, nil
		}
	}
	return true, nil
}

// containsBounds reads minContains (default 1) and maxContains (-1: none).
func (c *schemaCompiler) containsBounds(s sref) (int, int, error) {
	lo, ok, err := c.intKeyword(s, "minContains")
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		lo = 1
	}
	hi, ok, err := c.intKeyword(s, "maxContains")
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		hi = -1
	}
	return lo, hi, nil
}

// itemSchemas returns the positional item schemas of s and the schema of
// the items after them (nil: any), in the member's draft.
func (c *schemaCompiler) itemSchemas(s sref) (prefix []sref, rest *jvalue, restPath string) {
	items := s.v.get("items")
	pk := "prefixItems"
	if s.doc.draft == 7 {
		pk = "items"
		if items != nil && items.kind == jArray {
			rest, restPath = s.v.get("additionalItems"), "/additionalItems"
		} else {
			rest, restPath, items = items, "/items", nil
		}
	} else {
		rest, restPath = items, "/items"
	}
	if p := s.v.get(pk); p != nil && p.kind == jArray {
		for i, x := range p.arr {
			prefix = append(prefix, c.sub(s, x, fmt.Sprintf("/%s/%d", pk, i)))
		}
	}
	return prefix, rest, restPath
}

func (c *schemaCompiler) validObject(v *jvalue, s sref, depth int) (bool, error) {
	lo, hi, err := c.bounds(conj{pos: []member{{s: s}}}, "minProperties", "maxProperties")
	if err != nil || len(v.keys) < lo || hi >= 0 && len(v.keys) > hi {
		return false, err
	}
	for _, r := range requiredNames(s.v) {
		if v.get(r) == nil {
			return false, nil
		}
	}
	props, pats := s.v.get("properties"), s.v.get("patternProperties")
	ap := s.v.get("additionalProperties")
	for i, k := range v.keys {
		val := v.vals[i]
		matched := false
		if p := props.get(k); p != nil {
			matched = true
			if ok, err := c.valid(val, c.sub(s, p, "/properties/"+pointerToken(k)), depth+1); err != nil || !ok {
				return false, err
			}
		}
		if pats != nil {
			for j, pat := range pats.keys {
				re, err := ecmaRegexp(pat)
				if err != nil {
					return false, c.unsupported(s.ptr+"/patternProperties/"+pointerToken(pat), "pattern %q: %v", pat, err)
				}
				if re.MatchString(k) {
					matched = true
					if ok, err := c.valid(val, c.sub(s, pats.vals[j], "/patternProperties/"+pointerToken(pat)), depth+1); err != nil || !ok {
						return false, err
					}
				}
			}
		}
		if !matched && ap != nil {
			if ok, err := c.valid(val, c.sub(s, ap, "/additionalProperties"), depth+1); err != nil || !ok {
				return false, err
			}
		}
		if pn := s.v.get("propertyNames"); pn != nil {
			if ok, err := c.valid(&jvalue{kind: jString, str: k}, c.sub(s, pn, "/propertyNames"), depth+1); err != nil || !ok {
				return false, err
			}
		}
	}
	for _, dk := range []string{"dependentRequired", "dependencies", "dependentSchemas"} {
		d := s.v.get(dk)
		for j, name := range d.keysOrNil() {
			if v.get(name) == nil {
				continue
			}
			dv := d.vals[j]
			if dv.kind == jArray {
				for _, r := range dv.arr {
					if v.get(r.str) == nil {
						return false, nil
					}
				}
				continue
			}
			if ok, err := c.valid(v, c.sub(s, dv, "/"+dk+"/"+pointerToken(name)), depth+1); err != nil || !ok {
				return false, err
			}
		}
	}
	return true, nil
}
