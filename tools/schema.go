package tools

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// kind is the JSON shape a schema node accepts.
type kind uint8

const (
	kindAny kind = iota
	kindBool
	kindInt
	kindUint
	kindFloat
	kindString
	kindBytes
	kindTime
	kindArray
	kindObject
	kindMap
)

// node is the compiled schema of one Go type. It both renders to JSON Schema
// and validates decoded JSON values.
type node struct {
	kind        kind
	bits        int // size of integer and float kinds
	description string
	enum        []any // string, int64, uint64 or float64 values
	nullable    bool  // null is accepted (pointer, slice, map, interface)
	quoted      bool  // `json:",string"`: a number or bool carried as a string
	items       *node // array element
	length      int   // fixed array length, or -1 for a slice
	props       []*prop
	values      *node // map values
	intKeys     bool  // map keys are integers
}

// prop is one property of an object node, in struct field order.
type prop struct {
	name     string
	required bool
	node     *node
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// builder compiles Go types into schema nodes.
type builder struct {
	inProgress map[reflect.Type]bool // struct types being built, to refuse recursion
}

// buildSchema compiles the schema of t.
func buildSchema(t reflect.Type) (*node, error) {
	b := &builder{inProgress: map[reflect.Type]bool{}}
	return b.build(t)
}

func (b *builder) build(t reflect.Type) (*node, error) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		nullable = true
		t = t.Elem()
	}
	n, err := b.buildValue(t)
	if err != nil {
		return nil, err
	}
	n.nullable = n.nullable || nullable
	return n, nil
}

func (b *builder) buildValue(t reflect.Type) (*node, error) {
	switch {
	case t == timeType:
		return &node{kind: kindTime}, nil
	case t == rawMessageType:
		return &node{kind: kindAny, nullable: true}, nil
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		// The type decodes itself; its own UnmarshalJSON validates.
		return &node{kind: kindAny, nullable: true}, nil
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return &node{kind: kindString}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &node{kind: kindBool}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &node{kind: kindInt, bits: t.Bits()}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &node{kind: kindUint, bits: t.Bits()}, nil
	case reflect.Float32, reflect.Float64:
		return &node{kind: kindFloat, bits: t.Bits()}, nil
	case reflect.String:
		return &node{kind: kindString}, nil
	case reflect.Interface:
		return &node{kind: kindAny, nullable: true}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(textUnmarshalerType) {
			return &node{kind: kindBytes, nullable: true}, nil
		}
		items, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		return &node{kind: kindArray, items: items, length: -1, nullable: true}, nil
	case reflect.Array:
		items, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		return &node{kind: kindArray, items: items, length: t.Len()}, nil
	case reflect.Map:
		n := &node{kind: kindMap, nullable: true}
		switch k := t.Key(); {
		case k.Kind() == reflect.String:
		case reflect.PointerTo(k).Implements(textUnmarshalerType):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
			n.intKeys = true
		default:
			return nil, fmt.Errorf("unsupported map key type %s", k)
		}
		values, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		n.values = values
		return n, nil
	case reflect.Struct:
		return b.buildStruct(t)
	default:
		return nil, fmt.Errorf("unsupported type %s", t)
	}
}

// field is a struct field as encoding/json sees it, after inlining embedded
// structs.
type field struct {
	name     string
	depth    int
	tagged   bool
	required bool
	quoted   bool
	sf       reflect.StructField
}

func (b *builder) buildStruct(t reflect.Type) (*node, error) {
	if b.inProgress[t] {
		return nil, fmt.Errorf("recursive type %s is not supported", t)
	}
	b.inProgress[t] = true
	defer delete(b.inProgress, t)

	fields, err := collectFields(t, 0, map[reflect.Type]bool{})
	if err != nil {
		return nil, err
	}
	fields, err = dominantFields(t, fields)
	if err != nil {
		return nil, err
	}
	n := &node{kind: kindObject}
	for _, f := range fields {
		fn, err := b.build(f.sf.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", t, f.sf.Name, err)
		}
		if err := applyTags(fn, f); err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", t, f.sf.Name, err)
		}
		n.props = append(n.props, &prop{name: f.name, required: f.required, node: fn})
	}
	return n, nil
}

// collectFields lists the JSON-visible fields of t in declaration order,
// inlining untagged embedded structs as encoding/json does.
func collectFields(t reflect.Type, depth int, seen map[reflect.Type]bool) ([]field, error) {
	if seen[t] {
		return nil, nil
	}
	seen[t] = true
	defer delete(seen, t)
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
			if name == "" && et.Kind() == reflect.Struct {
				inner, err := collectFields(et, depth+1, seen)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: sf.Name, depth: depth, sf: sf, required: true}
		if name != "" {
			f.name, f.tagged = name, true
		}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				f.required = false
			case "string":
				switch ft.Kind() {
				case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
					reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
					reflect.Float32, reflect.Float64:
					f.quoted = true
				}
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// dominantFields resolves duplicate names: the shallowest field wins; two
// fields at the same depth are ambiguous unless exactly one is tagged.
func dominantFields(t reflect.Type, fields []field) ([]field, error) {
	best := map[string]int{} // name → index of the winning field
	for i, f := range fields {
		j, ok := best[f.name]
		if !ok {
			best[f.name] = i
			continue
		}
		g := fields[j]
		switch {
		case f.depth < g.depth, f.depth == g.depth && f.tagged && !g.tagged:
			best[f.name] = i
		case f.depth == g.depth && f.tagged == g.tagged:
			return nil, fmt.Errorf("struct %s: ambiguous JSON field name %q", t, f.name)
		}
	}
	var out []field
	for i, f := range fields {
		if best[f.name] == i {
			out = append(out, f)
		}
	}
	return out, nil
}

// applyTags applies the description and enum tags and the ",string" option
// of a struct field to its node.
func applyTags(n *node, f field) error {
	n.description = f.sf.Tag.Get("description")
	if f.quoted {
		n.quoted = true
	}
	tag, ok := f.sf.Tag.Lookup("enum")
	if !ok {
		return nil
	}
	target := n
	if n.kind == kindArray {
		target = n.items
	}
	values, err := parseEnum(target, tag)
	if err != nil {
		return err
	}
	target.enum = values
	return nil
}

// parseEnum parses a comma-separated enum tag for the kind of n.
func parseEnum(n *node, tag string) ([]any, error) {
	var out []any
	for s := range strings.SplitSeq(tag, ",") {
		s = strings.TrimSpace(s)
		switch n.kind {
		case kindString:
			out = append(out, s)
		case kindInt:
			v, err := strconv.ParseInt(s, 10, n.bits)
			if err != nil {
				return nil, fmt.Errorf("enum value %q: not an integer of %d bits", s, n.bits)
			}
			out = append(out, v)
		case kindUint:
			v, err := strconv.ParseUint(s, 10, n.bits)
			if err != nil {
				return nil, fmt.Errorf("enum value %q: not an unsigned integer of %d bits", s, n.bits)
			}
			out = append(out, v)
		case kindFloat:
			v, err := strconv.ParseFloat(s, n.bits)
			if err != nil {
				return nil, fmt.Errorf("enum value %q: not a number", s)
			}
			out = append(out, v)
		default:
			return nil, fmt.Errorf("enum tag is only allowed on strings, numbers and slices of them")
		}
	}
	return out, nil
}
