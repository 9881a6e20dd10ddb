package hitl

import "testing"

// Every problem once: the message names the first, the others follow without the count.
func TestDetailedNamesEveryProblemOnce(t *testing.T) {
	e := &Error{Code: EInvalid, Message: "invalid inquiry: /prompt: is required (and 1 more)",
		Fields: []FieldError{{"/prompt", "is required"}, {"/timeout_seconds", "must be positive"}}}
	if got, want := e.Detailed("; "), "invalid inquiry: /prompt: is required; /timeout_seconds: must be positive"; got != want {
		t.Errorf("Detailed = %q, want %q", got, want)
	}
	one := &Error{Code: EInvalid, Message: "invalid inquiry: /prompt: is required", Fields: []FieldError{{"/prompt", "is required"}}}
	if got := one.Detailed("; "); got != one.Message {
		t.Errorf("Detailed of one problem = %q", got)
	}
	other := &Error{Code: EInvalid, Message: "the body is not JSON", Fields: []FieldError{{"/x", "is odd"}}}
	if got, want := other.Detailed("\n"), "the body is not JSON\n/x: is odd"; got != want {
		t.Errorf("Detailed = %q, want %q", got, want)
	}
}
