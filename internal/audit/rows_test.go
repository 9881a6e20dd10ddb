package audit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

var created0 = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time {
	t := created0.Add(d)
	return &t
}

// columnsOf is what a store writes of inq beside its document.
func columnsOf(inq *hitl.Inquiry) *hitl.InquiryColumns {
	c := new(hitl.InquiryColumns)
	*c = inq.Columns()
	for _, a := range inq.AssignedTo {
		c.AddRow("inquiry_assignees", a, "")
	}
	for k, v := range inq.Metadata {
		c.AddRow("inquiry_metadata", k, v)
	}
	return c
}

// state is inq stored as it is, with the columns a store writes of it (changed by edit), its
// newest event carrying it and its first carrying created.
func state(t *testing.T, inq, created *hitl.Inquiry, edit func(*hitl.InquiryColumns)) *hitl.InquiryState {
	t.Helper()
	cols := columnsOf(inq)
	if edit != nil {
		edit(cols)
	}
	first := inquiryEvent(t, 3, created, "")
	first.Type = hitl.EventInquiryCreated
	return &hitl.InquiryState{Key: inq.ID, Stored: inq, Columns: cols, First: first, Newest: inquiryEvent(t, 9, inq, "")}
}

func pendingInquiry(mods ...func(*hitl.Inquiry)) *hitl.Inquiry {
	inq := &hitl.Inquiry{ID: 12, Status: hitl.StatusPending, Prompt: "Ship?", RequestType: hitl.RequestApproval, CreatedBy: "bot",
		Session: "run-1", AssignedTo: []string{"ann"}, Metadata: map[string]string{"team": "sre"}, TimeoutAt: at(time.Hour),
		CreatedAt: created0, UpdatedAt: created0}
	for _, m := range mods {
		m(inq)
	}
	return inq
}

// Every column and row beside the document is compared with what the document makes of it,
// and named in words; the timers only while the inquiry is pending.
func TestCompareColumns(t *testing.T) {
	inq := pendingInquiry()
	for _, c := range []struct {
		name string
		edit func(*hitl.InquiryColumns)
		want string
	}{
		{"none", nil, ""},
		{"the status", func(c *hitl.InquiryColumns) { c.Status = hitl.StatusCancelled }, "inquiry 12: its status column says cancelled but its events say pending (event 9)"},
		{"the session", func(c *hitl.InquiryColumns) { c.Session = nil }, "inquiry 12: its session column says none but its events say run-1 (event 9)"},
		{"two columns", func(c *hitl.InquiryColumns) { c.CreatedBy, c.Unassigned = "someone", true },
			"inquiry 12: its created_by column says someone but its events say bot, and its unassigned column says true but its events say false (event 9)"},
		{"a time", func(c *hitl.InquiryColumns) { c.TimeoutAt = at(2 * time.Hour) },
			"inquiry 12: its timeout_at column says 2026-11-25T10:00:00Z but its events say 2026-11-25T09:00:00Z (event 9)"},
		{"a claim's timer", func(c *hitl.InquiryColumns) { c.ClaimExpiresAt = at(time.Minute) },
			"inquiry 12: its claim_expires_at column says 2026-11-25T08:01:00Z but its events say none (event 9)"},
		{"the prompt", func(c *hitl.InquiryColumns) { c.Prompt = "Ship now!" }, `inquiry 12: its prompt column says "Ship now!" but its events say "Ship?" (event 9)`},
		{"an assignee", func(c *hitl.InquiryColumns) { c.AddRow("inquiry_assignees", "mallory", "earlier") },
			"inquiry 12: its rows in inquiry_assignees say ann, mallory (earlier) but its events say ann (event 9)"},
		{"metadata", func(c *hitl.InquiryColumns) { c.Metadata = nil }, "inquiry 12: its rows in inquiry_metadata say none but its events say team=sre (event 9)"},
	} {
		got := compareInquiry(state(t, inq, inq, c.edit))
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: %v; want no mismatch", c.name, got)
		case c.want != "" && (got == nil || got.Error() != c.want):
			t.Errorf("%s: %v; want %q", c.name, got, c.want)
		}
	}
	// An answer drops the reminder and the claim from the document, and leaves their columns.
	answered := pendingInquiry(func(i *hitl.Inquiry) { i.Status, i.UpdatedAt = hitl.StatusResponded, created0.Add(time.Minute) })
	if m := compareInquiry(state(t, answered, inq, func(c *hitl.InquiryColumns) { c.NextReminderAt, c.ClaimExpiresAt = at(time.Minute), at(time.Minute) })); m != nil {
		t.Errorf("the timers of an answered inquiry: %v", m)
	}
}

// What is fixed at an inquiry's creation is compared with its inquiry.created event, and its
// assignees and deadline with what that event and the changes since make them: a chain's
// current step, an escalation.
func TestCompareFixed(t *testing.T) {
	chain := func(mods ...func(*hitl.Inquiry)) *hitl.Inquiry {
		return pendingInquiry(append([]func(*hitl.Inquiry){func(i *hitl.Inquiry) {
			i.Steps = []hitl.ApprovalStep{{AssignedTo: hitl.Assignees{"ann"}, Required: 1, StartedAt: &created0},
				{AssignedTo: hitl.Assignees{"bob", "cy"}, Required: 1, TimeoutSeconds: new(int64(600))}}
			i.CurrentStep, i.ChainTimeoutAt = 1, at(time.Hour)
		}}, mods...)...)
	}
	secondStep := func(i *hitl.Inquiry) {
		i.Steps = append([]hitl.ApprovalStep{}, i.Steps...)
		i.Steps[0].CompletedAt, i.Steps[1].StartedAt, i.Steps[1].TimeoutAt = at(10*time.Minute), at(10*time.Minute), at(20*time.Minute)
		i.CurrentStep, i.AssignedTo, i.TimeoutAt = 2, []string{"bob", "cy"}, at(20*time.Minute)
		i.Votes = []hitl.Vote{{By: "ann", Approved: true, At: created0.Add(10 * time.Minute), Step: 1}}
	}
	escalating := func(i *hitl.Inquiry) {
		i.EscalateAfter, i.EscalateTo = new(hitl.Duration(1800)), []string{"dan", "ann"}
	}
	escalated := func(after time.Duration, to ...string) func(*hitl.Inquiry) {
		return func(i *hitl.Inquiry) {
			i.EscalatedAt = at(after)
			if to != nil {
				i.AssignedTo = to
			}
		}
	}
	for _, c := range []struct {
		name            string
		created, stored *hitl.Inquiry
		want            string
		rowsOf          func(*hitl.InquiryColumns)
	}{
		{"answered", pendingInquiry(), pendingInquiry(func(i *hitl.Inquiry) {
			by := "ann"
			i.Status, i.Response, i.RespondedBy, i.RespondedAt, i.UpdatedAt = hitl.StatusResponded, json.RawMessage(`true`), &by, at(time.Minute), created0.Add(time.Minute)
		}), "", nil},
		{"a prompt", pendingInquiry(), pendingInquiry(func(i *hitl.Inquiry) { i.Prompt, i.UpdatedAt = "Ship now!", created0.Add(time.Minute) }),
			`inquiry 12: the stored prompt is "Ship now!" but its inquiry.created event says "Ship?" (event 3)`, nil},
		{"an assignee", pendingInquiry(), pendingInquiry(func(i *hitl.Inquiry) { i.AssignedTo = []string{"cfo"} }),
			`inquiry 12: the stored assignees are ["cfo"] but its inquiry.created event says ["ann"] (event 3)`, func(c *hitl.InquiryColumns) {
				c.Assignees = []hitl.AssigneeRow{{Name: "ann", Earlier: true}, {Name: "cfo"}}
			}},
		{"a deadline", pendingInquiry(), pendingInquiry(func(i *hitl.Inquiry) { i.TimeoutAt = at(48 * time.Hour) }),
			`inquiry 12: the stored deadline is "2026-11-27T08:00:00Z" but its inquiry.created event says "2026-11-25T09:00:00Z" (event 3)`, nil},
		{"a chain's second step", chain(), chain(secondStep), "", func(c *hitl.InquiryColumns) {
			c.Assignees = []hitl.AssigneeRow{{Name: "ann", Earlier: true}, {Name: "bob"}, {Name: "cy"}}
		}},
		{"a chain's step edited", chain(), chain(secondStep, func(i *hitl.Inquiry) { i.AssignedTo = []string{"mallory"} }),
			`inquiry 12: the stored assignees are ["mallory"] but its inquiry.created event and the changes since say ["bob","cy"] (event 3)`, func(c *hitl.InquiryColumns) {
				c.Assignees = []hitl.AssigneeRow{{Name: "ann", Earlier: true}, {Name: "bob", Earlier: true}, {Name: "cy", Earlier: true}, {Name: "mallory"}}
			}},
		{"a chain's step's people edited", chain(), chain(secondStep, func(i *hitl.Inquiry) { i.Steps[1].AssignedTo = hitl.Assignees{"mallory"} }),
			`inquiry 12: the stored steps of its chain are`, func(c *hitl.InquiryColumns) {
				c.Assignees = []hitl.AssigneeRow{{Name: "ann", Earlier: true}, {Name: "bob"}, {Name: "cy"}}
			}},
		{"escalated", pendingInquiry(escalating), pendingInquiry(escalating, escalated(30*time.Minute, "ann", "dan")), "", nil},
		{"open to everyone, escalated", pendingInquiry(escalating, func(i *hitl.Inquiry) { i.AssignedTo = []string{} }),
			pendingInquiry(escalating, func(i *hitl.Inquiry) { i.AssignedTo = []string{} }, escalated(30*time.Minute)), "", nil},
		{"not escalated", pendingInquiry(escalating), pendingInquiry(escalating, func(i *hitl.Inquiry) { i.AssignedTo = []string{"ann", "dan"} }),
			`inquiry 12: the stored assignees are ["ann","dan"] but its inquiry.created event says ["ann"] (event 3)`, nil},
	} {
		got := compareInquiry(state(t, c.stored, c.created, c.rowsOf))
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: %v; want no mismatch", c.name, got)
		case c.want != "" && (got == nil || !strings.HasPrefix(got.Error(), c.want)):
			t.Errorf("%s: %v; want %q", c.name, got, c.want)
		}
	}
	// Its first event must be its creation.
	st := state(t, pendingInquiry(func(i *hitl.Inquiry) { i.UpdatedAt = created0.Add(time.Minute) }), pendingInquiry(), nil)
	st.First.Type = hitl.EventInquiryResponded
	if m := compareInquiry(st); m == nil || m.Error() != "inquiry 12: its first event (3) is inquiry.responded, not inquiry.created: its events were changed outside hitl" {
		t.Errorf("a first event that is not the creation: %v", m)
	}
}

// A session's owner, key and time of creation are its first event's.
func TestCompareSessionWithItsFirstEvent(t *testing.T) {
	session := func(owner string, state string) *hitl.Session {
		return &hitl.Session{Key: "run-1", Status: hitl.SessionRunning, Agent: "a", CreatedBy: owner, State: json.RawMessage(state),
			Metadata: map[string]string{}, CreatedAt: created0, UpdatedAt: created0}
	}
	event := func(seq int64, s *hitl.Session) *hitl.Event {
		data, _ := json.Marshal(s)
		return &hitl.Event{Seq: seq, Type: hitl.EventSessionUpdated, Session: s.Key, Data: data}
	}
	if m := compareSession(&hitl.SessionState{Key: "run-1", Stored: session("bot", `2`), First: event(3, session("bot", `1`)), Newest: event(9, session("bot", `2`))}); m != nil {
		t.Errorf("a session changed by its owner: %v", m)
	}
	m := compareSession(&hitl.SessionState{Key: "run-1", Stored: session("mallory", `2`), First: event(3, session("bot", `1`)), Newest: event(9, session("mallory", `2`))})
	if want := `session run-1: the stored owner is "mallory" but its first event says "bot" (event 3)`; m == nil || m.Error() != want {
		t.Errorf("a session whose owner was edited before it changed: %v; want %q", m, want)
	}
}
