package constrain

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
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

// ErrTooLarge reports a schema whose compilation exceeds its time or size
// budget (JSONOptions.MaxCompileTime, JSONOptions.MaxRules). It wraps ErrInvalid.
var ErrTooLarge = fmt.Errorf("schema too large: %w", ErrInvalid)

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
	// Spec follows the specification where the defaults favour generation:
	// a missing "additionalProperties" allows extra properties, keywords
	// constrain only values of their own type (without "type",
	// {"minLength": 2} also accepts 7), "format" is an annotation, integral
	// values may carry a zero fraction (2.0 is an integer) and const/enum
	// strings may use any escape (\u00e9 for é). The defaults accept a subset:
	// integers without fraction and literals as Go encodes them, so what a
	// model writes decodes into Go types and reads back as the same text.
	Spec bool
	// Lenient ignores keywords that cannot be compiled exactly (uniqueItems,
	// a general not, ...) instead of failing; generated values may then
	// violate them. It is never the default.
	Lenient bool
	// PropertyOrder makes objects list their declared properties in
	// declaration order (generation then follows the schema's order). By
	// default declared properties may come in any order, as JSON Schema
	// says, for objects with at most MaxAnyOrder declared properties; larger
	// objects fall back to declaration order.
	PropertyOrder bool
	// MaxAnyOrder is the largest number of declared properties accepted in
	// any order (default 8; the automaton tracks which were written, 2^n states).
	MaxAnyOrder int
	// Draft is the JSON Schema draft used when "$schema" does not say: 7
	// (drafts 4, 6 and 7 spellings: array-form items, additionalItems,
	// dependencies, $ref overriding its siblings) or 2020 (2019-09 and
	// 2020-12, the default).
	Draft int
	// Resolver fetches remote schemas referenced by $ref (absolute URIs
	// without fragment). Without it only references inside the document
	// (and its $id resources) resolve.
	Resolver func(uri string) ([]byte, error)
	// MaxCompileTime bounds the time spent lowering the schema (default 1 s).
	MaxCompileTime time.Duration
	// MaxRules bounds the number of grammar rules a schema lowers into
	// (default 20000), so schemas that merge recursively cannot grow without bound.
	MaxRules int
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
// The constraint is sound: every accepted value validates. Keywords that
// cannot be compiled exactly fail with an error wrapping ErrUnsupported
// that names the keyword's JSON pointer (unless JSONOptions.Lenient).
// Supported: type, enum and const (compared by value: 1.0 = 1, "\u00e9" =
// "é"), properties (in any order), patternProperties, additionalProperties,
// unevaluatedProperties (statically), required, dependentRequired,
// dependentSchemas, dependencies, min/maxProperties, propertyNames (as a
// pattern, length or enum of names), items, prefixItems, additionalItems,
// unevaluatedItems, contains with min/maxContains, min/maxItems,
// uniqueItems (up to one item), allOf, anyOf, oneOf (branches that cannot
// overlap, or whose overlap can be excluded), not and if/then/else (where
// the negated schema is a type, a number range or a literal set), $ref
// ("#...", $defs, $id, $anchor, $dynamicRef resolved statically, percent
// encoded pointers, remote documents through JSONOptions.Resolver),
// strings (minLength/maxLength in code points, pattern, format date, time,
// date-time, duration, uuid, email, hostname, ipv4, uri), numbers
// (minimum/maximum/exclusive bounds exact on decimals, multipleOf; bounded
// numbers are generated without exponent) and nullable. Annotations and
// unknown keywords are ignored.
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
	g, err := compileGrammar(b, root)
	if err != nil && c.emptyWhy != nil && errors.Is(err, ErrInvalid) && strings.Contains(err.Error(), "matches no string") {
		return nil, c.emptyWhy // say which keywords exclude everything
	}
	return g, err
}

// schemaCompiler lowers one JSON Schema document into builder rules.
type schemaCompiler struct {
	b         *builder
	root      *jvalue    // the document being compiled
	doc       *schemaDoc // and its context
	idx       schemaIndex
	opts      JSONOptions
	prefix    string
	rules     map[string]int // conjunction key -> rule
	any       int            // rule id of "any JSON value", -1 until needed
	anyObj    int            // any object, any array: defined with any
	anyArr    int
	deadline  time.Time
	ws        *expr
	comma     *expr
	colon     *expr
	char      *expr // one code point of string content
	charRule  *expr // a call of char, made when first needed
	commaRule *expr // a call of comma, made when first needed
	synth     map[string]*jvalue
	patterns  map[string]*expr // compiled patterns by source
	dfas      map[*expr]*dfa   // determinized languages
	textAll   *expr            // every string content the dialect writes
	// unevaluated is set when the schema uses unevaluatedProperties or
	// unevaluatedItems, whose results depend on annotations.
	unevaluated bool
	// emptyWhy is the first pair of keywords found to exclude every value
	// of a type, reported if the whole schema turns out to match nothing.
	emptyWhy error
	trial    bool // compiling a Lenient trial (which negations compile)
	// Dialect spellings.
	lTrue, lFalse, lNull string
}

func newSchemaCompiler(b *builder, schema []byte, opts JSONOptions, prefix string) (*schemaCompiler, error) {
	root, err := parseJSON(schema)
	if err != nil {
		return nil, &CompileError{Lang: "json-schema", Msg: "invalid JSON: " + err.Error(), Err: ErrSyntax}
	}
	if root.kind != jObject && root.kind != jBool {
		return nil, &CompileError{Lang: "json-schema", Msg: "schema must be an object or a boolean", Err: ErrSyntax}
	}
	if opts.MaxWhitespace <= 0 {
		opts.MaxWhitespace = 16
	}
	if opts.MaxAnyOrder <= 0 {
		opts.MaxAnyOrder = 8
	}
	if opts.MaxCompileTime <= 0 {
		opts.MaxCompileTime = time.Second
	}
	if opts.MaxRules <= 0 {
		opts.MaxRules = 20000
	}
	if opts.Draft != 7 {
		opts.Draft = 2020
	}
	if opts.Spec {
		opts.AdditionalProperties = true
	}
	doc := &schemaDoc{root: root, uri: rootURI, draft: draftOf(root, opts.Draft)}
	c := &schemaCompiler{b: b, root: root, doc: doc, opts: opts, prefix: prefix, rules: map[string]int{}, any: -1,
		deadline: time.Now().Add(opts.MaxCompileTime), synth: map[string]*jvalue{}, patterns: map[string]*expr{}, dfas: map[*expr]*dfa{},
		idx: schemaIndex{resources: map[string]sref{}, anchors: map[string]sref{}, dynamic: map[string]int{}, bases: map[*jvalue]sref{}}}
	c.idx.index(root, doc, "", rootURI)
	c.unevaluated = strings.Contains(string(schema), `"unevaluated`)
	if sc := root.get("$schema"); opts.Spec && sc != nil && sc.kind == jString && !strings.Contains(sc.str, "://json-schema.org/") {
		return nil, &CompileError{Lang: "json-schema", Pointer: "/$schema", Msg: fmt.Sprintf("custom metaschema %q: its vocabularies are not known", sc.str), Err: ErrUnsupported}
	}
	c.idx.resources[rootURI] = sref{v: root, doc: doc, base: rootURI}
	switch opts.Whitespace {
	case WhitespaceCompact:
		c.ws, c.comma, c.colon = emptyExpr, lit(","), lit(":")
	case WhitespaceSpaced:
		c.ws, c.comma, c.colon = emptyExpr, lit(", "), lit(": ")
	default:
		c.ws = c.shared(rep(alt(lit(" "), lit("\t"), lit("\n"), lit("\r")), 0, opts.MaxWhitespace))
		c.comma, c.colon = seq(c.ws, lit(","), c.ws), seq(c.ws, lit(":"), c.ws)
	}
	c.char = c.jsonChar()
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

// jsonChar matches one code point of JSON string content: the character
// itself or an escape; an escaped surrogate pair is one code point and a
// lone escaped surrogate is not generated.
func (c *schemaCompiler) jsonChar() *expr {
	hex := alt(byteRange('0', '9'), byteRange('a', 'f'), byteRange('A', 'F'))
	hex3 := rep(hex, 3, 3)
	nonSurrogate := alt(
		seq(alt(byteRange('0', '9'), byteRange('a', 'c'), byteRange('A', 'C'), byteRange('e', 'f'), byteRange('E', 'F')), hex3),
		seq(alt(lit("d"), lit("D")), byteRange('0', '7'), hex, hex))
	pair := seq(alt(lit("d"), lit("D")), alt(byteRange('8', '9'), byteRange('a', 'b'), byteRange('A', 'B')), hex, hex,
		lit(`\u`), alt(lit("d"), lit("D")), alt(byteRange('c', 'f'), byteRange('C', 'F')), hex, hex)
	short := `"\/bfnrt`
	if c.opts.Dialect.Python {
		short = `"\bfnrt`
	}
	escapes := []*expr{seq(lit("u"), alt(nonSurrogate, pair))}
	for i := 0; i < len(short); i++ {
		escapes = append(escapes, byteRange(short[i], short[i]))
	}
	return alt(runeClass([]runeRange{{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}}), seq(lit(`\`), alt(escapes...)))
}

func (c *schemaCompiler) compileRoot() (*expr, error) {
	return c.value([]part{{s: c.idx.bases[c.root]}}, "")
}

// resolve finds the schema a $ref in the root document points to.
func (c *schemaCompiler) resolve(ref, ptr string) (*jvalue, error) {
	s, err := c.resolveRef(ref, c.idx.resources[rootURI], ptr)
	if err != nil {
		return nil, err
	}
	return s.v, nil
}

// schema compiles the subschema s of the root document found at JSON pointer ptr.
func (c *schemaCompiler) schema(s *jvalue, ptr string) (*expr, error) {
	r, ok := c.idx.bases[s]
	if !ok {
		r = sref{v: s, doc: c.doc, ptr: ptr, base: rootURI}
	}
	return c.value([]part{{s: r}}, ptr)
}

func (c *schemaCompiler) errf(ptr string, sentinel error, format string, args ...any) error {
	return &CompileError{Lang: "json-schema", Pointer: ptr, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// unsupported reports a keyword that cannot be compiled exactly.
func (c *schemaCompiler) unsupported(ptr, format string, args ...any) error {
	return c.errf(ptr, ErrUnsupported, format, args...)
}

func (c *schemaCompiler) tooLarge(ptr, format string, args ...any) error {
	return c.errf(ptr, ErrTooLarge, "schema too large: "+format, args...)
}

// part is one schema a value must satisfy (neg: must not satisfy).
type part struct {
	s   sref
	neg bool
}

// member is one schema object applying at an instance location, with the
// chain of schemas (at the same location) through which it was reached:
// unevaluatedProperties/unevaluatedItems see the members below them.
type member struct {
	s   sref
	anc []*jvalue
}

// conj is one alternative of a value's constraint: it satisfies every pos
// member (their non-applicator keywords) and no neg schema.
type conj struct {
	pos   []member
	neg   []sref
	anyOf bool // several overlapping alternatives came from anyOf
}

// maxAlternatives bounds the alternatives anyOf/oneOf/if expand into.
const maxAlternatives = 256

// value compiles the conjunction of parts into a rule (memoized, so
// recursive schemas become recursive rules).
func (c *schemaCompiler) value(parts []part, ptr string) (*expr, error) {
	if len(parts) > 0 {
		ptr = parts[0].s.ptr // errors name a schema location, not an instance path
	}
	keys := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.s.v.kind == jBool && p.s.v.b != p.neg {
			continue // true
		}
		if p.s.v.kind == jBool {
			return nothingExpr, nil
		}
		k := fmt.Sprintf("%p", p.s.v)
		if p.neg {
			k = "!" + k
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	if id, ok := c.rules[key]; ok {
		return ref(id), nil
	}
	if len(keys) == 0 {
		return c.anyValue(), nil
	}
	if len(c.rules) >= c.opts.MaxRules {
		return nil, c.tooLarge(ptr, "more than %d rules", c.opts.MaxRules)
	}
	if time.Now().After(c.deadline) {
		return nil, c.tooLarge(ptr, "compiling took longer than %v", c.opts.MaxCompileTime)
	}
	id := c.b.fresh(c.prefix + "v" + strconv.Itoa(len(c.rules)))
	c.rules[key] = id
	e, err := c.valueBody(parts, ptr)
	if err != nil { // leave no undefined rule behind (Lenient retries)
		delete(c.rules, key)
		c.b.define(id, nothingExpr)
		return nil, err
	}
	c.b.define(id, e)
	return ref(id), nil
}

// valueBody is the alternatives of the conjunction of parts.
func (c *schemaCompiler) valueBody(parts []part, ptr string) (*expr, error) {
	alts := []conj{{}}
	for _, p := range parts {
		if p.neg {
			for i := range alts {
				alts[i].neg = append(alts[i].neg, p.s)
			}
			continue
		}
		e, err := c.expand(p.s, nil, map[*jvalue]bool{})
		if err != nil {
			return nil, err
		}
		if alts, err = c.product(alts, e, p.s.ptr); err != nil {
			return nil, err
		}
	}
	var out []*expr
	for _, a := range alts {
		e, err := c.compileConj(a, ptr)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return alt(out...), nil
}

func (c *schemaCompiler) product(a, b []conj, ptr string) ([]conj, error) {
	if len(a)*len(b) > maxAlternatives {
		return nil, c.tooLarge(ptr, "more than %d alternatives (anyOf/oneOf/if combinations)", maxAlternatives)
	}
	out := make([]conj, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, conj{
				pos:   append(append([]member(nil), x.pos...), y.pos...),
				neg:   append(append([]sref(nil), x.neg...), y.neg...),
				anyOf: x.anyOf || y.anyOf,
			})
		}
	}
	return out, nil
}

// sub returns the subschema of s under keyword path (already looked up as v).
func (c *schemaCompiler) sub(s sref, v *jvalue, path string) sref {
	if r, ok := c.idx.bases[v]; ok {
		return r
	}
	return sref{v: v, doc: s.doc, ptr: s.ptr + path, base: s.base}
}

// expand turns the applicators of s (at one instance location) into
// alternatives of plain members.
func (c *schemaCompiler) expand(s sref, anc []*jvalue, visiting map[*jvalue]bool) ([]conj, error) {
	if s.v.kind == jBool {
		if s.v.b {
			return []conj{{}}, nil
		}
		return []conj{{pos: []member{{s: s, anc: anc}}}}, nil
	}
	if s.v.kind != jObject {
		return nil, c.errf(s.ptr, ErrSyntax, "schema must be an object or a boolean")
	}
	if visiting[s.v] { // A refers to itself at the same instance location
		return nil, c.errf(s.ptr, ErrInvalid, "schema refers to itself without descending into the value ($ref cycle)")
	}
	if time.Now().After(c.deadline) {
		return nil, c.tooLarge(s.ptr, "compiling took longer than %v", c.opts.MaxCompileTime)
	}
	visiting[s.v] = true
	defer delete(visiting, s.v)
	child := append(append([]*jvalue(nil), anc...), s.v)
	sub := func(v *jvalue, path string) ([]conj, error) {
		return c.expand(c.sub(s, v, path), child, visiting)
	}
	if r := s.v.get("$ref"); r != nil && s.doc.draft == 7 {
		if r.kind != jString {
			return nil, c.errf(s.ptr+"/$ref", ErrSyntax, "$ref must be a string")
		}
		t, err := c.resolveRef(r.str, s, s.ptr+"/$ref")
		if err != nil {
			return nil, err
		}
		return c.expand(t, anc, visiting) // draft 7: $ref overrides its siblings
	}
	alts := []conj{{pos: []member{{s: s, anc: anc}}}}
	var err error
	for i, k := range s.v.keys {
		v := s.v.vals[i]
		p := s.ptr + "/" + pointerToken(k)
		var e []conj
		switch k {
		case "$ref", "$dynamicRef", "$recursiveRef":
			if v.kind != jString {
				return nil, c.errf(p, ErrSyntax, "%s must be a string", k)
			}
			ref := v.str
			if k == "$dynamicRef" {
				name := strings.TrimPrefix(ref[strings.Index(ref+"#", "#"):], "#")
				if c.idx.dynamic[name] > 1 && !c.opts.Lenient {
					return nil, c.unsupported(p, "$dynamicRef %q: several $dynamicAnchor %q, the target depends on the dynamic scope", ref, name)
				}
			}
			if k == "$recursiveRef" {
				return nil, c.unsupported(p, "$recursiveRef is not supported")
			}
			t, err := c.resolveRef(ref, s, p)
			if err != nil {
				return nil, err
			}
			if e, err = c.expand(t, child, visiting); err != nil {
				return nil, err
			}
		case "allOf", "anyOf", "oneOf":
			if v.kind != jArray || len(v.arr) == 0 {
				return nil, c.errf(p, ErrSyntax, "%s must be a non-empty array", k)
			}
			branches := make([][]conj, len(v.arr))
			for j, x := range v.arr {
				if branches[j], err = sub(x, fmt.Sprintf("/%s/%d", k, j)); err != nil {
					return nil, err
				}
			}
			switch k {
			case "allOf":
				e = []conj{{}}
				for _, br := range branches {
					if e, err = c.product(e, br, p); err != nil {
						return nil, err
					}
				}
			case "anyOf":
				for _, br := range branches {
					e = append(e, br...)
				}
				if len(e) > 1 {
					for j := range e {
						e[j].anyOf = true
					}
				}
			case "oneOf":
				if e, err = c.oneOf(s, v, branches, p); err != nil {
					return nil, err
				}
			}
		case "not":
			e = []conj{{neg: []sref{c.sub(s, v, "/not")}}}
		case "if":
			ifs := c.sub(s, v, "/if")
			then, els := []conj{{}}, []conj{{}}
			if t := s.v.get("then"); t != nil {
				if then, err = sub(t, "/then"); err != nil {
					return nil, err
				}
			}
			if t := s.v.get("else"); t != nil {
				if els, err = sub(t, "/else"); err != nil {
					return nil, err
				}
			}
			if s.v.get("then") == nil && s.v.get("else") == nil && !c.unevaluated {
				continue // no effect, except on the annotations unevaluated* sees
			}
			yes, err := sub(v, "/if")
			if err != nil {
				return nil, err
			}
			if yes, err = c.product(yes, then, p); err != nil {
				return nil, err
			}
			no, err := c.product([]conj{{neg: []sref{ifs}}}, els, p)
			if err != nil {
				return nil, err
			}
			e = append(yes, no...)
		case "dependentSchemas", "dependencies":
			if v.kind != jObject {
				return nil, c.errf(p, ErrSyntax, "%s must be an object", k)
			}
			e = []conj{{}}
			for j, name := range v.keys {
				d := v.vals[j]
				if d.kind == jArray { // dependencies, array form: dependentRequired
					continue
				}
				ds, err := sub(d, "/"+k+"/"+pointerToken(name))
				if err != nil {
					return nil, err
				}
				absent := member{s: c.synthetic(`{"properties":{`+quoteJSON(name)+`:false}}`, s), anc: child}
				present := member{s: c.synthetic(`{"required":[`+quoteJSON(name)+`]}`, s), anc: child}
				with, err := c.product([]conj{{pos: []member{present}}}, ds, p)
				if err != nil {
					return nil, err
				}
				if e, err = c.product(e, append([]conj{{pos: []member{absent}}}, with...), p); err != nil {
					return nil, err
				}
			}
		default:
			continue
		}
		if alts, err = c.product(alts, e, p); err != nil {
			return nil, err
		}
	}
	return alts, nil
}

// synthetic returns a schema built by the compiler (interned by text).
func (c *schemaCompiler) synthetic(src string, at sref) sref {
	v, ok := c.synth[src]
	if !ok {
		v, _ = parseJSON([]byte(src))
		c.synth[src] = v
	}
	return sref{v: v, doc: at.doc, ptr: at.ptr, base: at.base}
}

// oneOf expands oneOf: exactly one branch holds. Branches that cannot both
// hold are alternatives; otherwise each branch excludes the others by negation.
func (c *schemaCompiler) oneOf(s sref, v *jvalue, branches [][]conj, ptr string) ([]conj, error) {
	disjoint := true
	for i := range branches {
		for j := i + 1; j < len(branches) && disjoint; j++ {
			disjoint = c.disjoint(branches[i], branches[j])
		}
	}
	var out []conj
	for i, br := range branches {
		alts := br
		if !disjoint {
			var negs []sref
			for j, x := range v.arr {
				if j != i {
					negs = append(negs, c.sub(s, x, fmt.Sprintf("/oneOf/%d", j)))
				}
			}
			alts = make([]conj, len(br))
			for k, a := range br {
				alts[k] = conj{pos: a.pos, neg: append(append([]sref(nil), a.neg...), negs...), anyOf: a.anyOf}
			}
		}
		out = append(out, alts...)
	}
	if len(out) > maxAlternatives {
		return nil, c.tooLarge(ptr, "more than %d alternatives", maxAlternatives)
	}
	return out, nil
}

// disjoint reports whether no value can satisfy both a and b.
func (c *schemaCompiler) disjoint(a, b []conj) bool {
	for _, x := range a {
		for _, y := range b {
			if !c.conjDisjoint(x, y) {
				return false
			}
		}
	}
	return true
}

func (c *schemaCompiler) conjDisjoint(x, y conj) bool {
	tx, ty := c.conjTypes(x), c.conjTypes(y)
	if tx&ty == 0 {
		return true
	}
	// Literal sets without a common value.
	lx, okx := c.conjLiterals(x)
	ly, oky := c.conjLiterals(y)
	if okx && oky {
		for _, a := range lx {
			for _, b := range ly {
				if jsonEqual(a, b) {
					return false
				}
			}
		}
		return true
	}
	// A property one requires that the other forbids (closed objects).
	if tx&ty == tObject && (forbidsRequired(x, y) || forbidsRequired(y, x)) {
		return true
	}
	// A required property whose literal sets do not meet (a discriminator).
	if tx&ty == tObject {
		for _, mx := range x.pos {
			for _, my := range y.pos {
				for _, k := range requiredNames(mx.s.v) {
					if !contains(requiredNames(my.s.v), k) {
						continue
					}
					px, py := mx.s.v.get("properties").get(k), my.s.v.get("properties").get(k)
					ax, oka := literalsOf(px)
					ay, okb := literalsOf(py)
					if !oka || !okb {
						continue
					}
					common := false
					for _, a := range ax {
						for _, b := range ay {
							common = common || jsonEqual(a, b)
						}
					}
					if !common {
						return true
					}
				}
			}
		}
	}
	return false
}

// forbidsRequired reports whether y forbids a property x requires: y has
// additionalProperties false, no patternProperties and does not declare it,
// or declares it false.
func forbidsRequired(x, y conj) bool {
	for _, mx := range x.pos {
		for _, r := range requiredNames(mx.s.v) {
			for _, my := range y.pos {
				s := my.s.v
				if p := s.get("properties").get(r); p != nil {
					if p.kind == jBool && !p.b {
						return true
					}
					continue
				}
				if ap := s.get("additionalProperties"); ap != nil && ap.kind == jBool && !ap.b && s.get("patternProperties") == nil {
					return true
				}
			}
		}
	}
	return false
}

func requiredNames(s *jvalue) []string {
	var out []string
	for _, x := range s.get("required").arrOrNil() {
		if x.kind == jString {
			out = append(out, x.str)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// literalsOf returns the const/enum values of a schema object.
func literalsOf(s *jvalue) ([]*jvalue, bool) {
	if s == nil || s.kind != jObject {
		return nil, false
	}
	if v := s.get("const"); v != nil {
		return []*jvalue{v}, true
	}
	if v := s.get("enum"); v != nil && v.kind == jArray {
		return v.arr, true
	}
	return nil, false
}

// conjLiterals intersects the literal sets of a conjunction's members.
func (c *schemaCompiler) conjLiterals(x conj) ([]*jvalue, bool) {
	var out []*jvalue
	have := false
	for _, m := range x.pos {
		l, ok := literalsOf(m.s.v)
		if !ok {
			continue
		}
		if !have {
			out, have = l, true
			continue
		}
		var keep []*jvalue
		for _, a := range out {
			for _, b := range l {
				if jsonEqual(a, b) {
					keep = append(keep, a)
					break
				}
			}
		}
		out = keep
	}
	return out, have
}

// JSON types as a bit set; integer is a subset of number.
const (
	tNull = 1 << iota
	tBool
	tObject
	tArray
	tString
	tInteger
	tFraction // numbers that are not integers
	tNumber   = tInteger | tFraction
	tAll      = tNull | tBool | tObject | tArray | tString | tNumber
)

var typeBits = map[string]int{"null": tNull, "boolean": tBool, "object": tObject, "array": tArray,
	"string": tString, "integer": tInteger, "number": tNumber}

// typeKeywords lists the keywords that constrain each type.
var typeKeywords = []struct {
	t    int
	keys []string
}{
	{tObject, []string{"properties", "patternProperties", "additionalProperties", "required", "minProperties", "maxProperties",
		"propertyNames", "dependentRequired", "dependencies", "unevaluatedProperties", "dependentSchemas"}},
	{tArray, []string{"items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains", "minContains",
		"maxContains", "uniqueItems", "unevaluatedItems"}},
	{tString, []string{"pattern", "minLength", "maxLength", "format"}},
	{tNumber, []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}},
}

// memberTypes is the set of types a member allows. With infer (generation
// outside Spec mode) a member without "type" allows only the types its
// keywords constrain; everything that decides what to exclude (negations,
// oneOf overlap, literal checks) uses the specification's types.
func (c *schemaCompiler) memberTypes(s *jvalue, infer bool) (int, error) {
	if s.kind == jBool {
		if s.b {
			return tAll, nil
		}
		return 0, nil
	}
	t := s.get("type")
	types := tAll
	switch {
	case t == nil:
		if infer {
			inferred := 0
			for _, tk := range typeKeywords {
				for _, k := range tk.keys {
					if s.get(k) != nil && !(k == "format" && formatRegexes[s.get(k).str] == "") && !(k == "dependentSchemas") {
						inferred |= tk.t
					}
				}
			}
			if inferred != 0 {
				types = inferred
			}
		}
	case t.kind == jString:
		b, ok := typeBits[t.str]
		if !ok {
			return 0, fmt.Errorf("unknown type %q", t.str)
		}
		types = b
	case t.kind == jArray:
		types = 0
		for _, x := range t.arr {
			b, ok := typeBits[x.str]
			if x.kind != jString || !ok {
				return 0, fmt.Errorf("unknown type %q", x.str)
			}
			types |= b
		}
	default:
		return 0, errors.New("type must be a string or an array of strings")
	}
	if n := s.get("nullable"); n != nil && n.kind == jBool && n.b {
		types |= tNull
	}
	return types, nil
}

func (c *schemaCompiler) conjTypes(x conj) int {
	types := tAll
	for _, m := range x.pos {
		t, err := c.memberTypes(m.s.v, false)
		if err != nil {
			return tAll
		}
		types &= t
	}
	return types
}

// compileConj compiles one alternative.
func (c *schemaCompiler) compileConj(x conj, ptr string) (*expr, error) {
	types := tAll
	for _, m := range x.pos {
		t, err := c.memberTypes(m.s.v, !c.opts.Spec)
		if err != nil {
			return nil, c.errf(m.s.ptr+"/type", ErrSyntax, "%v", err)
		}
		types &= t
	}
	if types == 0 {
		return nothingExpr, nil
	}
	if lits, ok := c.conjLiterals(x); ok {
		var alts []*expr
		for _, l := range lits {
			if valueType(l)&types == 0 {
				continue
			}
			ok, err := c.validConj(l, x)
			if err != nil {
				return nil, err
			}
			if ok {
				alts = append(alts, c.literal(l))
			}
		}
		return alt(alts...), nil
	}
	// Negations: remove whole types, or restrict number ranges.
	var numNeg []sref
	var strNeg []conj
	var objNeg *sref // an object schema to negate: by alternatives below
	var objNegAlt conj
	if c.opts.Lenient && !c.trial && len(x.neg) > 0 { // keep the negations that compile exactly, drop the others
		c.trial = true
		var keep []sref
		for _, n := range x.neg {
			if _, err := c.compileConj(conj{pos: x.pos, neg: append(append([]sref(nil), keep...), n), anyOf: x.anyOf}, ptr); !errors.Is(err, ErrUnsupported) {
				keep = append(keep, n)
			}
		}
		c.trial = false
		if len(keep) < len(x.neg) {
			x = conj{pos: x.pos, neg: keep, anyOf: x.anyOf}
		}
	}
	for ni, n := range x.neg {
		na, err := c.expand(n, nil, map[*jvalue]bool{})
		if err != nil {
			return nil, err
		}
		for _, a := range na {
			if len(a.neg) > 0 {
				return nil, c.unsupported(n.ptr, "a negated schema containing not is not supported")
			}
			at := c.conjTypes(a)
			if lits, ok := c.conjLiterals(a); ok {
				for _, l := range lits {
					switch {
					case l.kind == jNumber && types&tNumber != 0:
						numNeg = append(numNeg, n)
					case l.kind == jObject && types&tObject != 0, l.kind == jArray && types&tArray != 0:
						return nil, c.unsupported(n.ptr, "not: excluding object or array literals is not supported")
					}
				}
				if types&tString != 0 {
					strNeg = append(strNeg, a)
				}
				continue // booleans and null are checked as literals below
			}
			constrained := 0
			for _, m := range a.pos {
				constrained |= c.constrainedTypes(m.s.v)
			}
			// Types the negated schema accepts whole are excluded.
			types &^= at &^ constrained
			if at&constrained&types&tArray != 0 {
				return nil, c.unsupported(n.ptr, "not: the negation of this array schema cannot be compiled exactly")
			}
			if at&constrained&types&tObject != 0 {
				if len(na) != 1 || objNeg != nil {
					return nil, c.unsupported(n.ptr, "not: the negation of this object schema cannot be compiled exactly")
				}
				objNeg, objNegAlt = &x.neg[ni], a
			}
			if at&constrained&types&tNumber != 0 {
				numNeg = append(numNeg, n)
			}
			if at&constrained&types&tString != 0 {
				strNeg = append(strNeg, a)
			}
		}
	}
	var alts []*expr
	if objNeg != nil && types&tObject != 0 {
		types &^= tObject
		e, err := c.negatedObject(x, *objNeg, objNegAlt, ptr)
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	for _, t := range []int{tObject, tArray, tString, tNumber, tBool, tNull} {
		if types&t == 0 {
			continue
		}
		var e *expr
		var err error
		switch {
		case (t == tObject || t == tArray) && len(x.neg) == 0 && c.unconstrained(x, t):
			c.anyValue()
			e = ref(c.anyObj)
			if t == tArray {
				e = ref(c.anyArr)
			}
		case t == tObject:
			e, err = c.object(x, ptr)
		case t == tArray:
			e, err = c.array(x, ptr)
		case t == tString:
			e, err = c.str(x, strNeg, ptr)
		case t == tNumber:
			e, err = c.number(x, types&tNumber, numNeg)
		case t == tBool:
			e = alt(c.scalarLiteral(x, &jvalue{kind: jBool, b: true}), c.scalarLiteral(x, &jvalue{kind: jBool}))
		case t == tNull:
			e = c.scalarLiteral(x, &jvalue{kind: jNull})
		}
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	return alt(alts...), nil
}

// negatedObject compiles the objects of x that violate the object schema
// n (expanded as the single alternative a): one alternative per object
// keyword of a whose negation is a keyword (a required property absent, a
// property present with a value its schema rejects, a member count out of
// range).
func (c *schemaCompiler) negatedObject(x conj, n sref, a conj, ptr string) (*expr, error) {
	// The pieces are outside every member's scope (no ancestors), so their
	// properties never count as evaluated, as annotations under not do not.
	obj := member{s: c.synthetic(`{"type":"object"}`, n)}
	var rest []sref
	for _, o := range x.neg {
		if o.v != n.v {
			rest = append(rest, o)
		}
	}
	var pieces []member
	piece := func(v *jvalue, m member) {
		pieces = append(pieces, member{s: sref{v: v, doc: m.s.doc, ptr: m.s.ptr, base: m.s.base}})
	}
	for _, m := range a.pos {
		if m.s.v.kind != jObject {
			continue
		}
		for i, k := range m.s.v.keys {
			v := m.s.v.vals[i]
			switch k {
			case "required":
				for _, r := range requiredNames(m.s.v) {
					piece(&jvalue{kind: jObject, keys: []string{"properties"}, vals: []*jvalue{{kind: jObject, keys: []string{r}, vals: []*jvalue{{kind: jBool}}}}}, m)
				}
			case "properties":
				for j, name := range v.keys {
					not := &jvalue{kind: jObject, keys: []string{"not"}, vals: []*jvalue{v.vals[j]}}
					piece(&jvalue{kind: jObject, keys: []string{"required", "properties"}, vals: []*jvalue{
						{kind: jArray, arr: []*jvalue{{kind: jString, str: name}}},
						{kind: jObject, keys: []string{name}, vals: []*jvalue{not}}}}, m)
				}
			case "minProperties", "maxProperties":
				b, _, err := c.intKeyword(m.s, k)
				if err != nil {
					return nil, err
				}
				if k == "minProperties" && b > 0 {
					piece(&jvalue{kind: jObject, keys: []string{"maxProperties"}, vals: []*jvalue{{kind: jNumber, num: json.Number(strconv.Itoa(b - 1))}}}, m)
				} else if k == "maxProperties" {
					piece(&jvalue{kind: jObject, keys: []string{"minProperties"}, vals: []*jvalue{{kind: jNumber, num: json.Number(strconv.Itoa(b + 1))}}}, m)
				}
			default:
				for _, tk := range typeKeywords {
					if tk.t == tObject && contains(tk.keys, k) {
						return nil, c.unsupported(m.s.ptr+"/"+k, "not: negating %s is not supported", k)
					}
				}
			}
		}
	}
	var alts []*expr
	for _, p := range pieces {
		pos := append(append([]member(nil), x.pos...), obj, p)
		e, err := c.compileConj(conj{pos: pos, neg: rest, anyOf: x.anyOf}, ptr)
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	return alt(alts...), nil
}

// scalarLiteral is the literal v unless a negated literal set excludes it.
func (c *schemaCompiler) scalarLiteral(x conj, v *jvalue) *expr {
	if ok, err := c.validConj(v, x); err != nil || !ok {
		return nothingExpr
	}
	return c.literal(v)
}

// constrainedTypes is the set of types for which s has a constraining keyword.
func (c *schemaCompiler) constrainedTypes(s *jvalue) int {
	out := 0
	for _, tk := range typeKeywords {
		for _, k := range tk.keys {
			v := s.get(k)
			if v == nil || k == "format" && (c.opts.Spec || formatRegexes[v.str] == "") {
				continue
			}
			out |= tk.t
		}
	}
	return out
}

// anyValue is a reference to the rule matching any JSON value.
func (c *schemaCompiler) anyValue() *expr {
	if c.any < 0 {
		c.any = c.b.fresh(c.prefix + "any")
		c.anyObj = c.b.fresh(c.prefix + "anyObject")
		c.anyArr = c.b.fresh(c.prefix + "anyArray")
		value := ref(c.any)
		key := c.anyKey()
		c.b.define(c.anyObj, seq(lit("{"), c.ws, opt(seq(key, c.colon, value, star(seq(c.comma, key, c.colon, value)))), c.ws, lit("}")))
		c.b.define(c.anyArr, seq(lit("["), c.ws, opt(seq(value, star(seq(c.comma, value)))), c.ws, lit("]")))
		c.b.define(c.any, alt(ref(c.anyObj), ref(c.anyArr), c.anyString(), jsonNumber(), lit(c.lTrue), lit(c.lFalse), lit(c.lNull)))
	}
	return ref(c.any)
}

// unconstrained reports whether no member of x constrains type t, so the
// shared rule for any value of that type can be used.
func (c *schemaCompiler) unconstrained(x conj, t int) bool {
	for _, m := range x.pos {
		if m.s.v.kind == jObject && c.constrainedTypes(m.s.v)&t != 0 {
			return false
		}
	}
	return true
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

// intKeyword reads the non-negative integer keyword key of member s.
func (c *schemaCompiler) intKeyword(s sref, key string) (int, bool, error) {
	v := s.v.get(key)
	if v == nil {
		return 0, false, nil
	}
	if v.kind != jNumber {
		return 0, false, c.errf(s.ptr+"/"+key, ErrSyntax, "%s must be a number", key)
	}
	r, ok := ratOf(v)
	if !ok || r.Sign() < 0 || !r.IsInt() || r.Num().BitLen() > 30 {
		return 0, false, c.errf(s.ptr+"/"+key, ErrSyntax, "%s must be a non-negative integer (at most %d), got %s", key, 1<<30, v.num)
	}
	return int(r.Num().Int64()), true, nil
}

// conflict records that keywords key (a maximum) and its minimum exclude
// every value, and returns nothing.
func (c *schemaCompiler) conflict(x conj, key string, lo, hi int) *expr {
	if c.emptyWhy == nil {
		ptr := ""
		for _, m := range x.pos {
			if m.s.v.get(key) != nil {
				ptr = m.s.ptr + "/" + key
			}
		}
		c.emptyWhy = c.errf(ptr, ErrInvalid, "%s %d is below the minimum %d: no value matches", key, hi, lo)
	}
	return nothingExpr
}

// bounds combines an integer keyword pair over members: the largest lower
// bound and the smallest upper bound (-1: none).
func (c *schemaCompiler) bounds(x conj, minKey, maxKey string) (lo, hi int, err error) {
	hi = -1
	for _, m := range x.pos {
		if m.s.v.kind != jObject {
			continue
		}
		a, ok, err := c.intKeyword(m.s, minKey)
		if err != nil {
			return 0, 0, err
		}
		if ok && a > lo {
			lo = a
		}
		b, ok, err := c.intKeyword(m.s, maxKey)
		if err != nil {
			return 0, 0, err
		}
		if ok && (hi < 0 || b < hi) {
			hi = b
		}
	}
	return lo, hi, nil
}
