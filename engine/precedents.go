package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/hitl-dev/hitl"
)

// Precedents is answer memory: how the question of inquiry id was answered before, newest
// first, at most hitl.MaxPrecedents. An earlier inquiry is alike when it was made from the same
// template, or asks about the same tool with arguments of the same shape (the same set of
// top-level member names: {"path": ...} and {"path": ..., "force": true} are different
// questions). Only answered inquiries the principal may see count (canSee), so that answer
// memory shows nobody a decision they could not open themself.
//
// The store reads the principal's answered inquiries of the same request type newest first
// (the index of inquiries by status), at most hitl.PrecedentCandidates; alike is decided here.
func (e *Engine) Precedents(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Precedents, error) {
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	out := &hitl.Precedents{InquiryID: id, Precedents: []hitl.Precedent{}}
	shape, hasTool := toolShape(inq)
	if inq.Template == "" && !hasTool {
		return out, nil
	}
	f := hitl.InquiryFilter{Status: hitl.StatusResponded, RequestType: inq.RequestType, Order: hitl.OrderNewest,
		Visibility: visibility(p), Page: hitl.Page{Limit: 100}}
	for read := 0; read < hitl.PrecedentCandidates; {
		page, next, err := e.store.Inquiries(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, c := range page {
			if c.ID == inq.ID || !canSee(p, c) {
				continue
			}
			match, ok := alike(inq, shape, hasTool, c)
			if !ok {
				continue
			}
			out.Precedents = append(out.Precedents, precedentOf(c, match))
			if len(out.Precedents) == hitl.MaxPrecedents {
				return out, nil
			}
		}
		read += len(page)
		if next == "" || len(page) == 0 {
			break
		}
		f.Page.Cursor = next
	}
	return out, nil
}

// alike reports whether the answered inquiry c is a precedent of inq (whose tool-call shape
// is shape when hasTool), and why.
func alike(inq *hitl.Inquiry, shape []string, hasTool bool, c *hitl.Inquiry) (hitl.PrecedentMatch, bool) {
	if inq.Template != "" && c.Template == inq.Template {
		return hitl.PrecedentTemplate, true
	}
	if hasTool && c.ToolCall != nil && c.ToolCall.Name == inq.ToolCall.Name {
		if other, ok := toolShape(c); ok && slices.Equal(other, shape) {
			return hitl.PrecedentTool, true
		}
	}
	return "", false
}

// toolShape is the sorted top-level member names of the inquiry's tool-call arguments, and
// whether it asks about a tool call at all (arguments that are no object have no members).
func toolShape(inq *hitl.Inquiry) ([]string, bool) {
	if inq.ToolCall == nil || inq.ToolCall.Name == "" {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(inq.ToolCall.Arguments, &members) != nil {
		return []string{}, true
	}
	return slices.Sorted(maps.Keys(members)), true
}

func precedentOf(c *hitl.Inquiry, match hitl.PrecedentMatch) hitl.Precedent {
	pr := hitl.Precedent{InquiryID: c.ID, Match: match, Prompt: c.Prompt, Response: c.Response}
	if c.RespondedBy != nil {
		pr.RespondedBy = *c.RespondedBy
	}
	if c.RespondedAt != nil {
		pr.RespondedAt = *c.RespondedAt
	} else {
		pr.RespondedAt = c.UpdatedAt
	}
	if c.Comment != nil {
		pr.Comment = *c.Comment
	}
	if c.ToolResult != nil {
		pr.Decision = c.ToolResult.Decision
	}
	return pr
}
