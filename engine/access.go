package engine

import (
	"slices"

	"github.com/hitl-dev/hitl"
)

// Who may see and do what. Every check of roles and assignment is in this file.

func forbidden(format string, args ...any) error {
	return hitl.Errorf(hitl.EForbidden, format, args...)
}

// visibility is what a principal may see of the inquiries: an admin everything, an agent
// what it created, a responder what it may answer.
func visibility(p *hitl.Principal) hitl.Visibility {
	if p.IsAdmin() {
		return hitl.Visibility{All: true}
	}
	var v hitl.Visibility
	if p.Has(hitl.RoleAgent) {
		v.CreatedBy = p.Name
	}
	if p.Has(hitl.RoleResponder) {
		v.Responder = true
		v.AnswerableBy = p.Entries()
	}
	return v
}

// assignedTo reports whether the inquiry is for anyone or names the principal or one of its groups.
func assignedTo(inq *hitl.Inquiry, p *hitl.Principal) bool {
	if len(inq.AssignedTo) == 0 {
		return true
	}
	for _, entry := range p.Entries() {
		if slices.Contains(inq.AssignedTo, entry) {
			return true
		}
	}
	return false
}

func canSee(p *hitl.Principal, inq *hitl.Inquiry) bool {
	if p.IsAdmin() {
		return true
	}
	if p.Has(hitl.RoleAgent) && inq.CreatedBy == p.Name {
		return true
	}
	return p.Has(hitl.RoleResponder) && assignedTo(inq, p)
}

// mayAnswer: responders and admins, and when the inquiry is assigned, only its assignees
// (admins included: an assignment is the asker's explicit choice).
func mayAnswer(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !p.IsAdmin() && !p.Has(hitl.RoleResponder) {
		return forbidden("answering needs the responder role")
	}
	if !assignedTo(inq, p) {
		return forbidden("inquiry %d is assigned to %v; %s is not one of them", inq.ID, inq.AssignedTo, p.Name)
	}
	return nil
}

func mayCancel(p *hitl.Principal, inq *hitl.Inquiry) error {
	if p.IsAdmin() || (p.Has(hitl.RoleAgent) && inq.CreatedBy == p.Name) {
		return nil
	}
	return forbidden("only the inquiry's creator or an admin may cancel it")
}

func mayAsk(p *hitl.Principal) error {
	if p.IsAdmin() || p.Has(hitl.RoleAgent) {
		return nil
	}
	return forbidden("asking needs the agent role")
}

// Sessions are seen by admins, responders (for the timeline of what they answer) and their creator.
func canSeeSession(p *hitl.Principal, s *hitl.Session) bool {
	return p.IsAdmin() || p.Has(hitl.RoleResponder) || (p.Has(hitl.RoleAgent) && s.CreatedBy == p.Name)
}

func mayChangeSession(p *hitl.Principal, s *hitl.Session) error {
	if p.IsAdmin() || (p.Has(hitl.RoleAgent) && s.CreatedBy == p.Name) {
		return nil
	}
	return forbidden("only the session's creator or an admin may change it")
}

func mayAdmin(p *hitl.Principal) error {
	if p.IsAdmin() {
		return nil
	}
	return forbidden("this needs the admin role")
}
