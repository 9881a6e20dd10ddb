package hitl

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Approvals by several people: a quorum of votes, a chain of steps, a claim that keeps others
// from answering while one person works on it, and pools that hand an inquiry to one member
// of a group. The rules are the engine's; these are their shapes.

// Events of approvals by several people and of claims. Each carries the inquiry after the
// change (Data), plus what the change was.
const (
	// EventInquiryVoted: a vote that did not decide the inquiry (Data: the inquiry and "vote").
	// The vote that decides it is in the inquiry.responded event's response.
	EventInquiryVoted = "inquiry.voted"
	// EventInquiryStepCompleted: a step of a chain approved, and the next one began (Data: the
	// inquiry, "step", the number of the step completed, and "added", the next step's assignees).
	EventInquiryStepCompleted = "inquiry.step_completed"
	// EventInquiryClaimed and EventInquiryReleased: someone took the inquiry to answer it, and
	// gave it back, or their claim expired or an admin broke it (Data: the inquiry and "claim",
	// and for a release "reason": released, expired or broken).
	EventInquiryClaimed  = "inquiry.claimed"
	EventInquiryReleased = "inquiry.released"
	// EventInquiryAssigned: a pool picked the person to answer (Data: the inquiry, "pool" and
	// "assigned", the person picked).
	EventInquiryAssigned = "inquiry.assigned"
)

// PendingChanges are the events that change a pending inquiry without resolving it: they are
// for people and screens; a resume callback wakes its agent for changes of state only.
var PendingChanges = []string{EventInquiryReminded, EventInquiryEscalated, EventInquiryVoted, EventInquiryStepCompleted,
	EventInquiryClaimed, EventInquiryReleased, EventInquiryAssigned, EventInquiryPromoted, EventInquiryRejoined}

// PoolPrefix marks an assignee entry that names a pool: one member of the group is picked.
const PoolPrefix = "pool:"

// ApprovalAnswer is the answer to an approval with the default schema: {"approved": …}, with
// the comment when there is one, as every channel gives it (Slack's buttons, an email reply,
// the inbox's form and "Approve selected", hitl respond --approve).
func ApprovalAnswer(approved bool, comment string) json.RawMessage {
	v := map[string]any{"approved": approved}
	if comment != "" {
		v["comment"] = comment
	}
	answer, _ := json.Marshal(v)
	return answer
}

// ApprovalResponse is the request that answers an approval with the default schema: the
// answer is ApprovalAnswer, which keeps the comment as that schema has it (clients read
// response.comment), and the comment is the answer's comment too, as every way of answering
// sets it (the inquiry's top-level comment).
func ApprovalResponse(approved bool, comment string) *ResponseRequest {
	return &ResponseRequest{Response: ApprovalAnswer(approved, comment), Comment: comment}
}

// GroupPrefix marks an assignee entry that names a group: each member may answer.
const GroupPrefix = "group:"

// GroupEntry is the assignee entry that names the group.
func GroupEntry(name string) string { return GroupPrefix + name }

// GroupOf reads a group:NAME entry.
func GroupOf(entry string) (name string, ok bool) { return strings.CutPrefix(entry, GroupPrefix) }

// Quorum asks for several approvals: Required distinct people must approve; Reject says how
// many rejections end it.
type Quorum struct {
	Required int        `json:"required"`
	Reject   RejectRule `json:"reject"`
}

// RejectRule is when rejections end a vote: "any" (the first one, the default), "majority"
// (more than half of the people who may vote), or a number of rejections.
type RejectRule struct {
	Majority bool
	// Count is the number of rejections that end it; 1 is "any".
	Count int
}

// MarshalJSON writes "any", "majority" or the number.
func (r RejectRule) MarshalJSON() ([]byte, error) {
	switch {
	case r.Majority:
		return []byte(`"majority"`), nil
	case r.Count <= 1:
		return []byte(`"any"`), nil
	}
	return []byte(strconv.Itoa(r.Count)), nil
}

var errRejectRule = errors.New(`reject is "any", "majority" or a number of rejections (at least 1)`)

// UnmarshalJSON reads "any", "majority" or a positive integer.
func (r *RejectRule) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case `"any"`, "null":
		*r = RejectRule{Count: 1}
		return nil
	case `"majority"`:
		*r = RejectRule{Majority: true}
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 1 {
		return errRejectRule
	}
	*r = RejectRule{Count: n}
	return nil
}

// Vote is one person's answer to an approval that several people decide.
type Vote struct {
	By       string    `json:"by"`
	Approved bool      `json:"approved"`
	Comment  string    `json:"comment,omitempty"`
	At       time.Time `json:"at"`
	// Step is the number of the chain's step the vote was cast in (1, 2, ...); 0 outside chains.
	Step int `json:"step,omitempty"`
	// RelayedBy is the principal that carried the vote, when not its voter.
	RelayedBy string `json:"relayed_by,omitempty"`
	// OnBehalfOf is the absent person the voter voted for, as their delegate: the vote counts
	// once, for both of them.
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	// AllowFor and AllowArgs are the standing approval the voter asked for with their approval
	// (ResponseRequest.AllowFor): when the quorum approves, the approving voters who asked make
	// one rule together, which may approve inquiries that need as many approvals (rule.go).
	AllowFor  string `json:"allow_for,omitempty"`
	AllowArgs string `json:"allow_args,omitempty"`
}

// Covers tells whether the vote is name's: cast by them, or for them by a delegate.
func (v *Vote) Covers(name string) bool { return v.By == name || v.OnBehalfOf == name }

// VoteOutcome is the response of an inquiry that votes decided.
type VoteOutcome struct {
	Approved bool   `json:"approved"`
	Votes    []Vote `json:"votes"`
}

// ApprovalStep is one step of a chain: its assignees, how many of them must approve, and how
// long it may take. The chain fills in the times as it runs.
type ApprovalStep struct {
	AssignedTo     Assignees `json:"assigned_to"`
	Required       int       `json:"required"`
	TimeoutSeconds *int64    `json:"timeout_seconds,omitempty"`
	// StartedAt is when the step became current (nil for steps not reached yet); TimeoutAt its
	// deadline, from then; CompletedAt when it approved.
	StartedAt   *time.Time `json:"started_at,omitempty"`
	TimeoutAt   *time.Time `json:"timeout_at,omitempty"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
}

// InquiryClaim says that one person is answering the inquiry: until it expires, or they release it
// or answer, nobody else may answer.
type InquiryClaim struct {
	By        string    `json:"by"`
	At        time.Time `json:"at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// ClaimRequest is the body of POST /v1/inquiries/{id}/claim; all of it is optional.
type ClaimRequest struct {
	// TTLSeconds is how long the claim holds; nil: 15 minutes.
	TTLSeconds *int64 `json:"ttl_seconds,omitempty"`
}

// Claimed reports whether c holds the inquiry at now.
func (c *InquiryClaim) Claimed(now time.Time) bool { return c != nil && now.Before(c.ExpiresAt) }

// IsVote tells whether the inquiry's answers are votes: a quorum or a chain.
func (inq *Inquiry) IsVote() bool { return inq.Quorum != nil || len(inq.Steps) > 0 }

// Step is the current step of a chain (nil outside chains or once it has ended).
func (inq *Inquiry) Step() *ApprovalStep {
	if inq.CurrentStep < 1 || inq.CurrentStep > len(inq.Steps) {
		return nil
	}
	return &inq.Steps[inq.CurrentStep-1]
}

// Required is how many approvals the current vote needs: the quorum's, or the current step's.
func (inq *Inquiry) Required() int {
	if s := inq.Step(); s != nil {
		return s.Required
	}
	if inq.Quorum != nil {
		return inq.Quorum.Required
	}
	return 1
}

// VotesIn are the votes cast in a step (0: all of them, as in a quorum).
func (inq *Inquiry) VotesIn(step int) []Vote {
	var out []Vote
	for _, v := range inq.Votes {
		if step == 0 || v.Step == step {
			out = append(out, v)
		}
	}
	return out
}

// CurrentVotes are the votes of the current vote: all of a quorum's, the current step's of a
// chain.
func (inq *Inquiry) CurrentVotes() []Vote {
	if len(inq.Steps) == 0 {
		return inq.VotesIn(0)
	}
	return inq.VotesIn(inq.CurrentStep)
}

// VoteOf is the vote a person cast in the current vote (the current step of a chain), nil
// when they have not voted.
func (inq *Inquiry) VoteOf(name string) *Vote {
	for i, v := range inq.Votes {
		if v.By == name && (len(inq.Steps) == 0 || v.Step == inq.CurrentStep) {
			return &inq.Votes[i]
		}
	}
	return nil
}

// Seen lists every entry that ever was among the inquiry's assignees: for a chain, those of
// the steps reached so far, whose people keep seeing what they voted on.
func (inq *Inquiry) Seen() []string {
	if len(inq.Steps) == 0 {
		return inq.AssignedTo
	}
	var out []string
	for i, s := range inq.Steps {
		if i >= inq.CurrentStep && inq.CurrentStep > 0 {
			break
		}
		for _, a := range s.AssignedTo {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// PoolOf reads a pool:NAME entry.
func PoolOf(entry string) (group string, ok bool) { return strings.CutPrefix(entry, PoolPrefix) }
