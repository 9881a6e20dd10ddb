package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Escalation ladders: escalate lists steps, each at its time after creation adding assignees
// and notifying them (on the step's channels, else their usual ones); the deadline's fallback
// ends the ladder. escalate_after with escalate_to is a ladder of one step. Each step fires
// once: its firing is a write conditional on the escalation's next time, as every timer's.

const maxEscalationSteps = 10

// escalationChannels are the channels a step may name.
var escalationChannels = []string{hitl.ChannelEmail, hitl.ChannelSlack, hitl.ChannelChatWebhook, hitl.ChannelWebPush}

// resolveLadder resolves the integer identities among the ladder's assignees, step by step.
func (e *Engine) resolveLadder(ctx context.Context, bad *problems, steps []hitl.EscalationStepRequest) ([][]string, error) {
	out := make([][]string, len(steps))
	for i, s := range steps {
		names, err := e.resolveIdentities(ctx, bad, fmt.Sprintf("/escalate/%d/assigned_to", i), s.AssignedTo)
		if err != nil {
			return nil, err
		}
		out[i] = names
	}
	return out, nil
}

// checkLadder reads escalate (or escalate_after and escalate_to, a ladder of one step) into
// the new inquiry, whose deadline is known: every step comes before it, in increasing order.
// escalateTo and stepAssignees are the request's assignees with identities resolved to names.
func checkLadder(bad *problems, req *hitl.InquiryRequest, escalateTo []string, stepAssignees [][]string, inq *hitl.Inquiry, now time.Time) {
	inq.EscalateTo = []string{}
	if len(req.Escalate) > 0 && (req.EscalateAfter != "" || len(req.EscalateTo) > 0) {
		bad.add("/escalate", "give escalate (a ladder) or escalate_after with escalate_to (one step), not both")
		return
	}
	if len(req.Escalate) == 0 {
		if checkEscalateAfter(bad, req, escalateTo, inq, now) {
			inq.Escalation = &hitl.Escalation{Steps: []hitl.EscalationStep{{After: *inq.EscalateAfter, AssignedTo: inq.EscalateTo, Channels: []string{}}}}
		}
		return
	}
	if len(req.Escalate) > maxEscalationSteps {
		bad.add("/escalate", "has %d steps; at most %d are allowed", len(req.Escalate), maxEscalationSteps)
		return
	}
	ladder := &hitl.Escalation{Steps: make([]hitl.EscalationStep, len(req.Escalate))}
	var previous hitl.Duration
	for i, s := range req.Escalate {
		// The path counts steps from 0, as JSON Pointers do; the words from 1, as the
		// ladder's events and the inbox do.
		path, n := fmt.Sprintf("/escalate/%d", i), i+1
		step := &ladder.Steps[i]
		switch d, err := hitl.ParseDuration(s.After); {
		case err != nil || d <= 0:
			bad.add(path+"/after", "step %d: must be a duration like 1h, more than 0s", n)
		case d > maxTimeoutSeconds:
			bad.add(path+"/after", "step %d: must be at most %d seconds (a year)", n, maxTimeoutSeconds)
		case i > 0 && d <= previous:
			bad.add(path+"/after", "step %d: %s must come after the step before's %s: steps go in increasing after", n, d, previous)
		case inq.TimeoutAt != nil && !now.Add(d.Duration()).Before(*inq.TimeoutAt):
			bad.add(path+"/after", "step %d: %s must end before the deadline, which is %s after creation", n, d, hitl.Duration(inq.TimeoutAt.Sub(now)/time.Second))
		default:
			step.After, previous = d, d
		}
		if len(stepAssignees[i]) == 0 {
			bad.add(path+"/assigned_to", "step %d: is required: 1 to %d names or group:NAME to add as assignees", n, maxEscalateTo)
		}
		checkAssignees(bad, path+"/assigned_to", stepAssignees[i], maxEscalateTo)
		if slices.ContainsFunc(stepAssignees[i], func(a string) bool { _, ok := hitl.PoolOf(a); return ok }) {
			bad.add(path+"/assigned_to", "step %d: pools are for assigned_to; a step names people and groups", n)
		}
		step.AssignedTo = stepAssignees[i]
		step.Channels = []string{}
		for j, c := range s.Channels {
			cpath := fmt.Sprintf("%s/channels/%d", path, j)
			switch {
			case !slices.Contains(escalationChannels, c):
				bad.add(cpath, "step %d: %q is not a channel; a step notifies by %s", n, c, strings.Join(escalationChannels, ", "))
			case slices.Contains(s.Channels[:j], c):
				bad.add(cpath, "step %d: %q is listed twice", n, c)
			default:
				step.Channels = append(step.Channels, c)
			}
		}
	}
	first := ladder.Steps[0]
	inq.EscalateAfter, inq.EscalateTo = &first.After, first.AssignedTo
	inq.Escalation = ladder
}

// checkEscalateAfter reads the one-step escalation of escalate_after and escalate_to,
// reporting whether the inquiry has one.
func checkEscalateAfter(bad *problems, req *hitl.InquiryRequest, escalateTo []string, inq *hitl.Inquiry, now time.Time) bool {
	if req.EscalateAfter == "" {
		if len(escalateTo) > 0 {
			bad.add("/escalate_to", "only applies with escalate_after")
		}
		return false
	}
	switch d, err := hitl.ParseDuration(req.EscalateAfter); {
	case err != nil || d <= 0:
		bad.add("/escalate_after", "must be a duration like 2h, more than 0s")
	case d > maxTimeoutSeconds:
		bad.add("/escalate_after", "must be at most %d seconds (a year)", maxTimeoutSeconds)
	case inq.TimeoutAt != nil && !now.Add(d.Duration()).Before(*inq.TimeoutAt):
		bad.add("/escalate_after", "must end before the deadline, which is %s after creation", hitl.Duration(inq.TimeoutAt.Sub(now)/time.Second))
	default:
		inq.EscalateAfter = &d
	}
	if len(escalateTo) == 0 {
		bad.add("/escalate_to", "is required with escalate_after: 1 to %d names or group:NAME to add as assignees", maxEscalateTo)
		return false
	}
	checkAssignees(bad, "/escalate_to", escalateTo, maxEscalateTo)
	inq.EscalateTo = escalateTo
	return inq.EscalateAfter != nil
}

// checkPriority reads the inquiry's priority: normal (the default) or urgent.
func checkPriority(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry) {
	switch req.Priority {
	case "", hitl.PriorityNormal:
		inq.Priority = hitl.PriorityNormal
	case hitl.PriorityUrgent:
		inq.Priority = hitl.PriorityUrgent
	default:
		bad.add("/priority", "%q is not a priority; give normal (reminders and escalations wait for working hours) or urgent (they do not)", req.Priority)
	}
}

// setNudgeTimes moves the new inquiry's first reminder and first escalation step to the
// working hours of the people they reach (see hours.go).
func (e *Engine) setNudgeTimes(ctx context.Context, inq *hitl.Inquiry) error {
	if inq.NextReminderAt == nil && inq.Escalation == nil {
		return nil
	}
	reach := [][]string{inq.AssignedTo}
	if inq.Escalation != nil {
		reach = append(reach, inq.Escalation.Steps[0].AssignedTo)
	}
	hours, err := e.peopleHours(ctx, reach...)
	if err != nil {
		return err
	}
	if inq.NextReminderAt != nil {
		inq.NextReminderAt = hours.reminderAt(inq, *inq.NextReminderAt)
	}
	if inq.Escalation != nil {
		at := hours.stepAt(inq, 0)
		inq.Escalation.NextAt = &at
	}
	return nil
}
