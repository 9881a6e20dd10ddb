// Package wording holds the English that people read for hitl's domain values: a status as a
// sentence says it, who an inquiry is for and who answered it, where a vote stands, who holds
// a claim, what a reminder did. The domain package keeps the values; the engine's messages,
// the inbox, the channels and the command line word them here, so that each phrase is written
// once and the domain says nothing in English.
package wording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Status is an inquiry's status as a sentence says it: "answered", "timed out".
func Status(s hitl.Status) string {
	switch s {
	case hitl.StatusResponded:
		return "answered"
	case hitl.StatusTimeout:
		return "timed out"
	}
	return string(s)
}

// Value is a JSON value as a person reads it: a string without its quotes, anything else as
// compact JSON (as it came, when it is no JSON).
func Value(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// SessionStatus is a session's status as a sentence says it: "awaiting input".
func SessionStatus(s hitl.SessionStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

// Fallback says what happens when nobody answers by the deadline, as a sentence ends it:
// "if nobody answers by then, the fallback value is used".
func Fallback(p hitl.FallbackPolicy) string {
	if p.AppliesValue() {
		return "the fallback value is used"
	}
	return "the agent is told nobody answered"
}

// RejectRule says when rejections end a vote: "the first rejection", "rejections from a
// majority of those who may vote", "2 rejections".
func RejectRule(r hitl.RejectRule) string {
	switch {
	case r.Majority:
		return "rejections from a majority of those who may vote"
	case r.Count <= 1:
		return "the first rejection"
	}
	return fmt.Sprintf("%d rejections", r.Count)
}

// Assignees names assignees as a sentence does: "alice and the group sre".
func Assignees(as []string) string {
	words := make([]string, len(as))
	for i, a := range as {
		if g, ok := hitl.GroupOf(a); ok {
			a = "the group " + g
		}
		words[i] = a
	}
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// AnsweredBy says who answered, as people read it: "alice", "alice@example.com via ops-bot"
// when a relay carried the answer, "bob for alice" when bob answered as the delegate of alice,
// who is away; "" when nobody has answered.
func AnsweredBy(inq *hitl.Inquiry) string {
	if inq.RespondedBy == nil {
		return ""
	}
	relayedBy, onBehalfOf := "", ""
	if inq.RelayedBy != nil {
		relayedBy = *inq.RelayedBy
	}
	if inq.OnBehalfOf != nil {
		onBehalfOf = *inq.OnBehalfOf
	}
	return by(*inq.RespondedBy, relayedBy, onBehalfOf)
}

// VoteBy says who voted: "alice", "alice via ops-bot" when a relay carried the vote, "bob for
// alice" when a delegate cast it.
func VoteBy(v *hitl.Vote) string { return by(v.By, v.RelayedBy, v.OnBehalfOf) }

// DeclinedBy says who declined to answer: "bob", or "bob for alice" when bob declined as the
// delegate of alice, who is away.
func DeclinedBy(name, onBehalfOf string) string { return by(name, "", onBehalfOf) }

// by is who answered or voted, for whom when a delegate did, and who carried it when a relay
// did: "bob for alice via ops-bot".
func by(by, relayedBy, onBehalfOf string) string {
	if onBehalfOf != "" {
		by += " for " + onBehalfOf
	}
	if relayedBy != "" {
		return by + " via " + relayedBy
	}
	return by
}

// Progress says where a vote stands: "1 of 2 approvals", "step 1 of 2 (the group sre): 0 of
// 1 approvals"; "" for inquiries that one answer decides.
func Progress(inq *hitl.Inquiry) string {
	if !inq.IsVote() {
		return ""
	}
	approvals := 0
	for _, v := range inq.CurrentVotes() {
		if v.Approved {
			approvals++
		}
	}
	votes := fmt.Sprintf("%d of %d approvals", approvals, inq.Required())
	if len(inq.Steps) == 0 || inq.Step() == nil {
		return votes
	}
	return fmt.Sprintf("step %d of %d (%s): %s", inq.CurrentStep, len(inq.Steps), Assignees(inq.Step().AssignedTo), votes)
}

// Claim says who holds the inquiry: "claimed by alice until 10:32:00 UTC"; "" when nobody
// does at now.
func Claim(inq *hitl.Inquiry, now time.Time) string {
	if !inq.Claim.Claimed(now) {
		return ""
	}
	return "claimed by " + inq.Claim.By + " until " + inq.Claim.ExpiresAt.UTC().Format("15:04:05 UTC")
}

// VoteRecorded tells the person by, whose vote on inq did not decide it, that the vote counts
// and what the inquiry still waits for: "Your approval is recorded: 1 of 2 approvals; inquiry
// 7 waits for the others." It is "" unless inq is a pending vote: once the votes decide it,
// the inquiry's answer says how it ended.
func VoteRecorded(inq *hitl.Inquiry, by string) string {
	if !inq.IsVote() || inq.Status != hitl.StatusPending {
		return ""
	}
	what := "vote"
	for _, v := range slices.Backward(inq.Votes) {
		if v.By == by {
			what = "rejection"
			if v.Approved {
				what = "approval"
			}
			break
		}
	}
	return fmt.Sprintf("Your %s is recorded: %s; inquiry %d waits for the others.", what, Progress(inq), inq.ID)
}

// Nudge says what an inquiry.reminded or inquiry.escalated event did: "reminded the assignees
// (2nd reminder)", "escalated to bob and the group leads"; "" for other events.
func Nudge(ev *hitl.Event) string {
	var d struct {
		AssignedTo []string `json:"assigned_to"`
		Reminder   int      `json:"reminder"`
		Added      []string `json:"added"`
	}
	if (ev.Type != hitl.EventInquiryReminded && ev.Type != hitl.EventInquiryEscalated) || json.Unmarshal(ev.Data, &d) != nil {
		return ""
	}
	if ev.Type == hitl.EventInquiryEscalated {
		if len(d.Added) == 0 {
			return "escalated; everyone it escalates to was assigned already"
		}
		return "escalated to " + Assignees(d.Added)
	}
	whom := "the assignees"
	if len(d.AssignedTo) == 0 {
		whom = "everyone who may answer"
	}
	return fmt.Sprintf("reminded %s (%s reminder)", whom, ordinal(d.Reminder))
}

// ordinal is 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// Outcome says how an inquiry ended, as a notification that replaces the question says it:
// "answered by alice", "timed out", "cancelled"; "" while it is pending.
func Outcome(inq *hitl.Inquiry) string {
	switch {
	case inq.Status == hitl.StatusResponded && inq.RespondedBy != nil:
		return "answered by " + AnsweredBy(inq)
	case inq.Status.Final():
		return Status(inq.Status)
	}
	return ""
}

// Capitalised is s with its first letter upper-case, for a phrase that starts a sentence or a
// title ("answered by ann" → "Answered by ann").
func Capitalised(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
