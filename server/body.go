package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"time"
)

// DefaultBodyBytesPerToken sizes the default body limit: a request body may
// hold this many bytes per token of the context, at least minBodyBytes.
// Text is about 4 bytes a token, 6 to 12 in JSON's \u escapes; the rest
// leaves room for tool schemas and base64 media.
const DefaultBodyBytesPerToken = 1024

// minBodyBytes is the least default body limit, for small contexts.
const minBodyBytes = 1 << 20

// DefaultBodyLimit is the body limit of a server whose Config.MaxBodyBytes
// is 0: DefaultBodyBytesPerToken bytes per token of the context, at least
// 1 MiB (4 MiB for a 4096-token context).
func DefaultBodyLimit(contextLength int) int64 {
	return max(int64(contextLength)*DefaultBodyBytesPerToken, minBodyBytes)
}

// tooLarge is the 413 for a body over limit bytes.
func tooLarge(limit int64) *apiError {
	return newError(http.StatusRequestEntityTooLarge, typeInvalidRequest, "", "request_too_large",
		"the request body is larger than the limit of %d bytes", limit)
}

// decodeBody reads the request body (at most Config.MaxBodyBytes, within
// bodyReadTimeout) and decodes it as JSON into v. The body is read into one
// buffer of its announced length, and dropped once decoded.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	data, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r.ContentLength, s.cfg.MaxBodyBytes)
	// Clear the deadline at once: the server's background read, which
	// notices a client going away, runs under it from now on.
	_ = rc.SetReadDeadline(time.Time{})
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return tooLarge(tooBig.Limit)
	case err != nil:
		return invalid("", "", "could not read the request body: %v", err)
	case len(data) == 0:
		return invalid("", "", "the request body is empty; send a JSON object")
	}
	if err := json.Unmarshal(data, v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return invalid("", "invalid_json", "could not parse the JSON body of your request: %v (at byte %d)", syn, syn.Offset)
		case errors.As(err, &typ) && typ.Field == "":
			return invalid("", "invalid_type", "the request body must be a JSON object, got %s", typ.Value)
		case errors.As(err, &typ):
			return invalid(typ.Field, "invalid_type", "invalid type for '%s': expected %s, got %s", typ.Field, jsonKind(typ.Type), typ.Value)
		}
		return invalid("", "invalid_json", "could not parse the JSON body of your request: %v", err)
	}
	return nil
}

// readBody reads body whole. With a known length (at most limit) it fills
// one buffer of that size; io.ReadAll would grow its buffer by copies, to
// up to twice the body.
func readBody(body io.Reader, length, limit int64) ([]byte, error) {
	if length <= 0 || length > limit {
		return io.ReadAll(body)
	}
	var buf bytes.Buffer
	buf.Grow(int(length) + bytes.MinRead) // ReadFrom wants MinRead free to read the EOF
	_, err := buf.ReadFrom(body)
	return buf.Bytes(), err
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}
