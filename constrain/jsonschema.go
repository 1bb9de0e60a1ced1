package constrain

import (
	"fmt"
	"math"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WhitespaceMode selects the whitespace allowed between JSON tokens.
type WhitespaceMode int

const (
	// WhitespaceBounded allows runs of at most MaxWhitespace spaces, tabs
	// and newlines between tokens (the default).
	WhitespaceBounded WhitespaceMode = iota
	// WhitespaceCompact allows no whitespace at all: {"a":1,"b":[2,3]}.
	WhitespaceCompact
	// WhitespaceSpaced forces the single-line style models usually emit:
	// {"a": 1, "b": [2, 3]}.
	WhitespaceSpaced
)

// JSONOptions controls how a JSON Schema is compiled.
type JSONOptions struct {
	// Whitespace selects the whitespace policy (default WhitespaceBounded).
	Whitespace WhitespaceMode
	// MaxWhitespace bounds each whitespace run for WhitespaceBounded
	// (default 16), so a model cannot loop on whitespace forever.
	MaxWhitespace int
	// AdditionalProperties makes a missing "additionalProperties" allow
	// extra properties, as the JSON Schema specification says. By default a
	// missing keyword is treated as false: only declared properties are generated.
	AdditionalProperties bool
	// Lenient ignores unsupported validation keywords (uniqueItems, not,
	// multipleOf, ...) instead of failing; generated values may then violate them.
	Lenient bool
	// Dialect spells the values in another notation than JSON, as some
	// tool-call syntaxes write arguments (the zero value is JSON).
	Dialect JSONDialect
}

// JSONDialect changes how values are spelled; the zero value is JSON. The
// values keep JSON's structure ({…}, […], commas, colons, numbers) and
// whitespace policy.
type JSONDialect struct {
	// Quote, when set, delimits strings instead of '"': a string is
	// written raw between two Quotes, without escapes, and cannot contain
	// Quote. Length-bounded and pattern strings also avoid Quote's first
	// character.
	Quote string
	// BareKeys writes object keys without quotes: a declared property
	// name as it is (in Quotes, or JSON quotes without Quote, if it is not
	// an identifier), an undeclared key as an identifier [A-Za-z_][A-Za-z0-9_]*.
	BareKeys bool
	// Python spells true, false and null as True, False and None. With
	// JSON strings, the escape \/ (which Python does not decode) is not
	// generated, so every value is also a Python literal.
	Python bool
}

// DialectPython writes values as Python literals (JSON strings, True,
// False, None).
var DialectPython = JSONDialect{Python: true}

// DialectGemma writes values as Gemma's tool calls do:
// {key:<|"|>text<|"|>,n:3,ok:true}.
var DialectGemma = JSONDialect{Quote: `<|"|>`, BareKeys: true}

// JSONSchema compiles a JSON Schema into a constraint matching JSON values
// valid against it, with the default JSONOptions.
//
// Supported: type (including arrays of types), properties (generated in
// declaration order), required, additionalProperties, enum, const, items,
// prefixItems, minItems/maxItems, anyOf/oneOf (oneOf is treated as anyOf),
// allOf (merged), $ref to "#", "#/$defs/..." and "#/definitions/..." (also
// recursive), string pattern (search semantics unless anchored with ^...$),
// minLength/maxLength, format (date, time, date-time, duration, uuid, email,
// hostname, ipv4, uri; other formats are ignored), integer and number
// minimum/maximum/exclusiveMinimum/exclusiveMaximum (bounds are rounded
// inward to integers, bounded numbers are generated without exponent) and
// nullable. Annotations and unknown keywords are ignored; other validation
// keywords fail with ErrUnsupported unless JSONOptions.Lenient is set.
func JSONSchema(schema []byte) (*Grammar, error) {
	return JSONSchemaWith(schema, JSONOptions{})
}

// JSONSchemaWith is JSONSchema with options.
func JSONSchemaWith(schema []byte, opts JSONOptions) (*Grammar, error) {
	b := newBuilder("json-schema")
	root := b.rule("root")
	c, err := newSchemaCompiler(b, schema, opts, "")
	if err != nil {
		return nil, err
	}
	e, err := c.compileRoot()
	if err != nil {
		return nil, err
	}
	b.define(root, e)
	return compileGrammar(b, root)
}

// schemaCompiler lowers one JSON Schema document into builder rules.
type schemaCompiler struct {
	b      *builder
	root   *jvalue
	opts   JSONOptions
	prefix string
	refs   map[string]int
	any    int // rule id of "any JSON value", -1 until needed
	ws     *expr
	comma  *expr
	colon  *expr
	char   *expr
	// Dialect spellings.
	lTrue, lFalse, lNull string
}

func newSchemaCompiler(b *builder, schema []byte, opts JSONOptions, prefix string) (*schemaCompiler, error) {
	root, err := parseJSON(schema)
	if err != nil {
		return nil, &CompileError{Lang: "json-schema", Msg: "invalid JSON: " + err.Error(), Err: ErrSyntax}
	}
	if opts.MaxWhitespace <= 0 {
		opts.MaxWhitespace = 16
	}
	c := &schemaCompiler{b: b, root: root, opts: opts, prefix: prefix, refs: map[string]int{}, any: -1}
	switch opts.Whitespace {
	case WhitespaceCompact:
		c.ws, c.comma, c.colon = emptyExpr, lit(","), lit(":")
	case WhitespaceSpaced:
		c.ws, c.comma, c.colon = emptyExpr, lit(", "), lit(": ")
	default:
		c.ws = rep(alt(lit(" "), lit("\t"), lit("\n"), lit("\r")), 0, opts.MaxWhitespace)
		c.comma, c.colon = seq(c.ws, lit(","), c.ws), seq(c.ws, lit(":"), c.ws)
	}
	escapes := []*expr{byteRange('"', '"'), byteRange('\\', '\\'), byteRange('/', '/'), byteRange('b', 'b'),
		byteRange('f', 'f'), byteRange('n', 'n'), byteRange('r', 'r'), byteRange('t', 't'),
		seq(lit("u"), rep(alt(byteRange('0', '9'), byteRange('a', 'f'), byteRange('A', 'F')), 4, 4))}
	if opts.Dialect.Python {
		escapes = append(escapes[:2], escapes[3:]...) // no \/
	}
	c.char = alt(
		runeClass([]runeRange{{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}}),
		seq(lit(`\`), alt(escapes...)),
	)
	c.lTrue, c.lFalse, c.lNull = "true", "false", "null"
	if opts.Dialect.Python {
		c.lTrue, c.lFalse, c.lNull = "True", "False", "None"
	}
	if q := opts.Dialect.Quote; q != "" {
		if !utf8.ValidString(q) {
			return nil, &CompileError{Lang: "json-schema", Msg: fmt.Sprintf("dialect quote %q must be non-empty UTF-8", q), Err: ErrInvalid}
		}
		first, _ := utf8.DecodeRuneInString(q)
		c.char = runeClass(withoutRune(first))
	}
	return c, nil
}

func (c *schemaCompiler) compileRoot() (*expr, error) { return c.schema(c.root, "") }

func (c *schemaCompiler) errf(ptr string, sentinel error, format string, args ...any) error {
	return &CompileError{Lang: "json-schema", Pointer: ptr, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// Keyword classes.
var (
	ignoredKeywords = map[string]bool{
		"title": true, "description": true, "default": true, "examples": true, "$schema": true, "$id": true,
		"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "contentMediaType": true,
		"contentEncoding": true, "$anchor": true, "$defs": true, "definitions": true, "discriminator": true,
		"strict": true, "example": true, "x-order": true,
	}
	unsupportedKeywords = map[string]bool{
		"not": true, "if": true, "then": true, "else": true, "patternProperties": true, "dependentRequired": true,
		"dependentSchemas": true, "dependencies": true, "uniqueItems": true, "multipleOf": true, "minProperties": true,
		"maxProperties": true, "contains": true, "minContains": true, "maxContains": true, "propertyNames": true,
		"unevaluatedProperties": true, "unevaluatedItems": true, "$dynamicRef": true, "$recursiveRef": true,
	}
)

// schema compiles the schema s found at JSON pointer ptr.
func (c *schemaCompiler) schema(s *jvalue, ptr string) (*expr, error) {
	switch s.kind {
	case jBool:
		if s.b {
			return c.anyValue(), nil
		}
		return nothingExpr, nil
	case jObject:
	default:
		return nil, c.errf(ptr, ErrSyntax, "schema must be an object or a boolean")
	}
	for _, k := range s.keys {
		if unsupportedKeywords[k] && !c.opts.Lenient {
			if k == "uniqueItems" {
				if u := s.get(k); u.kind == jBool && !u.b {
					continue
				}
			}
			return nil, c.errf(ptr+"/"+pointerToken(k), ErrUnsupported, "keyword %q is not supported", k)
		}
	}
	if r := s.get("$ref"); r != nil {
		if r.kind != jString {
			return nil, c.errf(ptr+"/$ref", ErrSyntax, "$ref must be a string")
		}
		if rest := withoutKeys(s, "$ref"); hasValidation(rest) {
			merged, err := c.mergeAll([]*jvalue{rest, s.get("$ref")}, ptr)
			if err != nil {
				return nil, err
			}
			return c.schema(merged, ptr)
		}
		return c.ref(r.str, ptr+"/$ref")
	}
	if a := s.get("allOf"); a != nil {
		if a.kind != jArray || len(a.arr) == 0 {
			return nil, c.errf(ptr+"/allOf", ErrSyntax, "allOf must be a non-empty array")
		}
		parts := append([]*jvalue{withoutKeys(s, "allOf")}, a.arr...)
		merged, err := c.mergeAll(parts, ptr)
		if err != nil {
			return nil, err
		}
		return c.schema(merged, ptr)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		a := s.get(kw)
		if a == nil {
			continue
		}
		if a.kind != jArray || len(a.arr) == 0 {
			return nil, c.errf(ptr+"/"+kw, ErrSyntax, "%s must be a non-empty array", kw)
		}
		rest := withoutKeys(s, kw)
		var alts []*expr
		for i, sub := range a.arr {
			p := fmt.Sprintf("%s/%s/%d", ptr, kw, i)
			if hasValidation(rest) {
				m, err := c.mergeAll([]*jvalue{rest, sub}, p)
				if err != nil {
					return nil, err
				}
				sub = m
			}
			e, err := c.schema(sub, p)
			if err != nil {
				return nil, err
			}
			alts = append(alts, e)
		}
		return alt(alts...), nil
	}
	if v := s.get("const"); v != nil {
		return c.literal(v), nil
	}
	if v := s.get("enum"); v != nil {
		if v.kind != jArray || len(v.arr) == 0 {
			return nil, c.errf(ptr+"/enum", ErrSyntax, "enum must be a non-empty array")
		}
		alts := make([]*expr, len(v.arr))
		for i, x := range v.arr {
			alts[i] = c.literal(x)
		}
		return alt(alts...), nil
	}
	types, err := c.types(s, ptr)
	if err != nil {
		return nil, err
	}
	if types == nil {
		return c.anyValue(), nil
	}
	var alts []*expr
	for _, t := range types {
		var e *expr
		var err error
		switch t {
		case "object":
			e, err = c.object(s, ptr)
		case "array":
			e, err = c.array(s, ptr)
		case "string":
			e, err = c.str(s, ptr)
		case "integer", "number":
			e, err = c.number(s, ptr, t == "integer")
		case "boolean":
			e = alt(lit(c.lTrue), lit(c.lFalse))
		case "null":
			e = lit(c.lNull)
		default:
			return nil, c.errf(ptr+"/type", ErrSyntax, "unknown type %q", t)
		}
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	if n := s.get("nullable"); n != nil && n.kind == jBool && n.b {
		alts = append(alts, lit(c.lNull))
	}
	return alt(alts...), nil
}

// types returns the JSON types s allows, inferring them from keywords when
// "type" is absent; nil means any value.
func (c *schemaCompiler) types(s *jvalue, ptr string) ([]string, error) {
	t := s.get("type")
	if t != nil {
		switch t.kind {
		case jString:
			return []string{t.str}, nil
		case jArray:
			var out []string
			for i, x := range t.arr {
				if x.kind != jString {
					return nil, c.errf(fmt.Sprintf("%s/type/%d", ptr, i), ErrSyntax, "type must be a string")
				}
				out = append(out, x.str)
			}
			if len(out) == 0 {
				return nil, c.errf(ptr+"/type", ErrSyntax, "type array is empty")
			}
			return out, nil
		}
		return nil, c.errf(ptr+"/type", ErrSyntax, "type must be a string or an array of strings")
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if s.get(k) != nil {
				return true
			}
		}
		return false
	}
	var out []string
	if has("properties", "required", "additionalProperties") {
		out = append(out, "object")
	}
	if has("items", "prefixItems", "minItems", "maxItems") {
		out = append(out, "array")
	}
	if has("pattern", "minLength", "maxLength", "format") {
		out = append(out, "string")
	}
	if has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") {
		out = append(out, "number")
	}
	return out, nil
}

// hasValidation reports whether s has keywords other than annotations.
func hasValidation(s *jvalue) bool {
	for _, k := range s.keys {
		if !ignoredKeywords[k] {
			return true
		}
	}
	return false
}

func withoutKeys(s *jvalue, drop ...string) *jvalue {
	out := &jvalue{kind: jObject}
	for i, k := range s.keys {
		skip := false
		for _, d := range drop {
			skip = skip || k == d
		}
		if !skip {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, s.vals[i])
		}
	}
	return out
}

// mergeAll merges schemas (allOf semantics) for the common cases: properties
// and required are combined, other keywords must not conflict. Elements may
// be $ref strings (jString) or schemas.
func (c *schemaCompiler) mergeAll(parts []*jvalue, ptr string) (*jvalue, error) {
	out := &jvalue{kind: jObject}
	var props *jvalue
	var required *jvalue
	var add func(p *jvalue, depth int) error
	add = func(p *jvalue, depth int) error {
		if depth > 32 {
			return c.errf(ptr, ErrUnsupported, "allOf/$ref nesting too deep to merge")
		}
		if p.kind == jString { // a $ref
			t, err := c.resolve(p.str, ptr)
			if err != nil {
				return err
			}
			return add(t, depth+1)
		}
		if p.kind == jBool {
			if !p.b {
				return c.errf(ptr, ErrInvalid, "allOf contains false")
			}
			return nil
		}
		if p.kind != jObject {
			return c.errf(ptr, ErrSyntax, "schema must be an object or a boolean")
		}
		for i, k := range p.keys {
			v := p.vals[i]
			switch k {
			case "$ref":
				if v.kind == jString {
					if err := add(v, depth+1); err != nil {
						return err
					}
				}
			case "allOf":
				if v.kind == jArray {
					for _, x := range v.arr {
						if err := add(x, depth+1); err != nil {
							return err
						}
					}
				}
			case "properties":
				if props == nil {
					props = &jvalue{kind: jObject}
				}
				for j, pk := range v.keys {
					if existing := props.get(pk); existing == nil {
						props.keys = append(props.keys, pk)
						props.vals = append(props.vals, v.vals[j])
					}
				}
			case "required":
				if required == nil {
					required = &jvalue{kind: jArray}
				}
				required.arr = append(required.arr, v.arr...)
			default:
				if ignoredKeywords[k] {
					continue
				}
				if old := out.get(k); old != nil {
					var a, b strings.Builder
					old.encode(&a)
					v.encode(&b)
					if a.String() != b.String() {
						return c.errf(ptr, ErrUnsupported, "cannot merge conflicting %q keywords in allOf", k)
					}
					continue
				}
				out.keys = append(out.keys, k)
				out.vals = append(out.vals, v)
			}
		}
		return nil
	}
	for _, p := range parts {
		if err := add(p, 0); err != nil {
			return nil, err
		}
	}
	if props != nil {
		out.keys = append(out.keys, "properties")
		out.vals = append(out.vals, props)
	}
	if required != nil {
		out.keys = append(out.keys, "required")
		out.vals = append(out.vals, required)
	}
	return out, nil
}

// resolve finds the schema a local $ref points to.
func (c *schemaCompiler) resolve(ref, ptr string) (*jvalue, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, c.errf(ptr, ErrUnsupported, "only local $ref (#...) is supported, got %q", ref)
	}
	cur := c.root
	path := strings.TrimPrefix(ref, "#")
	if path == "" {
		return cur, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, c.errf(ptr, ErrUnsupported, "$ref %q: anchors are not supported", ref)
	}
	for _, tok := range strings.Split(path[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.kind {
		case jObject:
			cur = cur.get(tok)
		case jArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.arr) {
				cur = nil
			} else {
				cur = cur.arr[i]
			}
		default:
			cur = nil
		}
		if cur == nil {
			return nil, c.errf(ptr, ErrInvalid, "$ref %q does not resolve", ref)
		}
	}
	return cur, nil
}

// ref compiles a $ref into a rule reference (rules allow recursion).
func (c *schemaCompiler) ref(r, ptr string) (*expr, error) {
	if id, ok := c.refs[r]; ok {
		return ref(id), nil
	}
	target, err := c.resolve(r, ptr)
	if err != nil {
		return nil, err
	}
	id := c.b.fresh(c.prefix + "ref:" + r)
	c.refs[r] = id
	e, err := c.schema(target, strings.TrimPrefix(r, "#"))
	if err != nil {
		return nil, err
	}
	c.b.define(id, e)
	return ref(id), nil
}

// literal matches the compact encoding of a JSON value.
func (c *schemaCompiler) literal(v *jvalue) *expr {
	switch v.kind {
	case jArray:
		parts := []*expr{lit("["), c.ws}
		for i, x := range v.arr {
			if i > 0 {
				parts = append(parts, c.comma)
			}
			parts = append(parts, c.literal(x))
		}
		return seq(append(parts, c.ws, lit("]"))...)
	case jObject:
		parts := []*expr{lit("{"), c.ws}
		for i, k := range v.keys {
			if i > 0 {
				parts = append(parts, c.comma)
			}
			parts = append(parts, c.key(k), c.colon, c.literal(v.vals[i]))
		}
		return seq(append(parts, c.ws, lit("}"))...)
	case jString:
		return c.quoted(v.str)
	case jBool:
		if v.b {
			return lit(c.lTrue)
		}
		return lit(c.lFalse)
	case jNull:
		return lit(c.lNull)
	}
	var sb strings.Builder
	v.encode(&sb)
	return lit(sb.String())
}

// quoted matches the string s in the dialect's spelling (nothing if the
// dialect cannot write it).
func (c *schemaCompiler) quoted(s string) *expr {
	if q := c.opts.Dialect.Quote; q != "" {
		if strings.Index(s+q, q) != len(s) { // the parser would end the string early
			return nothingExpr
		}
		return lit(q + s + q)
	}
	return lit(quoteJSON(s))
}

// key matches the object key k in the dialect's spelling.
func (c *schemaCompiler) key(k string) *expr {
	if c.opts.Dialect.BareKeys && isIdentifier(k) {
		return lit(k)
	}
	return c.quoted(k)
}

// anyString matches any string in the dialect's spelling.
func (c *schemaCompiler) anyString() *expr {
	if q := c.opts.Dialect.Quote; q != "" {
		return seq(lit(q), textAvoiding([]string{q}), lit(q))
	}
	return seq(lit(`"`), star(c.char), lit(`"`))
}

// anyKey matches an undeclared object key in the dialect's spelling.
func (c *schemaCompiler) anyKey() *expr {
	if c.opts.Dialect.BareKeys {
		return seq(runeClass([]runeRange{{'A', 'Z'}, {'_', '_'}, {'a', 'z'}}),
			star(runeClass([]runeRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}})))
	}
	return c.anyString()
}

// isIdentifier reports whether s is [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return s != ""
}

// withoutRune is every code point but r, as rune ranges.
func withoutRune(r rune) []runeRange {
	var out []runeRange
	if r > 0 {
		out = append(out, runeRange{0, r - 1})
	}
	if r < 0x10FFFF {
		out = append(out, runeRange{r + 1, 0x10FFFF})
	}
	return out
}

// withoutByte rewrites an expression over string content so that it never
// matches the byte x (content of a dialect string that must avoid its quote).
func withoutByte(e *expr, x byte, memo map[*expr]*expr) *expr {
	if r, ok := memo[e]; ok {
		return r
	}
	var out *expr
	switch e.op {
	case opBytes:
		switch {
		case x < e.lo || x > e.hi:
			out = e
		case e.lo == e.hi:
			out = nothingExpr
		case x == e.lo:
			out = byteRange(x+1, e.hi)
		case x == e.hi:
			out = byteRange(e.lo, x-1)
		default:
			out = alt(byteRange(e.lo, x-1), byteRange(x+1, e.hi))
		}
	case opSeq, opAlt, opRepeat:
		subs := make([]*expr, len(e.subs))
		for i, s := range e.subs {
			subs[i] = withoutByte(s, x, memo)
		}
		cp := *e
		cp.subs = subs
		out = &cp
	default:
		out = e
	}
	memo[e] = out
	return out
}

// anyValue is a reference to the rule matching any JSON value.
func (c *schemaCompiler) anyValue() *expr {
	if c.any >= 0 {
		return ref(c.any)
	}
	c.any = c.b.fresh(c.prefix + "any")
	value := ref(c.any)
	str, key := c.anyString(), c.anyKey()
	obj := seq(lit("{"), c.ws, opt(seq(key, c.colon, value, star(seq(c.comma, key, c.colon, value)))), c.ws, lit("}"))
	arr := seq(lit("["), c.ws, opt(seq(value, star(seq(c.comma, value)))), c.ws, lit("]"))
	c.b.define(c.any, alt(obj, arr, str, jsonNumber(), lit(c.lTrue), lit(c.lFalse), lit(c.lNull)))
	return value
}

// maxFracDigits bounds the fraction digits of generated numbers.
const maxFracDigits = 20

// jsonNumber matches JSON numbers with at most maxIntDigits integer digits,
// maxFracDigits fraction digits and a two-digit exponent, so every value
// decodes into a float64 and generation cannot go on forever.
func jsonNumber() *expr {
	return seq(opt(lit("-")), natRange(0, -1), opt(seq(lit("."), rep(digit(), 1, maxFracDigits))),
		opt(seq(alt(lit("e"), lit("E")), opt(alt(lit("+"), lit("-"))), rep(digit(), 1, 2))))
}

// intKeyword reads a non-negative integer keyword.
func (c *schemaCompiler) intKeyword(s *jvalue, key, ptr string) (int, bool, error) {
	v := s.get(key)
	if v == nil {
		return 0, false, nil
	}
	if v.kind != jNumber {
		return 0, false, c.errf(ptr+"/"+key, ErrSyntax, "%s must be a number", key)
	}
	f, err := v.num.Float64()
	if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<20 {
		return 0, false, c.errf(ptr+"/"+key, ErrSyntax, "%s must be a non-negative integer (at most %d), got %s", key, 1<<20, v.num)
	}
	return int(f), true, nil
}

func (c *schemaCompiler) str(s *jvalue, ptr string) (*expr, error) {
	minL, _, err := c.intKeyword(s, "minLength", ptr)
	if err != nil {
		return nil, err
	}
	maxL, hasMax, err := c.intKeyword(s, "maxLength", ptr)
	if err != nil {
		return nil, err
	}
	if !hasMax {
		maxL = -1
	}
	if hasMax && maxL < minL {
		return nil, c.errf(ptr+"/maxLength", ErrInvalid, "maxLength %d is below minLength %d", maxL, minL)
	}
	q := c.opts.Dialect.Quote
	content := rep(c.char, minL, maxL)
	if q != "" && minL == 0 && !hasMax {
		content = textAvoiding([]string{q})
	}
	if p := s.get("pattern"); p != nil {
		if p.kind != jString {
			return nil, c.errf(ptr+"/pattern", ErrSyntax, "pattern must be a string")
		}
		if minL > 0 || hasMax {
			return nil, c.errf(ptr+"/pattern", ErrUnsupported, "pattern combined with minLength/maxLength is not supported")
		}
		e, err := patternExpr(p.str)
		if err != nil {
			if ce, ok := err.(*CompileError); ok {
				ce.Lang, ce.Pointer = "json-schema", ptr+"/pattern"
			}
			return nil, err
		}
		if q != "" {
			content = withoutByte(e, q[0], map[*expr]*expr{})
		} else {
			content = escapeJSON(e, map[*expr]*expr{})
		}
	} else if f := s.get("format"); f != nil && f.kind == jString {
		if re, ok := formatRegexes[f.str]; ok {
			if minL > 0 || hasMax {
				return nil, c.errf(ptr+"/format", ErrUnsupported, "format combined with minLength/maxLength is not supported")
			}
			e, err := regexExpr(re, "json-schema")
			if err != nil {
				return nil, err
			}
			content = e
			if q != "" {
				content = withoutByte(e, q[0], map[*expr]*expr{})
			}
		}
	}
	if q != "" {
		return seq(lit(q), content, lit(q)), nil
	}
	return seq(lit(`"`), content, lit(`"`)), nil
}

// patternExpr compiles a JSON Schema pattern: an unanchored search unless it
// starts with ^ / ends with $.
func patternExpr(src string) (*expr, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, regexError(src, "regex", err)
	}
	e, err := regexToExpr(re, src, "regex")
	if err != nil {
		return nil, err
	}
	startAnchored, endAnchored := false, false
	isBegin := func(r *syntax.Regexp) bool { return r.Op == syntax.OpBeginText || r.Op == syntax.OpBeginLine }
	isEnd := func(r *syntax.Regexp) bool { return r.Op == syntax.OpEndText || r.Op == syntax.OpEndLine }
	switch {
	case re.Op == syntax.OpConcat && len(re.Sub) > 0:
		startAnchored, endAnchored = isBegin(re.Sub[0]), isEnd(re.Sub[len(re.Sub)-1])
	default:
		startAnchored, endAnchored = isBegin(re), isEnd(re)
	}
	if !startAnchored {
		e = seq(star(anyChar()), e)
	}
	if !endAnchored {
		e = seq(e, star(anyChar()))
	}
	return e, nil
}

// escapeJSON rewrites an expression over decoded string content into one over
// its JSON encoding: '"', '\' and control characters become escapes.
func escapeJSON(e *expr, memo map[*expr]*expr) *expr {
	if r, ok := memo[e]; ok {
		return r
	}
	var out *expr
	switch e.op {
	case opBytes:
		if e.lo >= 0x20 && (e.lo > '"' || e.hi < '"') && (e.lo > '\\' || e.hi < '\\') {
			out = e
			break
		}
		var alts []*expr
		start := -1
		for b := int(e.lo); b <= int(e.hi)+1; b++ {
			special := b <= int(e.hi) && (b < 0x20 || b == '"' || b == '\\')
			if b <= int(e.hi) && !special {
				if start < 0 {
					start = b
				}
				continue
			}
			if start >= 0 {
				alts = append(alts, byteRange(byte(start), byte(b-1)))
				start = -1
			}
			if special {
				alts = append(alts, lit(escapeByte(byte(b))))
			}
		}
		out = alt(alts...)
	case opSeq, opAlt, opRepeat:
		subs := make([]*expr, len(e.subs))
		for i, s := range e.subs {
			subs[i] = escapeJSON(s, memo)
		}
		cp := *e
		cp.subs = subs
		out = &cp
	default:
		out = e
	}
	memo[e] = out
	return out
}

func escapeByte(b byte) string {
	switch b {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	return fmt.Sprintf(`\u%04x`, b)
}

func (c *schemaCompiler) number(s *jvalue, ptr string, integer bool) (*expr, error) {
	var lo, hi *int64
	bound := func(key string, lower, exclusive bool) error {
		v := s.get(key)
		if v == nil {
			return nil
		}
		if v.kind == jBool { // draft-04 boolean exclusive flags
			return nil
		}
		if v.kind != jNumber {
			return c.errf(ptr+"/"+key, ErrSyntax, "%s must be a number", key)
		}
		f, err := v.num.Float64()
		if err != nil || math.IsInf(f, 0) || math.Abs(f) > 1e18 {
			return c.errf(ptr+"/"+key, ErrUnsupported, "%s %s is out of the supported range", key, v.num)
		}
		if !exclusive {
			if e := s.get("exclusive" + strings.ToUpper(key[:1]) + key[1:]); e != nil && e.kind == jBool && e.b {
				exclusive = true
			}
		}
		var x int64
		switch {
		case lower && exclusive:
			x = int64(math.Floor(f)) + 1
		case lower:
			x = int64(math.Ceil(f))
		case exclusive:
			x = int64(math.Ceil(f)) - 1
		default:
			x = int64(math.Floor(f))
		}
		if lower {
			if lo == nil || x > *lo {
				lo = &x
			}
		} else if hi == nil || x < *hi {
			hi = &x
		}
		return nil
	}
	for _, b := range []struct {
		key          string
		lower, exclu bool
	}{{"minimum", true, false}, {"exclusiveMinimum", true, true}, {"maximum", false, false}, {"exclusiveMaximum", false, true}} {
		if err := bound(b.key, b.lower, b.exclu); err != nil {
			return nil, err
		}
	}
	if lo != nil && hi != nil && *lo > *hi {
		return nil, c.errf(ptr, ErrUnsupported, "no integer lies in [%d, %d]; non-integer ranges are not supported", *lo, *hi)
	}
	if integer {
		if lo == nil && hi == nil {
			return seq(opt(lit("-")), natRange(0, -1)), nil
		}
		return intRange(lo, hi), nil
	}
	if lo == nil && hi == nil {
		return jsonNumber(), nil
	}
	return numRange(lo, hi), nil
}

func (c *schemaCompiler) array(s *jvalue, ptr string) (*expr, error) {
	minI, _, err := c.intKeyword(s, "minItems", ptr)
	if err != nil {
		return nil, err
	}
	maxI, hasMax, err := c.intKeyword(s, "maxItems", ptr)
	if err != nil {
		return nil, err
	}
	if !hasMax {
		maxI = -1
	}
	if hasMax && maxI < minI {
		return nil, c.errf(ptr+"/maxItems", ErrInvalid, "maxItems %d is below minItems %d", maxI, minI)
	}
	var prefix []*expr
	if p := s.get("prefixItems"); p != nil {
		if p.kind != jArray {
			return nil, c.errf(ptr+"/prefixItems", ErrSyntax, "prefixItems must be an array")
		}
		for i, x := range p.arr {
			e, err := c.schema(x, fmt.Sprintf("%s/prefixItems/%d", ptr, i))
			if err != nil {
				return nil, err
			}
			prefix = append(prefix, e)
		}
	}
	item := c.anyValue()
	if it := s.get("items"); it != nil {
		if it.kind == jArray { // draft-04 tuple form
			return nil, c.errf(ptr+"/items", ErrUnsupported, "items as an array is not supported; use prefixItems")
		}
		e, err := c.schema(it, ptr+"/items")
		if err != nil {
			return nil, err
		}
		item = e
	}
	k := len(prefix)
	// rest: items after the prefix, each preceded by a comma when k > 0.
	restMin, restMax := max(minI-k, 0), -1
	if hasMax {
		restMax = maxI - k
		if restMax < 0 {
			restMax = 0
		}
	}
	var rest *expr
	if k > 0 {
		rest = rep(seq(c.comma, item), restMin, restMax)
	} else {
		first := seq(item, rep(seq(c.comma, item), max(restMin-1, 0), max(restMax-1, -1)))
		if restMax == 0 {
			first = nothingExpr
		}
		if restMin == 0 {
			first = opt(first)
		}
		rest = first
	}
	// Prefix items, the i-th optional once i >= minItems and capped by maxItems.
	body := rest
	for i := k - 1; i >= 0; i-- {
		if hasMax && i >= maxI {
			body = emptyExpr
			continue
		}
		sep := emptyExpr
		if i > 0 {
			sep = c.comma
		}
		e := seq(sep, prefix[i], body)
		if i >= minI {
			e = opt(e)
		}
		body = e
	}
	return seq(lit("["), c.ws, body, c.ws, lit("]")), nil
}

func (c *schemaCompiler) object(s *jvalue, ptr string) (*expr, error) {
	type prop struct {
		name     string
		schema   *jvalue
		ptr      string
		required bool
	}
	var props []prop
	index := map[string]int{}
	if p := s.get("properties"); p != nil {
		if p.kind != jObject {
			return nil, c.errf(ptr+"/properties", ErrSyntax, "properties must be an object")
		}
		for i, k := range p.keys {
			index[k] = len(props)
			props = append(props, prop{name: k, schema: p.vals[i], ptr: ptr + "/properties/" + pointerToken(k)})
		}
	}
	if r := s.get("required"); r != nil {
		if r.kind != jArray {
			return nil, c.errf(ptr+"/required", ErrSyntax, "required must be an array of strings")
		}
		for i, x := range r.arr {
			if x.kind != jString {
				return nil, c.errf(fmt.Sprintf("%s/required/%d", ptr, i), ErrSyntax, "required must be an array of strings")
			}
			j, ok := index[x.str]
			if !ok {
				index[x.str] = len(props)
				j = len(props)
				props = append(props, prop{name: x.str, schema: &jvalue{kind: jBool, b: true}, ptr: fmt.Sprintf("%s/required/%d", ptr, i)})
			}
			props[j].required = true
		}
	}
	var extra *expr
	ap := s.get("additionalProperties")
	switch {
	case ap == nil && (c.opts.AdditionalProperties || len(props) == 0):
		extra = c.anyValue()
	case ap == nil:
	case ap.kind == jBool && !ap.b:
	default:
		e, err := c.schema(ap, ptr+"/additionalProperties")
		if err != nil {
			return nil, err
		}
		extra = e
	}
	// Graph nodes: 2*i + c, i = next property, c = 1 once something was written.
	n := len(props)
	g := &graphExpr{n: 2*(n+1) + 1, start: 0, end: 2 * (n + 1)}
	for i, p := range props {
		val, err := c.schema(p.schema, p.ptr)
		if err != nil {
			return nil, err
		}
		kv := seq(c.key(p.name), c.colon, val)
		g.edges = append(g.edges,
			graphEdge{from: 2 * i, to: 2*(i+1) + 1, e: kv},
			graphEdge{from: 2*i + 1, to: 2*(i+1) + 1, e: seq(c.comma, kv)})
		if !p.required {
			g.edges = append(g.edges, graphEdge{from: 2 * i, to: 2 * (i + 1)}, graphEdge{from: 2*i + 1, to: 2*(i+1) + 1})
		}
	}
	last0, last1 := 2*n, 2*n+1
	if extra != nil {
		kv := seq(c.anyKey(), c.colon, extra)
		g.edges = append(g.edges,
			graphEdge{from: last0, to: last1, e: kv},
			graphEdge{from: last1, to: last1, e: seq(c.comma, kv)})
	}
	g.edges = append(g.edges, graphEdge{from: last0, to: g.end}, graphEdge{from: last1, to: g.end})
	return seq(lit("{"), c.ws, &expr{op: opGraph, graph: g}, c.ws, lit("}")), nil
}
