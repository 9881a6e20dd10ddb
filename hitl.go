// Package hitl holds the domain of the human-in-the-loop server: inquiries (questions an
// agent asks a human), sessions (agent runs), the append-only event log, principals, the
// error type with stable codes, and the Store interface that persistence implements.
//
// It depends on the standard library only. Every business rule lives in package engine;
// stores persist what the engine decided.
package hitl

import (
	"encoding/json"
	"slices"
	"time"
)

// Status is where an inquiry is in its life. Pending is the only non-final status.
type Status string

const (
	StatusPending   Status = "pending"
	StatusResponded Status = "responded"
	StatusTimeout   Status = "timeout"
	StatusCancelled Status = "cancelled"
)

// statuses are the four statuses, in the order of an inquiry's life.
var statuses = [...]Status{StatusPending, StatusResponded, StatusTimeout, StatusCancelled}

// Statuses are the four statuses, in the order of an inquiry's life: for the lists that offer
// them (the CLI's completion), so that none is left out.
func Statuses() []Status { return slices.Clone(statuses[:]) }

// Final reports whether nothing may change the inquiry any more.
func (s Status) Final() bool { return s != StatusPending }

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool { return slices.Contains(statuses[:], s) }

// RequestType says what kind of answer an inquiry expects; it picks the default schema.
type RequestType string

const (
	RequestApproval      RequestType = "approval"
	RequestClarification RequestType = "clarification"
	RequestSelection     RequestType = "selection"
	RequestInput         RequestType = "input"
)

// requestTypes are the known request types.
var requestTypes = [...]RequestType{RequestApproval, RequestClarification, RequestSelection, RequestInput}

// RequestTypes are the known request types, for the lists and messages that name them all.
func RequestTypes() []RequestType { return slices.Clone(requestTypes[:]) }

// Valid reports whether t is a known request type.
func (t RequestType) Valid() bool { return slices.Contains(requestTypes[:], t) }

// FallbackPolicy says what a timed-out inquiry answers on the human's behalf.
type FallbackPolicy string

const (
	FallbackFail                  FallbackPolicy = "fail"
	FallbackCompleteWithFallback  FallbackPolicy = "complete_with_fallback"
	FallbackUseDefaultAndContinue FallbackPolicy = "use_default_and_continue"
)

// Valid reports whether p is a known policy.
func (p FallbackPolicy) Valid() bool {
	switch p {
	case FallbackFail, FallbackCompleteWithFallback, FallbackUseDefaultAndContinue:
		return true
	}
	return false
}

// AppliesValue reports whether the policy answers with the fallback value on timeout.
func (p FallbackPolicy) AppliesValue() bool {
	return p == FallbackCompleteWithFallback || p == FallbackUseDefaultAndContinue
}

// UTC returns t in UTC truncated to microseconds, the precision every store keeps,
// so that a value read back equals the value written.
func UTC(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// IsNull reports whether a raw JSON value is absent or null.
func IsNull(m json.RawMessage) bool { return len(m) == 0 || string(m) == "null" }

// OrNull is m, or JSON null when it is absent: for the protocols' shapes, whose fields are
// always present.
func OrNull(m json.RawMessage) json.RawMessage {
	if IsNull(m) {
		return json.RawMessage("null")
	}
	return m
}
