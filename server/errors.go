package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/template"
)

// Error types, as the OpenAI API spells them.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typeRateLimit      = "rate_limit_error"
	typeServer         = "server_error"
)

// apiError is an error answered with an HTTP status and OpenAI's error
// JSON: {"error": {"message", "type", "param", "code"}}.
type apiError struct {
	Status  int     `json:"-"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
	// RetryAfter, when positive, is sent as the Retry-After header (seconds).
	RetryAfter int `json:"-"`
}

func (e *apiError) Error() string { return e.Message }

// invalid returns a 400 invalid_request_error about param ("" for none).
func invalid(param, code, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, typeInvalidRequest, param, code, format, args...)
}

func newError(status int, typ, param, code, format string, args ...any) *apiError {
	e := &apiError{Status: status, Type: typ, Message: fmt.Sprintf(format, args...)}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	return e
}

// writeError answers err: an *apiError as it is, anything else classified
// by asError.
func writeError(w http.ResponseWriter, err error) {
	e := asError(err)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	writeJSON(w, e.Status, struct {
		Error *apiError `json:"error"`
	}{e})
}

// asError maps an error from the conversation layer to an API error: bad
// requests (schemas that do not compile, media without an encoder, a full
// context) are 400s, a timeout 504, a client gone 499, the rest 500. A
// chat template over its budget is a 500: the template is the model's or
// the server's (requests cannot send one), so it is not the client's
// fault.
func asError(err error) *apiError {
	var e *apiError
	if errors.As(err, &e) {
		return e
	}
	var ce *constrain.CompileError
	var tl *template.LimitError
	switch {
	case errors.As(err, &tl) && tl.Limit == template.LimitOutput:
		return invalid("messages", "context_length_exceeded", "the rendered prompt is too long: %v", err)
	case errors.As(err, &tl):
		return newError(http.StatusInternalServerError, typeServer, "", "template_limit",
			"the server's chat template went over its %s limit rendering this request; the model's template (or --chat-template) is at fault: %v", tl.Limit, err)
	case errors.As(err, &ce):
		return invalid("", "invalid_schema", "%v", err)
	case errors.Is(err, conversation.ErrNoEncoder):
		return invalid("messages", "unsupported_content", "%v", err)
	case errors.Is(err, session.ErrContextFull):
		return invalid("messages", "context_length_exceeded", "%v", err)
	case errors.Is(err, context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, typeServer, "", "timeout", "the request took longer than the server's time limit: %v", err)
	case errors.Is(err, context.Canceled):
		// The client went away (or the server is stopping); nobody reads this.
		return newError(499, typeServer, "", "cancelled", "the request was cancelled: %v", err)
	}
	return newError(http.StatusInternalServerError, typeServer, "", "", "%v", err)
}

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"encoding the response failed","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
