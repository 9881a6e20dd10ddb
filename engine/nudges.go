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
// down) fires once, and the next one comes an interval after now. Inquiries that are final,
// past their deadline (the deadline's timer takes them), or held by another node right now
// are left out.
func (e *Engine) nudge(ctx context.Context, ids []int64) {
	now := e.clock()
	var (
		evs   []*hitl.Event
		later []hitl.Deadline
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		evs, later = nil, nil
		claimed, err := tx.LockPending(ids)
		if err != nil {
			return err
		}
		done := make(map[int64]bool, len(claimed))
		for _, cur := range claimed {
			done[cur.ID] = true
			if cur.TimeoutAt != nil && !now.Before(*cur.TimeoutAt) {
				continue
			}
			out, added, reminded := nudged(cur, now)
			if added == nil && !reminded {
				if at := cur.NextNudge(); at != nil { // the wall clock is behind the timer
					later = append(later, hitl.Deadline{InquiryID: cur.ID, At: *at})
				}
				continue
			}
			if err := tx.NudgeInquiry(out, cur); err != nil {
				return err
			}
			if added != nil {
				data := struct {
					*hitl.Inquiry
					Added []string `json:"added"`
				}{out, added}
				ev, err := appendInquiryEventWith(tx, hitl.EventInquiryEscalated, out, data, "system", now)
				if err != nil {
					return err
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
					return err
				}
				evs = append(evs, ev)
			}
		}
		if e.following {
			for _, id := range ids {
				if !done[id] {
					later = append(later, hitl.Deadline{InquiryID: id, At: now.Add(recheck)})
				}
			}
		}
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("reminding or escalating inquiries failed; retrying in a second", "inquiries", len(ids), "err", err)
			for _, id := range ids {
				e.nudges.add(id, now.Add(time.Second))
			}
		}
		return
	}
	for _, d := range later {
		e.nudges.add(d.InquiryID, d.At)
	}
	e.published(evs)
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
}

func (t timers) nextNudge() *time.Time {
	inq := hitl.Inquiry{NextReminderAt: t.NextReminderAt, EscalateAfter: t.EscalateAfter, EscalatedAt: t.EscalatedAt, CreatedAt: t.CreatedAt}
	return inq.NextNudge()
}

// keepNudge holds the inquiry's next reminder or escalation, or none.
func (e *Engine) keepNudge(id int64, at *time.Time) {
	if at != nil {
		e.nudges.add(id, *at)
	} else {
		e.nudges.remove(id)
	}
}
