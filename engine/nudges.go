package engine

import (
	"context"
	"slices"
	"time"

	"github.com/hitl-dev/hitl"
)

// nudge fires the reminders and escalations due among ids, in one transaction. Each is a
// write of the inquiry's timers conditional on where they stood, with its event, so it fires
// once whichever nodes hold the timer; a reminder overdue by several intervals (the server was
// down) fires once, and the next one comes an interval after now. The next times wait for
// working hours (hours.go), read once for the batch.
func (e *Engine) nudge(ctx context.Context, ids []int64) {
	hours, err := e.allPeopleHours(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("reading working hours failed; retrying in a second", "inquiries", len(ids), "err", err)
			for _, id := range ids {
				e.nudges.Add(id, e.clock().Add(time.Second))
			}
		}
		return
	}
	e.fireTimers(ctx, e.nudges, ids, "reminding or escalating inquiries", func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, *time.Time, error) {
		return remindOrEscalate(tx, cur, now, hours)
	})
}

// remindOrEscalate leaves an inquiry past its deadline alone: the deadline's timer takes it.
func remindOrEscalate(tx hitl.Tx, cur *hitl.Inquiry, now time.Time, hours workingHours) ([]*hitl.Event, *time.Time, error) {
	if cur.TimeoutAt != nil && !now.Before(*cur.TimeoutAt) {
		return nil, nil, nil
	}
	out, steps, reminded := nudged(cur, now, hours)
	if len(steps) == 0 && !reminded {
		return nil, cur.NextNudge(), nil // the wall clock is behind the timer
	}
	if err := tx.NudgeInquiry(out, cur); err != nil {
		return nil, nil, err
	}
	var evs []*hitl.Event
	for _, st := range steps {
		data := struct {
			*hitl.Inquiry
			Added []string `json:"added"`
			// Step is the ladder's step that fired (1, 2, ...), Channels those it notifies by
			// (empty: the people's own); events of inquiries from before ladders have neither.
			Step     int      `json:"step,omitempty"`
			Channels []string `json:"channels,omitempty"`
		}{out, st.added, st.number, st.channels}
		ev, err := appendInquiryEventWith(tx, hitl.EventInquiryEscalated, out, data, "system", now)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, ev)
	}
	if reminded {
		data := struct {
			*hitl.Inquiry
			Reminder int `json:"reminder"`
		}{out, out.RemindersSent}
		ev, err := appendInquiryEventWith(tx, hitl.EventInquiryReminded, out, data, "system", now)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil, nil
}

// firedStep is one escalation that fired: its step on the ladder (0 for an inquiry stored
// before ladders), the assignees it added and the channels it notifies by.
type firedStep struct {
	number   int
	added    []string
	channels []string
}

// nudged is cur after the reminder and the escalation steps due at now: steps are those that
// fire now, each with the entries of its assignees the inquiry was not assigned to already.
// An unassigned inquiry, open to every responder, stays so: escalating it notifies the step's
// assignees (all of them added) without narrowing who may answer. Steps whose time (waiting
// for working hours) has come by now all fire, in order; the next step's time and the next
// reminder's wait for the working hours of those they reach.
func nudged(cur *hitl.Inquiry, now time.Time, hours workingHours) (out *hitl.Inquiry, steps []firedStep, reminded bool) {
	next := *cur
	out = &next
	escalate := func(to []string) []string {
		added := []string{}
		for _, a := range to {
			if !slices.Contains(out.AssignedTo, a) {
				added = append(added, a)
			}
		}
		if len(out.AssignedTo) > 0 {
			out.AssignedTo = append(slices.Clip(out.AssignedTo), added...)
		}
		if out.EscalatedAt == nil {
			out.EscalatedAt = &now
		}
		return added
	}
	switch ladder := cur.Escalation; {
	case ladder != nil && ladder.NextAt != nil && !now.Before(*ladder.NextAt):
		esc := *ladder
		esc.Steps = slices.Clone(ladder.Steps)
		out.Escalation = &esc
		for esc.Reached < len(esc.Steps) {
			i := esc.Reached
			if i > ladder.Reached && now.Before(hours.stepAt(out, i)) {
				break
			}
			step := &esc.Steps[i]
			step.ReachedAt = &now
			esc.Reached++
			steps = append(steps, firedStep{number: esc.Reached, added: escalate(step.AssignedTo), channels: step.Channels})
		}
		esc.NextAt = nil
		if esc.Reached < len(esc.Steps) {
			at := hours.stepAt(out, esc.Reached)
			esc.NextAt = &at
		}
	case ladder == nil && cur.EscalationAt() != nil && !now.Before(*cur.EscalationAt()):
		steps = append(steps, firedStep{added: escalate(cur.EscalateTo)})
	}
	if at := cur.NextReminderAt; at != nil && !now.Before(*at) {
		reminded = true
		out.RemindersSent++
		every := cur.RemindEvery.Duration()
		after := at.Add(every)
		if !after.After(now) {
			after = now.Add(every)
		}
		out.NextReminderAt = hours.reminderAt(out, after)
	}
	out.UpdatedAt = now
	return out, steps, reminded
}

// timers is what an event of an inquiry says of its timers, decoded alone: a follower reads
// it for every creation, reminder and escalation.
type timers struct {
	TimeoutAt      *time.Time       `json:"timeout_at"`
	NextReminderAt *time.Time       `json:"next_reminder_at"`
	EscalateAfter  *hitl.Duration   `json:"escalate_after"`
	EscalatedAt    *time.Time       `json:"escalated_at"`
	Escalation     *hitl.Escalation `json:"escalation"`
	CreatedAt      time.Time        `json:"created_at"`
	// Claim is the claim that a claim, release or chain step leaves.
	Claim *hitl.InquiryClaim `json:"claim"`
}

func timersOf(inq *hitl.Inquiry) timers {
	return timers{TimeoutAt: inq.TimeoutAt, NextReminderAt: inq.NextReminderAt, EscalateAfter: inq.EscalateAfter,
		EscalatedAt: inq.EscalatedAt, Escalation: inq.Escalation, CreatedAt: inq.CreatedAt, Claim: inq.Claim}
}

// keepTimers holds every timer of a pending inquiry whose deadline or claim may have changed:
// a chain's next step has a deadline of its own, a claim expires.
func (e *Engine) keepTimers(id int64, t timers) {
	if t.TimeoutAt != nil {
		e.deadlines.Add(id, *t.TimeoutAt)
	} else {
		e.deadlines.Remove(id)
	}
	e.keepNudge(id, t.nextNudge())
	if t.Claim != nil {
		e.claims.Add(id, t.Claim.ExpiresAt)
	} else {
		e.claims.Remove(id)
	}
}

func (t timers) nextNudge() *time.Time {
	inq := hitl.Inquiry{NextReminderAt: t.NextReminderAt, EscalateAfter: t.EscalateAfter, EscalatedAt: t.EscalatedAt,
		Escalation: t.Escalation, CreatedAt: t.CreatedAt}
	return inq.NextNudge()
}

// keepNudge holds the inquiry's next reminder or escalation, or none.
func (e *Engine) keepNudge(id int64, at *time.Time) {
	if at != nil {
		e.nudges.Add(id, *at)
	} else {
		e.nudges.Remove(id)
	}
}
