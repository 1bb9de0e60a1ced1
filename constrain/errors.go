package constrain

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by the compilers wraps one of them
// inside a [*CompileError]; matcher errors wrap [ErrTokenRejected].
var (
	// ErrSyntax reports malformed input (regex, JSON, grammar text).
	ErrSyntax = errors.New("syntax error")
	// ErrUnsupported reports a valid construct this package cannot compile.
	ErrUnsupported = errors.New("unsupported")
	// ErrInvalid reports a well-formed but meaningless constraint: undefined
	// rule, left recursion, a constraint that matches nothing, a size limit.
	ErrInvalid = errors.New("invalid constraint")
	// ErrTokenRejected reports a token that the constraint does not allow.
	ErrTokenRejected = errors.New("token rejected by constraint")
)

// CompileError describes a compile failure with its position: Line and Col
// (1-based, 0 when unknown) for text inputs, Pointer (a JSON pointer such as
// "/properties/age/minimum") for JSON Schemas.
type CompileError struct {
	// Lang names the input language: "regex", "json-schema", "gbnf", "lark" or "tools".
	Lang string
	// Line and Col locate the problem in text inputs (1-based; 0 if unknown).
	Line, Col int
	// Pointer locates the problem in a JSON Schema (RFC 6901).
	Pointer string
	// Msg describes the problem.
	Msg string
	// Err is the sentinel (ErrSyntax, ErrUnsupported, ErrInvalid) or an underlying cause.
	Err error
}

// Error implements error.
func (e *CompileError) Error() string {
	pos := ""
	switch {
	case e.Pointer != "" || (e.Lang == "json-schema" && e.Line == 0):
		p := e.Pointer
		if p == "" {
			p = "/"
		}
		pos = " at " + p
	case e.Line > 0:
		pos = fmt.Sprintf(" at %d:%d", e.Line, e.Col)
	}
	return fmt.Sprintf("constrain: %s%s: %s", e.Lang, pos, e.Msg)
}

// Unwrap returns the sentinel or underlying cause.
func (e *CompileError) Unwrap() error { return e.Err }

// TokenError reports a token rejected by [Matcher.Accept].
type TokenError struct {
	// Token is the rejected token id.
	Token int32
	// Reason explains the rejection.
	Reason string
}

// Error implements error.
func (e *TokenError) Error() string {
	return fmt.Sprintf("constrain: token %d: %s", e.Token, e.Reason)
}

// Unwrap returns ErrTokenRejected.
func (e *TokenError) Unwrap() error { return ErrTokenRejected }

// lineCol converts a byte offset in src into a 1-based line and column.
func lineCol(src string, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
