package template

import "fmt"

// RaiseError is returned by Render when the template itself calls
// raise_exception(message); Message is the template's message, unchanged.
type RaiseError struct {
	Message string
}

// Error returns the template's message.
func (e *RaiseError) Error() string { return e.Message }

// ParseError is returned by Parse for template text that does not compile.
// Line is the 1-based line the problem was found on, or 0 when unknown.
type ParseError struct {
	Line int
	Err  error
}

// Error describes the problem and names the line.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("parse chat template: line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("parse chat template: %v", e.Err)
}

// Unwrap returns the underlying parser error.
func (e *ParseError) Unwrap() error { return e.Err }
