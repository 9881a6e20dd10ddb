package hitl

import "time"

// Delegation: a person away (on holiday, ill, at a conference) names a delegate who answers in
// their place for a period. The rules are the engine's; these are their shapes.

// Events of absences; like the other people events, only admins see them.
const (
	EventPersonAbsenceSet   = "person.absence_set"
	EventPersonAbsenceEnded = "person.absence_ended"
)

// MaxDelegationDepth is how many delegates a chain of absences is followed through: alice away
// → bob, bob away too → carol, carol away too → dave; a fourth delegate is not followed, and a
// chain that comes back to someone already in it stops there.
const MaxDelegationDepth = 3

// Absence is a period during which Person is away and Delegate answers in their place: what is
// assigned to Person by name may be answered by Delegate, "bob for alice", and the messages
// that would go to Person go to Delegate. A person has at most one absence; setting another
// replaces it.
type Absence struct {
	Person string `json:"person"`
	// From and Until bound the period: it holds from From (included) until Until (excluded).
	From     time.Time `json:"from"`
	Until    time.Time `json:"until"`
	Delegate string    `json:"delegate"`
	// SetBy is who set it: the person themself or an admin.
	SetBy string    `json:"set_by"`
	SetAt time.Time `json:"set_at"`
}

// ActiveAt tells whether the absence holds at t.
func (a *Absence) ActiveAt(t time.Time) bool { return !t.Before(a.From) && t.Before(a.Until) }

// AbsenceRequest is the body of PUT /v1/people/{name}/absence.
type AbsenceRequest struct {
	From     time.Time `json:"from"`
	Until    time.Time `json:"until"`
	Delegate string    `json:"delegate"`
}
