package template

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ardanlabs/jinja"
)

// transformers replaces jinja2's tojson filter with
//
//	def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
//	    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent,
//	                      separators=separators, sort_keys=sort_keys)
//
// rewrite routes |tojson to the __lrt_json filter implemented here. It is
// byte-identical to json.dumps for the values a template can hold, fails as
// json.dumps does (undefined values, macros, generators, circular
// references), and is several times faster than the engine's tojson, which
// dominates the render time of templates that serialise tools.

// jsonOptions are the json.dumps arguments of one tojson call.
type jsonOptions struct {
	ensureASCII bool
	indent      string // one level of indentation
	indented    bool   // indent is not None: newlines between items
	itemSep     string
	keySep      string
	sortKeys    bool
}

// tojsonParams are the parameter names of transformers' tojson, in order.
var tojsonParams = [...]string{"ensure_ascii", "indent", "separators", "sort_keys"}

// jsonFilter implements the __lrt_json filter.
func (h *helpers) jsonFilter(args []Value, kwargs map[string]Value) (Value, error) {
	line, err := lineArg(helperJSON, args, 1)
	if err != nil {
		return jinja.Undefined(), err
	}
	if err := h.b.step(line, 1); err != nil {
		return jinja.Undefined(), err
	}
	args = append(args[:1:1], args[2:]...)
	params := [len(tojsonParams)]Value{jinja.NewBool(false), jinja.None(), jinja.None(), jinja.NewBool(false)}
	if len(args)-1 > len(params) {
		return jinja.Undefined(), fmt.Errorf("TypeError: tojson() takes from 1 to 5 positional arguments but %d were given", len(args))
	}
	copy(params[:], args[1:])
	for k, v := range kwargs {
		found := false
		for i, name := range tojsonParams {
			if k == name {
				if i+1 < len(args) {
					return jinja.Undefined(), fmt.Errorf("TypeError: tojson() got multiple values for argument '%s'", k)
				}
				params[i], found = v, true
			}
		}
		if !found {
			return jinja.Undefined(), fmt.Errorf("TypeError: tojson() got an unexpected keyword argument '%s'", k)
		}
	}
	opts := jsonOptions{ensureASCII: params[0].IsTruthy(), itemSep: ", ", keySep: ": ", sortKeys: params[3].IsTruthy()}
	switch ind := params[1]; {
	case ind.IsNone() || ind.IsUndefined():
	case ind.IsString():
		opts.indent, opts.indented = ind.AsString(), true
	case ind.IsInt() || ind.IsBool():
		n := int(max(0, min(toInt(ind), 1<<10)))
		if n <= len(spaces) {
			opts.indent = spaces[:n]
		} else {
			opts.indent = strings.Repeat(" ", n)
		}
		opts.indented = true
	default:
		return jinja.Undefined(), fmt.Errorf("TypeError: can't multiply sequence by non-int of type '%s'", pyTypeName(ind))
	}
	if opts.indented {
		opts.itemSep = ","
	}
	if sep := params[2]; !sep.IsNone() && !sep.IsUndefined() {
		if !sep.IsList() || len(sep.AsList().Items) != 2 || !sep.AsList().Items[0].IsString() || !sep.AsList().Items[1].IsString() {
			return jinja.Undefined(), errors.New("TypeError: tojson() separators must be a pair of strings")
		}
		opts.itemSep, opts.keySep = sep.AsList().Items[0].AsString(), sep.AsList().Items[1].AsString()
	}
	// The bound is proportional to the value's size (json.dumps writes
	// a list shared twice twice), measured in time proportional to the
	// budget left, before any of it is written.
	if n, deep := jsonSize(args[0], h.b.room()); !deep {
		if err := h.b.alloc(line, n); err != nil {
			return jinja.Undefined(), err
		}
	}
	enc := jsonEncoder{opts: opts, gens: h.gens, buf: h.jsonBuf[:0], max: int(min(h.b.room(), math.MaxInt32))}
	if opts.indented && len(h.jsonNL) > len(opts.indent) && string(h.jsonNL[1:1+len(opts.indent)]) == opts.indent {
		enc.nl = h.jsonNL
	}
	enc.open = enc.openBuf[:0]
	err = enc.value(args[0], 0)
	h.jsonBuf = enc.buf
	if enc.nl != nil {
		h.jsonNL = enc.nl
	}
	if errors.Is(err, errJSONLimit) {
		return jinja.Undefined(), h.b.overRoom(line)
	}
	if err != nil {
		return jinja.Undefined(), err
	}
	return jinja.NewString(string(enc.buf)), nil
}

// spaces holds the indentation of the common integer indents.
const spaces = "                "

// maxJSONDepth bounds nesting, as Python's recursion limit does.
const maxJSONDepth = 1000

// jsonEncoder writes one json.dumps result.
type jsonEncoder struct {
	opts jsonOptions
	buf  []byte
	// max bounds len(buf): past it, value fails with errJSONLimit.
	max  int
	gens map[*jinja.List]bool
	// open holds the containers being encoded, to detect cycles.
	open    []unsafe.Pointer
	openBuf [16]unsafe.Pointer
	// nl is a newline followed by indentation, grown as needed.
	nl []byte
}

func (e *jsonEncoder) newline(depth int) {
	if !e.opts.indented {
		return
	}
	n := 1 + depth*len(e.opts.indent)
	for len(e.nl) < n {
		if len(e.nl) == 0 {
			e.nl = append(e.nl, '\n')
		}
		e.nl = append(e.nl, e.opts.indent...)
		if len(e.opts.indent) == 0 {
			break
		}
	}
	e.buf = append(e.buf, e.nl[:n]...)
}

// enter records container c as open, failing for a cycle or runaway depth.
func (e *jsonEncoder) enter(c unsafe.Pointer) error {
	for _, o := range e.open {
		if o == c {
			return errors.New("ValueError: Circular reference detected")
		}
	}
	if len(e.open) >= maxJSONDepth {
		return errors.New("RecursionError: maximum recursion depth exceeded while encoding a JSON object")
	}
	e.open = append(e.open, c)
	return nil
}

// errJSONLimit stops an encoding that outgrows the render's budget.
var errJSONLimit = errors.New("tojson output exceeds the memory limit")

func (e *jsonEncoder) value(v Value, depth int) error {
	if len(e.buf) > e.max {
		return errJSONLimit
	}
	switch {
	case v.IsString():
		e.str(v.AsString())
	case v.IsNone():
		e.buf = append(e.buf, "null"...)
	case v.IsBool():
		if v.AsBool() {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case v.IsInt():
		e.buf = strconv.AppendInt(e.buf, v.AsInt(), 10)
	case v.IsFloat():
		e.buf = appendJSONFloat(e.buf, v.AsFloat())
	case v.IsList():
		l := v.AsList()
		if e.gens[l] {
			return errors.New("TypeError: Object of type generator is not JSON serializable")
		}
		if len(l.Items) == 0 {
			e.buf = append(e.buf, "[]"...)
			return nil
		}
		if err := e.enter(unsafe.Pointer(l)); err != nil {
			return err
		}
		e.buf = append(e.buf, '[')
		for i, it := range l.Items {
			if i > 0 {
				e.buf = append(e.buf, e.opts.itemSep...)
			}
			e.newline(depth + 1)
			if err := e.value(it, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.buf = append(e.buf, ']')
		e.open = e.open[:len(e.open)-1]
	case v.IsDict():
		d := v.AsDict()
		if len(d.Keys) == 0 {
			e.buf = append(e.buf, "{}"...)
			return nil
		}
		if err := e.enter(unsafe.Pointer(d)); err != nil {
			return err
		}
		keys := d.Keys
		if e.opts.sortKeys {
			keys = slices.Clone(keys)
			slices.Sort(keys)
		}
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, e.opts.itemSep...)
			}
			e.newline(depth + 1)
			e.str(k)
			e.buf = append(e.buf, e.opts.keySep...)
			if err := e.value(d.Data[k], depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.buf = append(e.buf, '}')
		e.open = e.open[:len(e.open)-1]
	case v.IsUndefined():
		return errors.New("TypeError: Object of type Undefined is not JSON serializable")
	default:
		return errors.New("TypeError: Object of type Macro is not JSON serializable")
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds unescaped: printable ASCII
// other than " and \.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str writes a JSON string literal as json.dumps does: ", \ and control
// characters escaped, and with ensure_ascii everything outside printable
// ASCII as \uXXXX (surrogate pairs above the BMP). Invalid UTF-8 becomes
// U+FFFD.
func (e *jsonEncoder) str(s string) {
	i := 0
	for i+8 <= len(s) && plain8(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
		i += 8
	}
	for i < len(s) && jsonPlain[s[i]] {
		i++
	}
	e.buf = append(e.buf, '"')
	if i < len(s) {
		e.escape(s, i)
	} else {
		e.buf = append(e.buf, s...)
	}
	e.buf = append(e.buf, '"')
}

// escape writes s, whose bytes before i need no escaping.
func (e *jsonEncoder) escape(s string, i int) {
	start := 0
	for i < len(s) {
		c := s[i]
		if jsonPlain[c] || c == 0x7f && !e.opts.ensureASCII {
			i++
			continue
		}
		if c >= 0x80 && !e.opts.ensureASCII {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		e.buf = append(e.buf, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			e.buf = append(e.buf, '\\', c)
			i++
		case c == '\n':
			e.buf = append(e.buf, '\\', 'n')
			i++
		case c == '\r':
			e.buf = append(e.buf, '\\', 'r')
			i++
		case c == '\t':
			e.buf = append(e.buf, '\\', 't')
			i++
		case c == '\b':
			e.buf = append(e.buf, '\\', 'b')
			i++
		case c == '\f':
			e.buf = append(e.buf, '\\', 'f')
			i++
		case c < 0x80:
			e.buf = appendU(e.buf, rune(c))
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case !e.opts.ensureASCII:
				e.buf = utf8.AppendRune(e.buf, r) // invalid UTF-8 as U+FFFD
			case r > 0xffff:
				r -= 0x10000
				e.buf = appendU(appendU(e.buf, 0xd800+(r>>10)), 0xdc00+(r&0x3ff))
			default:
				e.buf = appendU(e.buf, r)
			}
		}
		start = i
	}
	e.buf = append(e.buf, s[start:]...)
}

// plain8 reports whether the 8 bytes packed in x are all printable ASCII
// other than " and \, testing them at once (SWAR): it may report false
// for plain bytes, never true for others.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := x^(ones*'"'), x^(ones*'\\')
	t := (x - ones*0x20) | x | (x + ones) | (q - ones) | (b - ones)
	return t&highs == 0
}

// appendU appends \uXXXX with lowercase hex digits, as Python writes it.
func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// appendJSONFloat appends float.__repr__ of f, or NaN/Infinity/-Infinity
// as json.dumps writes non-finite numbers.
func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return append(b, pyFloatRepr(f)...)
}

// pyFloatRepr is Python's repr() of a finite float: the shortest digits
// that round-trip, in positional notation for decimal exponents -5 < exp <
// 16 (with ".0" for integral values) and in scientific notation with a
// signed, at least two-digit exponent otherwise.
func pyFloatRepr(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(sci[strings.IndexByte(sci, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return sci
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if strings.IndexByte(s, '.') < 0 {
		s += ".0"
	}
	return s
}
