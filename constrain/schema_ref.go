package constrain

import (
	"net/url"
	"strconv"
	"strings"
)

// schemaDoc is one JSON Schema document: the one being compiled or a remote
// one loaded through JSONOptions.Resolver.
type schemaDoc struct {
	root  *jvalue
	uri   string // absolute URI the document was loaded from
	draft int    // 7 for drafts 4, 6 and 7; 2020 for 2019-09 and 2020-12
}

// sref is a subschema in its context: the document it lives in, its JSON
// pointer there (for error messages) and the base URI in effect at it.
type sref struct {
	v    *jvalue
	doc  *schemaDoc
	ptr  string
	base string
}

// rootURI is the base URI of a schema without $id.
const rootURI = "urn:litert:schema"

// schemaIndex maps URIs to subschemas across every loaded document.
type schemaIndex struct {
	resources map[string]sref  // absolute URI (no fragment) -> resource root
	anchors   map[string]sref  // absolute URI + "#" + anchor -> subschema
	dynamic   map[string]int   // $dynamicAnchor name -> number of definitions
	bases     map[*jvalue]sref // every indexed subschema -> its context
}

// draftOf reads the draft a document is written in from $schema, falling
// back to def.
func draftOf(root *jvalue, def int) int {
	s := root.get("$schema")
	if s == nil || s.kind != jString {
		return def
	}
	for _, d := range []string{"draft-04", "draft-06", "draft-07", "draft-03"} {
		if strings.Contains(s.str, d) {
			return 7
		}
	}
	if strings.Contains(s.str, "2019-09") || strings.Contains(s.str, "2020-12") {
		return 2020
	}
	return def
}

// resolveURI resolves ref against base.
func resolveURI(base, ref string) (*url.URL, error) {
	b, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	if b.Scheme == "urn" && r.Scheme == "" && r.Host == "" && r.Path == "" {
		u := *b
		u.Fragment, u.RawFragment = r.Fragment, r.RawFragment
		return &u, nil
	}
	return b.ResolveReference(r), nil
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return strings.TrimSuffix(c.String(), "#")
}

// subschemaKeys are the keywords whose value is a schema, an array of
// schemas (arrays) or an object of schemas (maps).
var (
	schemaValued = map[string]bool{"additionalProperties": true, "additionalItems": true, "items": true, "not": true,
		"if": true, "then": true, "else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true}
	schemaArrays = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaMaps   = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true}
)

// index records the resources, anchors and base URIs of the schema tree at s.
func (x *schemaIndex) index(v *jvalue, doc *schemaDoc, ptr, base string) {
	if v.kind != jObject {
		if v.kind == jBool {
			x.bases[v] = sref{v: v, doc: doc, ptr: ptr, base: base}
		}
		return
	}
	_, isRef := x.bases[v]
	if isRef {
		return
	}
	sibRefIgnored := doc.draft == 7 && v.get("$ref") != nil
	for _, idKey := range []string{"$id", "id"} {
		id := v.get(idKey)
		if id == nil || id.kind != jString || sibRefIgnored || (idKey == "id" && doc.draft != 7) {
			continue
		}
		u, err := resolveURI(base, id.str)
		if err != nil {
			continue
		}
		if strings.HasPrefix(id.str, "#") { // draft-07 location-independent identifier
			x.anchors[base+id.str] = sref{v: v, doc: doc, ptr: ptr, base: base}
			break
		}
		base = withoutFragment(u)
		if u.Fragment != "" {
			x.anchors[base+"#"+u.Fragment] = sref{v: v, doc: doc, ptr: ptr, base: base}
		}
		x.resources[base] = sref{v: v, doc: doc, ptr: ptr, base: base}
		break
	}
	here := sref{v: v, doc: doc, ptr: ptr, base: base}
	x.bases[v] = here
	if a := v.get("$anchor"); a != nil && a.kind == jString {
		x.anchors[base+"#"+a.str] = here
	}
	if a := v.get("$dynamicAnchor"); a != nil && a.kind == jString {
		x.anchors[base+"#"+a.str] = here
		x.dynamic[a.str]++
	}
	for i, k := range v.keys {
		sub := v.vals[i]
		p := ptr + "/" + pointerToken(k)
		switch {
		case schemaArrays[k] && sub.kind == jArray:
			for j, e := range sub.arr {
				x.index(e, doc, p+"/"+strconv.Itoa(j), base)
			}
		case schemaMaps[k] && sub.kind == jObject:
			for j, e := range sub.vals {
				x.index(e, doc, p+"/"+pointerToken(sub.keys[j]), base)
			}
		case schemaValued[k]:
			x.index(sub, doc, p, base)
		}
	}
}

// loadDoc parses and indexes a document fetched from uri.
func (c *schemaCompiler) loadDoc(uri string, at string) (sref, error) {
	if r, ok := c.idx.resources[uri]; ok {
		return r, nil
	}
	if c.opts.Resolver == nil {
		return sref{}, c.errf(at, ErrUnsupported, "$ref to %q needs JSONOptions.Resolver", uri)
	}
	data, err := c.opts.Resolver(uri)
	if err != nil {
		return sref{}, &CompileError{Lang: "json-schema", Pointer: at, Msg: "resolving " + uri + ": " + err.Error(), Err: err}
	}
	root, err := parseJSON(data)
	if err != nil {
		return sref{}, c.errf(at, ErrSyntax, "%s: invalid JSON: %v", uri, err)
	}
	doc := &schemaDoc{root: root, uri: uri, draft: draftOf(root, c.doc.draft)}
	c.idx.index(root, doc, "", uri)
	r := c.idx.bases[root]
	if _, ok := c.idx.resources[uri]; !ok {
		c.idx.resources[uri] = r
	}
	return c.idx.resources[uri], nil
}

// resolveRef finds the subschema ref (relative to the base of from) points to.
func (c *schemaCompiler) resolveRef(ref string, from sref, at string) (sref, error) {
	u, err := resolveURI(from.base, ref)
	if err != nil {
		return sref{}, c.errf(at, ErrSyntax, "$ref %q is not a URI reference: %v", ref, err)
	}
	res, err := c.loadDoc(withoutFragment(u), at)
	if err != nil {
		return sref{}, err
	}
	frag := u.Fragment
	if frag == "" {
		return res, nil
	}
	if !strings.HasPrefix(frag, "/") {
		a, ok := c.idx.anchors[withoutFragment(u)+"#"+frag]
		if !ok {
			return sref{}, c.errf(at, ErrInvalid, "$ref %q: anchor %q not found", ref, frag)
		}
		return a, nil
	}
	cur, ptr := res.v, res.ptr
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		ptr += "/" + pointerToken(tok)
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
			return sref{}, c.errf(at, ErrInvalid, "$ref %q does not resolve", ref)
		}
	}
	if s, ok := c.idx.bases[cur]; ok {
		return s, nil
	}
	return sref{v: cur, doc: res.doc, ptr: ptr, base: res.base}, nil
}
