package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"time"
)

// decodeBody reads the request body (at most Config.MaxBodyBytes, within
// bodyReadTimeout) and decodes it as JSON into v.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	// Clear the deadline at once: the server's background read, which
	// notices a client going away, runs under it from now on.
	_ = rc.SetReadDeadline(time.Time{})
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return newError(http.StatusRequestEntityTooLarge, typeInvalidRequest, "", "request_too_large",
			"the request body is larger than the limit of %d bytes", tooBig.Limit)
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
