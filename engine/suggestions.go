package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hitl-dev/hitl"
)

// Rule suggestions (issue 31): a person who approved the same thing (same tool or template,
// same asking agent, identical arguments) the last N times, with no rejection among those
// answers, is offered to make it a standing approval when it comes again. Approvals by others
// neither count nor break the run; a rejection by anyone breaks it. Off when N is 0.

// suggestionWindow is how many of the agent's latest answered inquiries a suggestion reads:
// a run longer ago than that is not "in a row" any more.
const suggestionWindow = 200

// suggestedAllowFor is how long a suggested rule lasts: a working day.
const suggestedAllowFor = "8h"

// RuleSuggestion returns the rule the inbox may offer p while answering inq, nil when none.
func (e *Engine) RuleSuggestion(ctx context.Context, p *hitl.Principal, id int64) (*hitl.RuleSuggestion, error) {
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	n := e.ruleSuggestAfter
	if n <= 0 || inq.Status != hitl.StatusPending || inq.IsVote() || approvalOf(inq) == nil || mayAnswer(p, inq) != nil {
		return nil, nil
	}
	s := &hitl.RuleSuggestion{Agent: inq.CreatedBy, Args: ruleArgs(inq), AllowFor: suggestedAllowFor, AllowArgs: "exact"}
	switch {
	case inq.ToolCall != nil && inq.HasDecisions():
		s.Tool = inq.ToolCall.Name
	case inq.Template != "":
		s.Template = inq.Template
	default:
		return nil, nil // nothing a rule approves (engine/rules.go allowRequested)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(s.Args, &members) != nil || members == nil {
		return nil, nil // exact values need an object
	}
	covered, err := e.ruleCovers(ctx, inq)
	if err != nil || covered {
		return nil, err
	}
	past, _, err := e.store.Inquiries(ctx, hitl.InquiryFilter{Status: hitl.StatusResponded, CreatedBy: inq.CreatedBy,
		Visibility: visibility(p), Page: hitl.Page{Limit: suggestionWindow}})
	if err != nil {
		return nil, err
	}
	for _, x := range past {
		if !sameScope(s, x) || x.RespondedBy == nil || strings.HasPrefix(*x.RespondedBy, hitl.RuleResponderPrefix) {
			continue
		}
		if !approves(x.Response) {
			return nil, nil
		}
		if *x.RespondedBy == p.Name {
			if s.Count++; s.Count == n {
				return s, nil
			}
		}
	}
	return nil, nil
}

// sameScope tells whether an answered inquiry is the suggestion's tool or template with the
// same arguments, equal as the rule it suggests compares them (sameJSON: numbers by value).
func sameScope(s *hitl.RuleSuggestion, x *hitl.Inquiry) bool {
	if s.Tool != "" {
		if x.ToolCall == nil || !x.HasDecisions() || x.ToolCall.Name != s.Tool {
			return false
		}
	} else if x.Template != s.Template || (x.ToolCall != nil && x.HasDecisions()) {
		return false
	}
	return sameJSON(ruleArgs(x), s.Args)
}

// ruleCovers tells whether an active rule (not a shadow) covers the inquiry already.
func (e *Engine) ruleCovers(ctx context.Context, inq *hitl.Inquiry) (bool, error) {
	list, err := e.ruleList(ctx)
	if err != nil {
		return false, err
	}
	now := e.clock()
	for _, r := range list {
		if !r.Shadow && r.ActiveAt(now) && r.covers(inq) {
			return true, nil
		}
	}
	return false, nil
}
