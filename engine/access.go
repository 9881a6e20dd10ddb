package engine

import (
	"context"
	"slices"

	"github.com/hitl-dev/hitl"
)

// Who may see and do what. Every check of roles, assignment and ownership is in this file.
//
// The rule throughout: what a principal may not see does not exist for it. Every route that
// names an inquiry or a session it may not see answers not found, never forbidden with a
// reason, which would confirm the thing exists and could name its assignees or owner.
// Forbidden is only for what the principal sees but may not do.

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

// canSee: admins see every inquiry, agents those they asked, responders those that are
// unassigned or assigned to them or one of their groups (for a chain, in any step reached so
// far: who approved step 1 still sees what became of it).
func canSee(p *hitl.Principal, inq *hitl.Inquiry) bool {
	if p.IsAdmin() {
		return true
	}
	if p.Has(hitl.RoleAgent) && inq.CreatedBy == p.Name {
		return true
	}
	if !p.Has(hitl.RoleResponder) {
		return false
	}
	seen := inq.Seen()
	return len(seen) == 0 || slices.ContainsFunc(p.Entries(), func(e string) bool { return slices.Contains(seen, e) })
}

// CanAnswer reports whether the principal's roles let it answer inquiries at all (responders
// and admins); which ones, mayAnswer tells. The MCP servers offer the answering tools by it.
func CanAnswer(p *hitl.Principal) bool { return p.IsAdmin() || p.Has(hitl.RoleResponder) }

// mayAnswer: responders and admins, and when the inquiry is assigned, only its assignees
// (admins included: an assignment is the asker's explicit choice). Who may not see the
// inquiry gets not found: only those who see it may learn whom it is assigned to.
func mayAnswer(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !canSee(p, inq) {
		return notFound(inq.ID)
	}
	if !CanAnswer(p) {
		return forbidden("answering needs the responder role")
	}
	if !assignedTo(inq, p) {
		return forbidden("inquiry %d is assigned to %s; %s is not one of them", inq.ID, hitl.AssigneesInWords(inq.AssignedTo), p.Name)
	}
	return nil
}

// mayCancel: the inquiry's creator and admins.
func mayCancel(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !canSee(p, inq) {
		return notFound(inq.ID)
	}
	if p.IsAdmin() || (p.Has(hitl.RoleAgent) && inq.CreatedBy == p.Name) {
		return nil
	}
	return forbidden("only the inquiry's creator or an admin may cancel it")
}

// mayDecline: those who may answer the inquiry, when the agent that asked let them decline
// (cancellable_by_responder).
func mayDecline(p *hitl.Principal, inq *hitl.Inquiry) error {
	if err := mayAnswer(p, inq); err != nil {
		return err
	}
	if !inq.CancellableByResponder {
		return forbidden("inquiry %d may not be declined: the agent that asked did not set cancellable_by_responder; answer it instead", inq.ID)
	}
	return nil
}

// mayLink: answer links are made by the inquiry's creator and admins.
func mayLink(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !canSee(p, inq) {
		return notFound(inq.ID)
	}
	if p.IsAdmin() || (p.Has(hitl.RoleAgent) && inq.CreatedBy == p.Name) {
		return nil
	}
	return forbidden("only the inquiry's creator or an admin may make answer links for it")
}

// answerer is whom an answer is recorded as: the caller, or the person req.RespondedBy names
// when the caller may relay (admins, and the relay role, for bots that carry people's answers).
// relayedBy is the caller then, "" otherwise. Anyone else may answer only as itself.
func answerer(p *hitl.Principal, req *hitl.ResponseRequest) (name, relayedBy string, err error) {
	named := req.RespondedBy
	if named == "" || named == p.Name {
		return p.Name, "", nil
	}
	if !p.IsAdmin() && !p.Has(hitl.RoleRelay) {
		return "", "", forbidden("%s may answer only as itself, not as %s: recording another person's answer needs the relay role", p.Name, named)
	}
	if !namePattern.MatchString(named) {
		return "", "", hitl.Errorf(hitl.EInvalid, "responded_by must be 1 to 200 characters of letters, digits, . _ @ -")
	}
	return named, p.Name, nil
}

func mayAsk(p *hitl.Principal) error {
	if p.IsAdmin() || p.Has(hitl.RoleAgent) {
		return nil
	}
	return forbidden("asking needs the agent role")
}

// A session belongs to the principal that created it: CreatedBy, the name of the key that
// first put the session or asked in it (Agent is only a label the agent sends, and may change).
// Its owner and admins may do everything with it. Responders see that it exists, its status
// and the inquiries in it they may see (see sessionView), for the timeline of what they
// answer; they may change nothing. To any other agent it does not exist: putting it, asking in
// it, reading it, its inquiries, completing, failing or cancelling it are all not found.
//
// Session keys are one namespace for everybody (namespacing them per principal would change
// the stores' schema), so a key another principal owns cannot be taken: an agent that puts or
// asks in it is told so, still as not found, and must choose another key. That answer does
// tell the caller the key is in use, as any create-or-update must; it tells nothing more.

func ownsSession(p *hitl.Principal, s *hitl.Session) bool {
	return p.IsAdmin() || (p.Has(hitl.RoleAgent) && s.CreatedBy == p.Name)
}

func canSeeSession(p *hitl.Principal, s *hitl.Session) bool {
	return ownsSession(p, s) || p.Has(hitl.RoleResponder)
}

// mayChangeSession: completing, failing or cancelling a session.
func mayChangeSession(p *hitl.Principal, s *hitl.Session) error {
	switch {
	case ownsSession(p, s):
		return nil
	case canSeeSession(p, s):
		return forbidden("only the session's creator or an admin may change it")
	}
	return sessionNotFound(s.Key)
}

// mayClaimSession: putting a session that exists, or asking in it: the calls that would have
// created it, had its key been free.
func mayClaimSession(p *hitl.Principal, s *hitl.Session) error {
	switch {
	case ownsSession(p, s):
		return nil
	case canSeeSession(p, s):
		return forbidden("session %s belongs to another principal: only its creator or an admin may change it or ask in it", s.Key)
	}
	return hitl.Errorf(hitl.ENotFound, "session %s not found: the key is taken by a session you may not see; choose another key", s.Key)
}

// sessionView is what the principal may see of a session it can see: all of it for its owner
// and admins; for responders its identity and status (counting only the inquiries they may
// see: Engine.sessionFor), without the agent's state, metadata, result, error or callback URL.
func sessionView(p *hitl.Principal, s *hitl.Session) *hitl.Session {
	if ownsSession(p, s) {
		return s
	}
	v := *s
	v.State, v.Result, v.Error, v.CallbackURL, v.CallbackFormat, v.Metadata = nil, nil, nil, nil, "", map[string]string{}
	return &v
}

// sessionsVisible narrows a list of sessions to what the principal may see: agents list the
// sessions they created; admins and responders every session (responders as sessionView shows).
func sessionsVisible(p *hitl.Principal, f *hitl.SessionFilter) {
	if !p.IsAdmin() && !p.Has(hitl.RoleResponder) {
		f.CreatedBy = p.Name
	}
}

// sessionInquiriesVisible: a session's owner sees every question asked in its run, anyone
// else what visibility allows.
func sessionInquiriesVisible(p *hitl.Principal, s *hitl.Session) hitl.Visibility {
	if ownsSession(p, s) {
		return hitl.Visibility{All: true}
	}
	return visibility(p)
}

// sessionOwner is the principal that owns the inquiry's session when separation of duties
// excludes it, "" otherwise.
func (e *Engine) sessionOwner(ctx context.Context, inq *hitl.Inquiry) (string, error) {
	if !inq.ExcludeSessionOwner || inq.Session == "" {
		return "", nil
	}
	s, err := e.store.Session(ctx, inq.Session)
	if err != nil {
		return "", err
	}
	return s.CreatedBy, nil
}

// Separated refuses an answer, vote, claim or decline that separation of duties forbids: by
// the principal that asked, or by the owner of the inquiry's session, when the inquiry says so
// (a forbidden error with the reason). The inbox asks it to show a form only to those whose
// answer could count.
func (e *Engine) Separated(ctx context.Context, inq *hitl.Inquiry, by string) error {
	if inq.ExcludeRequester && by == inq.CreatedBy {
		return forbidden("%s asked inquiry %d, and separation of duties keeps the one who asks from answering it", by, inq.ID)
	}
	owner, err := e.sessionOwner(ctx, inq)
	if err != nil {
		return err
	}
	if owner != "" && by == owner {
		return forbidden("%s owns session %s, and separation of duties keeps its owner from answering its inquiries", by, inq.Session)
	}
	return nil
}

func mayAdmin(p *hitl.Principal) error {
	if p.IsAdmin() {
		return nil
	}
	return forbidden("this needs the admin role")
}
