package hitl

import (
	"errors"
	"fmt"
	"strings"
)

// Stable, machine-readable error codes. httpapi maps each to one HTTP status.
const (
	EInvalid         = "invalid"
	EUnauthorized    = "unauthorized"
	EForbidden       = "forbidden"
	ENotFound        = "not_found"
	EConflict        = "conflict"
	ETooLarge        = "too_large"
	EInvalidResponse = "invalid_response"
	ERateLimited     = "rate_limited"
	EInternal        = "internal"
	EUnavailable     = "unavailable"
)

// Error is a domain error with a stable code and a message safe to show the caller.
type Error struct {
	Code    string
	Message string
	// Fields lists every problem with its JSON path, for invalid input and invalid answers.
	Fields []FieldError
	// Inquiry is the current state, for conflicts on an inquiry that is already final.
	Inquiry *Inquiry
}

// FieldError is one problem at one place of the input.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Detailed is the message followed by every problem it does not name yet, each once, joined
// by sep: the message names the first already ("invalid inquiry: /prompt: is required (and 2
// more)"), so the count goes and the others follow.
func (e *Error) Detailed(sep string) string {
	msg, fields := e.Message, e.Fields
	if len(fields) > 0 && strings.Contains(msg, fields[0].Message) {
		msg = strings.TrimSuffix(msg, fmt.Sprintf(" (and %d more)", len(fields)-1))
		fields = fields[1:]
	}
	parts := []string{msg}
	for _, f := range fields {
		parts = append(parts, f.Path+": "+f.Message)
	}
	return strings.Join(parts, sep)
}

// Errorf returns an Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of a domain error, EInternal for any other error, "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of a domain error; other errors are internal and say nothing more.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
