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
// down) fires once, and the next one comes an interval after now.
func (e *Engine) nudge(ctx context.Context, ids []int64) {
	e.fireTimers(ctx, e.nudges, ids, "reminding or escalating inquiries", remindOrEscalate)
}

// remindOrEscalate leaves an inquiry past its deadline alone: the deadline's timer takes it.
func remindOrEscalate(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, *time.Time, error) {
	if cur.TimeoutAt != nil && !now.Before(*cur.TimeoutAt) {
		return nil, nil, nil
	}
	out, added, reminded := nudged(cur, now)
	if added == nil && !reminded {
		return nil, cur.NextNudge(), nil // the wall clock is behind the timer
	}
	if err := tx.NudgeInquiry(out, cur); err != nil {
		return nil, nil, err
	}
	var evs []*hitl.Event
	if added != nil {
		data := struct {
			*hitl.Inquiry
			Added []string `json:"added"`
		}{out, added}
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

// nudged is cur after the reminder and the escalation due at now: added is nil when it does
// not escalate now, else the entries of escalate_to it was not assigned to already. An
// unassigned inquiry, open to every responder, stays so: escalating it notifies escalate_to
// (all of them added) without narrowing who may answer.
func nudged(cur *hitl.Inquiry, now time.Time) (out *hitl.Inquiry, added []string, reminded bool) {
	next := *cur
	out = &next
	if at := cur.EscalationAt(); at != nil && !now.Before(*at) {
		out.EscalatedAt = &now
		added = []string{}
		for _, a := range cur.EscalateTo {
			if !slices.Contains(cur.AssignedTo, a) {
				added = append(added, a)
			}
		}
		if len(cur.AssignedTo) > 0 {
			out.AssignedTo = append(slices.Clip(cur.AssignedTo), added...)
		}
	}
	if at := cur.NextReminderAt; at != nil && !now.Before(*at) {
		reminded = true
		out.RemindersSent++
		every := cur.RemindEvery.Duration()
		after := at.Add(every)
		if !after.After(now) {
			after = now.Add(every)
		}
		out.NextReminderAt = reminderBefore(after, cur.TimeoutAt)
	}
	out.UpdatedAt = now
	return out, added, reminded
}

// timers is what an event of an inquiry says of its timers, decoded alone: a follower reads
// it for every creation, reminder and escalation.
type timers struct {
	TimeoutAt      *time.Time     `json:"timeout_at"`
	NextReminderAt *time.Time     `json:"next_reminder_at"`
	EscalateAfter  *hitl.Duration `json:"escalate_after"`
	EscalatedAt    *time.Time     `json:"escalated_at"`
	CreatedAt      time.Time      `json:"created_at"`
	// Claim is the claim that a claim, release or chain step leaves.
	Claim *hitl.InquiryClaim `json:"claim"`
}

func timersOf(inq *hitl.Inquiry) timers {
	return timers{TimeoutAt: inq.TimeoutAt, NextReminderAt: inq.NextReminderAt, EscalateAfter: inq.EscalateAfter,
		EscalatedAt: inq.EscalatedAt, CreatedAt: inq.CreatedAt, Claim: inq.Claim}
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
	inq := hitl.Inquiry{NextReminderAt: t.NextReminderAt, EscalateAfter: t.EscalateAfter, EscalatedAt: t.EscalatedAt, CreatedAt: t.CreatedAt}
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
