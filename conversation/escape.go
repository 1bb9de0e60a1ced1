package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// escapeJSON rewrites a JSON document with every string (keys and values,
// after JSON unescaping) passed through esc, keeping key order, so that
// special-token text hidden behind \u escapes is caught too.
func escapeJSON(data []byte, esc func(string) string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out bytes.Buffer
	// Each open container records whether the next element needs a comma
	// and, for objects, whether a key or a value comes next.
	type frame struct {
		object, wantValue, hasItem bool
	}
	var stack []frame
	sep := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		switch {
		case f.object && f.wantValue:
			out.WriteByte(':')
		case f.hasItem:
			out.WriteByte(',')
		}
	}
	advance := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.object {
			f.wantValue = !f.wantValue
			if !f.wantValue {
				f.hasItem = true
			}
			return
		}
		f.hasItem = true
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			break
		}
		if err != nil {
			return nil, err
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				sep()
				out.WriteByte(byte(v))
				stack = append(stack, frame{object: v == '{'})
				continue
			}
			out.WriteByte(byte(v))
			stack = stack[:len(stack)-1]
			advance()
			continue
		case string:
			sep()
			writeJSON(&out, esc(v))
		case json.Number:
			sep()
			out.WriteString(v.String())
		case bool:
			sep()
			if v {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			sep()
			out.WriteString("null")
		}
		advance()
	}
	return out.Bytes(), nil
}
