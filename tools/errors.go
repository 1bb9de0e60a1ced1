package tools

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownTool is matched (with errors.Is) by the error returned for a
// tool name that is not defined.
var ErrUnknownTool = errors.New("unknown tool")

// ArgumentError reports one problem with the arguments a model passed to a
// tool. Path names the field: "location", "filter.max_age", "items[2].name";
// it is empty for a problem with the arguments as a whole.
type ArgumentError struct {
	Path    string
	Problem string
}

// Error formats the problem as `argument "path": problem`.
func (e *ArgumentError) Error() string {
	if e.Path == "" {
		return "arguments: " + e.Problem
	}
	return fmt.Sprintf("argument %q: %s", e.Path, e.Problem)
}

// ArgumentErrors is every problem found in one set of arguments, in field
// order. Its message lists them all so a model can fix them in one retry.
type ArgumentErrors []*ArgumentError

// Error joins the problems with "; ".
func (e ArgumentErrors) Error() string {
	parts := make([]string, len(e))
	for i, a := range e {
		parts[i] = a.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the individual problems, so errors.As finds an
// *ArgumentError.
func (e ArgumentErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, a := range e {
		out[i] = a
	}
	return out
}

// UnknownToolError is returned when a model calls a tool that is not defined.
type UnknownToolError struct {
	Name    string
	Defined []string
}

// Error names the unknown tool and lists the defined ones.
func (e *UnknownToolError) Error() string {
	if len(e.Defined) == 0 {
		return fmt.Sprintf("tool %q is not defined; no tools are defined", e.Name)
	}
	return fmt.Sprintf("tool %q is not defined; defined tools: %s", e.Name, strings.Join(e.Defined, ", "))
}

// Is reports whether target is ErrUnknownTool.
func (e *UnknownToolError) Is(target error) bool { return target == ErrUnknownTool }

// PanicError is returned when a tool function panics. Value is what was
// passed to panic; Stack is the goroutine stack at the time, for logs.
type PanicError struct {
	Value any
	Stack []byte
}

// Error reports the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
