package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime/debug"
)

// Tool is a function a model can call: a name, a description, the JSON
// schema of its arguments and the code that runs it. A Tool is immutable
// and safe for concurrent use.
type Tool struct {
	name        string
	description string
	schema      []byte
	err         error
	run         func(ctx context.Context, args []byte) (json.RawMessage, error)
}

// validName is what function-calling APIs accept as a tool name.
var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Define makes a tool from a typed Go function, the way Genkit's DefineTool
// does.
//
// The JSON schema of In is derived by reflection:
//   - struct fields become properties in declaration order, named by their
//     `json` tag; `json:"-"` and unexported fields are skipped; untagged
//     embedded structs are inlined;
//   - a field is required unless its json tag has omitempty or omitzero;
//   - a `description:"…"` tag becomes the property description;
//   - an `enum:"a,b,c"` tag restricts a string or number field (or the items
//     of a slice) to the listed values;
//   - bool, integers, floats and strings map to boolean, integer (unsigned:
//     minimum 0), number and string; time.Time to a date-time string; []byte
//     to a base64 string; slices and arrays to arrays; maps with string or
//     integer keys to objects with additionalProperties; pointers to their
//     element (null accepted); interfaces and json.RawMessage to any value;
//     objects reject unknown properties (additionalProperties: false).
//
// An In that is not a struct or a map (a string, a number, a slice…) is
// declared to the model wrapped in an object by [WrapSchema]:
// {"type":"object","properties":{"input":SCHEMA},"required":["input"]};
// the model's {"input": VALUE} is unwrapped ([UnwrapArguments]) and the
// function receives VALUE (a bare VALUE is accepted too).
//
// Define never panics. If In cannot be described (a channel, a function, a
// recursive struct) or the name is not valid, the returned tool reports the
// problem from Err and from every call, and [Set.Add] refuses it.
func Define[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) *Tool {
	t := &Tool{name: name, description: description}
	n, err := buildSchema(reflect.TypeFor[In]())
	switch {
	case !validName.MatchString(name):
		t.err = fmt.Errorf("tool %q: name must be 1-64 letters, digits, '_', '.' or '-'", name)
	case fn == nil:
		t.err = fmt.Errorf("tool %q: nil function", name)
	case err != nil:
		t.err = fmt.Errorf("tool %q: input type %s: %w", name, reflect.TypeFor[In](), err)
	}
	if t.err != nil {
		return t
	}
	t.schema = marshalSchema(n)
	check := n
	wrapped, ok := WrapSchema(t.schema)
	if ok {
		t.schema = wrapped
		check = &node{kind: kindObject, props: []*prop{{name: InputProperty, required: true, node: n}}}
	}
	t.run = func(ctx context.Context, args []byte) (json.RawMessage, error) {
		if t := bytes.TrimSpace(args); ok && len(t) > 0 && t[0] != '{' {
			args = WrapArguments(t) // the bare value, from a model that skipped the wrapper
		}
		norm, err := checkArgs(check, args)
		if err != nil {
			return nil, err
		}
		if ok {
			if norm, err = UnwrapArguments(norm); err != nil {
				return nil, err
			}
		}
		var in In
		if err := json.Unmarshal(norm, &in); err != nil {
			return nil, &ArgumentError{Problem: err.Error()}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding result: %w", err)
		}
		return b, nil
	}
	return t
}

// WithParameters returns a copy of the tool that declares schema, a JSON
// Schema object, as its parameters instead of the derived one: a caller
// narrows what a model may generate (an enum of paths, a maximum length)
// without a new Go type. The arguments are still validated against the
// tool's input type, so schema should describe a subset of it.
func (t *Tool) WithParameters(schema json.RawMessage) (*Tool, error) {
	if t.err != nil {
		return nil, t.err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(schema, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("tool %q: parameters: want a JSON Schema object", t.name)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, schema); err != nil {
		return nil, fmt.Errorf("tool %q: parameters: %w", t.name, err)
	}
	c := *t
	c.schema = buf.Bytes()
	return &c, nil
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description.
func (t *Tool) Description() string { return t.description }

// Err reports why the tool could not be defined, or nil.
func (t *Tool) Err() error { return t.err }

// Schema returns the JSON schema of the tool's arguments, compact and with a
// stable key order. The caller may modify the returned slice.
func (t *Tool) Schema() []byte { return bytes.Clone(t.schema) }

// Parameters returns the schema as a json.RawMessage, for embedding in
// request structs.
func (t *Tool) Parameters() json.RawMessage { return t.Schema() }

// Declaration returns the tool in the OpenAI function-calling shape used by
// chat templates: {"type":"function","function":{"name":…,"description":…,
// "parameters":…}}, with a stable key order.
func (t *Tool) Declaration() json.RawMessage {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"function","function":{"name":`)
	writeString(&buf, t.name)
	buf.WriteString(`,"description":`)
	writeString(&buf, t.description)
	buf.WriteString(`,"parameters":`)
	if t.schema != nil {
		buf.Write(t.schema)
	} else {
		buf.WriteString(`{"type":"object","properties":{}}`)
	}
	buf.WriteString(`}}`)
	return buf.Bytes()
}

// RunRaw runs the tool on arguments encoded as JSON (as a model produces
// them) and returns its result encoded as JSON; a string result is a JSON
// string. Invalid arguments are reported as [ArgumentErrors] naming each
// field; a panic in the tool function is recovered and returned as a
// [PanicError]. Every error is prefixed with the tool's name.
func (t *Tool) RunRaw(ctx context.Context, args json.RawMessage) (out json.RawMessage, err error) {
	if t.err != nil {
		return nil, t.err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.name, err)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("tool %q: %w", t.name, &PanicError{Value: r, Stack: debug.Stack()})
		}
	}()
	out, err = t.run(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.name, err)
	}
	return out, nil
}

// IsArgumentError reports whether err (from RunRaw) is about the arguments
// rather than a failure of the tool itself.
func IsArgumentError(err error) bool {
	var ae *ArgumentError
	return errors.As(err, &ae)
}

func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(s)
}
