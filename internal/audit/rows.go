package audit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// What an inquiry's stored state is compared with beside its newest event.
//
// Its columns and the rows beside it. Lists, filters, stats, timers, who may see it and the
// conditional writes read copies of its fields that its row keeps beside the document
// (hitl.InquiryColumns): its status, session, origin, request type, asker, whether it is
// assigned to anyone, exclusive, its deadline, its time of creation and of its last change,
// its prompt, execution, responder and use of the fallback; and its rows in
// inquiry_assignees, inquiry_metadata and execution_inquiries. Each is compared with what its
// document (which its newest event carries) makes of it, as the store writes it. Three are
// compared only while it is pending: its timers (next_reminder_at, escalate_at,
// claim_expires_at), which only reads of pending inquiries use, and which an answer leaves as
// they were while the document drops its reminder and claim. Its rows of inquiry_assignees
// are its assignees now, and as earlier ones those of its chain's earlier steps; a row of
// execution_inquiries that names it must name its execution (whether it has one cannot be
// told: only an inquiry that an execution's result asked has it). Its idempotency keys are
// left alone: they hold a request's key and hash, which no event carries, and expire.
//
// What is fixed at its creation. A pending inquiry edited in the database and then changed by
// hitl (claimed, voted on, reminded, answered) goes into that change's event as it was read,
// so its newest event agrees with the edit. What no change alters after its inquiry.created
// event is therefore compared with that event too: everything but the members fixedPart
// clears, which the answer, the deadline, a cancellation, a claim, a vote, a chain's next
// step, a reminder, an escalation, a promotion or the agent's resuming change (engine/inquiry.go's
// resolved, claims.go, approvals.go, nudges.go, dedup.go, resume.go). Of those, two follow from the
// rest and are compared too: its assignees (those it was created with; a chain's current
// step's; with escalate_to added by an escalation, unless it was open to everyone) and its
// deadline (a chain's own, or its current step's when sooner). The others (its answer, votes,
// claim, chain step, reminders, escalation) are as its newest event says: only replaying
// every change would check them.

// createdOf is the inquiry as its inquiry.created event carries it: st.Stored itself when that
// is its only event (or the store read no first event); a problem in words when the event is
// not one.
func createdOf(st *hitl.InquiryState) (*hitl.Inquiry, string) {
	first := st.First
	if first == nil || first.Seq == st.Newest.Seq {
		return st.Stored, ""
	}
	if first.Type != hitl.EventInquiryCreated {
		return nil, fmt.Sprintf("its first event (%d) is %s, not inquiry.created: its events were changed outside hitl", first.Seq, first.Type)
	}
	created := new(hitl.Inquiry)
	if err := json.Unmarshal(first.Data, created); err != nil {
		return nil, fmt.Sprintf("its inquiry.created event (%d) does not carry it: %v", first.Seq, err)
	}
	return created, ""
}

// compareColumns says how the columns of inq's row and the rows beside it (nil: not read)
// differ from what inq, its document, makes of them, "" when they do not; created is inq as
// created, ev its newest event.
func compareColumns(inq *hitl.Inquiry, cols *hitl.InquiryColumns, created *hitl.Inquiry, ev *hitl.Event) string {
	if cols == nil {
		return ""
	}
	var diffs []string
	column := func(name, have, want string) {
		if have != want {
			diffs = append(diffs, fmt.Sprintf("its %s column says %s but its events say %s", name, have, want))
		}
	}
	// What a store writes of the document.
	written := inq.Columns()
	column("status", word(string(cols.Status)), word(string(written.Status)))
	column("session", orNone(cols.Session), orNone(written.Session))
	column("origin", word(cols.Origin), word(written.Origin))
	column("request_type", word(string(cols.RequestType)), word(string(written.RequestType)))
	column("created_by", word(cols.CreatedBy), word(written.CreatedBy))
	column("unassigned", fmt.Sprint(cols.Unassigned), fmt.Sprint(written.Unassigned))
	column("exclusive", fmt.Sprint(cols.Exclusive), fmt.Sprint(written.Exclusive))
	column("timeout_at", when(cols.TimeoutAt), when(written.TimeoutAt))
	if inq.Status == hitl.StatusPending {
		column("next_reminder_at", when(cols.NextReminderAt), when(written.NextReminderAt))
		column("escalate_at", when(cols.EscalateAt), when(written.EscalateAt))
		column("claim_expires_at", when(cols.ClaimExpiresAt), when(written.ClaimExpiresAt))
	}
	column("created_at", when(&cols.CreatedAt), when(&written.CreatedAt))
	column("updated_at", when(&cols.UpdatedAt), when(&written.UpdatedAt))
	// PostgreSQL's text holds no NUL: its prompt column keeps the prompt without them.
	noNUL := func(s string) string { return strings.ReplaceAll(s, "\x00", "") }
	column("prompt", word(noNUL(cols.Prompt)), word(noNUL(written.Prompt)))
	column("execution", orNone(cols.Execution), orNone(written.Execution))
	column("responded_by", orNone(cols.RespondedBy), orNone(written.RespondedBy))
	column("fallback_applied", fmt.Sprint(cols.FallbackApplied), fmt.Sprint(written.FallbackApplied))

	rows := func(table, have, want string) {
		if have != want {
			diffs = append(diffs, fmt.Sprintf("its rows in %s say %s but its events say %s", table, have, want))
		}
	}
	var assignees []string
	for _, a := range cols.Assignees {
		assignees = append(assignees, assigneeRow(a))
	}
	rows("inquiry_assignees", list(assignees), list(expectedAssignees(inq, created)))
	var metadata, want []string
	for _, kv := range cols.Metadata {
		metadata = append(metadata, kv[0]+"="+kv[1])
	}
	for k, v := range inq.Metadata {
		want = append(want, k+"="+v)
	}
	rows("inquiry_metadata", list(metadata), list(want))
	for _, x := range cols.Executions {
		if x != inq.Execution {
			diffs = append(diffs, fmt.Sprintf("its row in execution_inquiries says execution %s asked it but its events say %s", word(x), orNone(written.Execution)))
			break
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (event %d)", strings.Join(diffs, ", and "), ev.Seq)
}

// expectedAssignees are the rows of inquiry_assignees that inq (created as created) has, as
// assigneeRow says them: its assignees now, and those it had before as earlier ones (see
// above).
func expectedAssignees(inq, created *hitl.Inquiry) []string {
	ever := slices.Clone(created.AssignedTo)
	for i := range min(max(inq.CurrentStep, 0), len(created.Steps)) {
		ever = append(ever, created.Steps[i].AssignedTo...)
	}
	var out []string
	for _, a := range slices.Compact(slices.Sorted(slices.Values(append(ever, inq.AssignedTo...)))) {
		out = append(out, assigneeRow(hitl.AssigneeRow{Name: a, Earlier: !slices.Contains(inq.AssignedTo, a)}))
	}
	return out
}

func assigneeRow(a hitl.AssigneeRow) string {
	if a.Earlier {
		return word(a.Name) + " (earlier)"
	}
	return word(a.Name)
}

// compareFixed says how what is fixed at an inquiry's creation differs in stored (its
// document, which its newest event carries) from created, the inquiry that its inquiry.created
// event first carries, "" when it does not: everything but what fixedPart clears, then its
// assignees and deadline, as created and the changes since make them (see above).
func compareFixed(stored, created *hitl.Inquiry, first *hitl.Event) string {
	// Most are the same values, read from the same JSON: no need to marshal them.
	if have, want := fixedPart(stored), fixedPart(created); !reflect.DeepEqual(have, want) {
		b, err := json.Marshal(have)
		if problem := differences(b, err, want, first, inquiryWords, "its inquiry.created event says"); problem != "" {
			return problem
		}
	}
	type following struct {
		AssignedTo []string   `json:"assigned_to"`
		TimeoutAt  *time.Time `json:"timeout_at"`
	}
	after := following{assigneesAfter(stored, created), deadlineAfter(stored, created)}
	if slices.Equal(stored.AssignedTo, after.AssignedTo) && sameTime(stored.TimeoutAt, after.TimeoutAt) {
		return ""
	}
	says := "its inquiry.created event says"
	if !slices.Equal(after.AssignedTo, created.AssignedTo) || !sameTime(after.TimeoutAt, created.TimeoutAt) {
		says = "its inquiry.created event and the changes since say"
	}
	b, err := json.Marshal(following{stored.AssignedTo, stored.TimeoutAt})
	return differences(b, err, after, first, inquiryWords, says)
}

// fixedPart is inq without what changes after its creation (see above), nor its assignees and
// deadline, which compareFixed compares apart; of a chain's steps it keeps who decides each,
// how many, and its time limit.
func fixedPart(inq *hitl.Inquiry) *hitl.Inquiry {
	out := *inq
	// The answer, the deadline, a cancellation (resolved) and the agent's resuming.
	out.Status, out.Response, out.Chosen, out.FallbackApplied, out.ToolResult = "", nil, nil, false, nil
	out.RespondedBy, out.RespondedByID, out.RelayedBy, out.OnBehalfOf, out.RespondedAt = nil, nil, nil, nil, nil
	out.Comment, out.CancelReason, out.DeclinedBy, out.ResumedAt, out.UpdatedAt = nil, nil, nil, nil, time.Time{}
	out.Receipt = "" // signed as the decision ends it
	out.Rule = nil   // set as a standing approval answers it (engine/rules.go)
	// Claims, votes and a chain's steps; reminders and the escalation.
	out.Claim, out.Votes, out.CurrentStep = nil, nil, 0
	out.NextReminderAt, out.RemindersSent, out.EscalatedAt = nil, 0, nil
	// The inquiry it joined, which a promotion changes (engine/dedup.go).
	out.Joined = nil
	if inq.Escalation != nil { // of a ladder, its steps; not how far it got
		out.Escalation = &hitl.Escalation{Steps: make([]hitl.EscalationStep, len(inq.Escalation.Steps))}
		for i, s := range inq.Escalation.Steps {
			out.Escalation.Steps[i] = hitl.EscalationStep{After: s.After, AssignedTo: s.AssignedTo, Channels: s.Channels}
		}
	}
	out.AssignedTo, out.TimeoutAt = nil, nil
	if inq.Steps != nil {
		out.Steps = make([]hitl.ApprovalStep, len(inq.Steps))
		for i, s := range inq.Steps {
			out.Steps[i] = hitl.ApprovalStep{AssignedTo: s.AssignedTo, Required: s.Required, TimeoutSeconds: s.TimeoutSeconds}
		}
	}
	return &out
}

// assigneesAfter is who inq, created as created, is assigned to after the changes its fields
// record: its chain's current step's (startStep), or those it was created with and, once it
// escalated, those of escalate_to (or of each ladder step reached) it lacked, unless it was
// open to everyone (nudged; a chain does not escalate).
func assigneesAfter(inq, created *hitl.Inquiry) []string {
	if n := inq.CurrentStep; len(created.Steps) > 0 && n >= 1 && n <= len(created.Steps) {
		return created.Steps[n-1].AssignedTo
	}
	out := created.AssignedTo
	if ladder := created.Escalation; ladder != nil && inq.Escalation != nil && len(out) > 0 {
		out = slices.Clone(out)
		for _, s := range ladder.Steps[:min(inq.Escalation.Reached, len(ladder.Steps))] {
			for _, a := range s.AssignedTo {
				if !slices.Contains(out, a) {
					out = append(out, a)
				}
			}
		}
		return out
	}
	if inq.EscalatedAt != nil && len(out) > 0 {
		out = slices.Clone(out)
		for _, a := range created.EscalateTo {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// deadlineAfter is inq's deadline, created as created, after the changes its fields record:
// the one it was created with, or a chain's own or its current step's, the sooner (startStep).
func deadlineAfter(inq, created *hitl.Inquiry) *time.Time {
	n := inq.CurrentStep
	if len(created.Steps) == 0 || n < 1 || n > len(created.Steps) || n > len(inq.Steps) {
		return created.TimeoutAt
	}
	var step *time.Time
	if began, limit := inq.Steps[n-1].StartedAt, created.Steps[n-1].TimeoutSeconds; began != nil && limit != nil {
		at := began.Add(time.Duration(*limit) * time.Second)
		step = &at
	}
	if chain := created.ChainTimeoutAt; chain != nil && (step == nil || !step.Before(*chain)) {
		return chain
	}
	return step
}

func sameTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }

// word is a text as a message says it: as it is when it is one word of letters, digits and
// ._:@-, quoted otherwise; cut short when long.
func word(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:@-", r))
	}) {
		return cut(s)
	}
	return cut(fmt.Sprintf("%q", s))
}

// cut is s cut short when long.
func cut(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:80], "") + "…"
}

func orNone(s *string) string {
	if s == nil {
		return "none"
	}
	return word(*s)
}

// when is a time as a message says it, to the microsecond a column keeps; "none" for nil.
func when(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
}

// list is a set of texts as a message says it, sorted; "none" when empty.
func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(slices.Values(items)), ", ")
}
