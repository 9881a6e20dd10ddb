package engine

import (
	"context"
	"slices"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
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
		v.AnswerableBy = append(p.Entries(), p.ActsFor...) // what they answer for someone away too
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
	return len(seen) == 0 || slices.ContainsFunc(append(p.Entries(), p.ActsFor...), func(e string) bool { return slices.Contains(seen, e) })
}

// standsInFor lists the away people the principal stands in for now (Principal.ActsFor) to
// whom the inquiry is assigned by name, nearest first. A group's inquiries are not delegated:
// the group's other members answer them.
func standsInFor(inq *hitl.Inquiry, p *hitl.Principal) []string {
	var out []string
	for _, name := range p.ActsFor {
		if slices.Contains(inq.AssignedTo, name) {
			out = append(out, name)
		}
	}
	return out
}

// AnswersFor is whom p's answer to inq counts for when the answer names nobody: "" for p
// themself, else the away assignee p stands in for (the inbox says so beside its form).
func AnswersFor(p *hitl.Principal, inq *hitl.Inquiry) string {
	name, _ := behalfOf(p, inq, "")
	return name
}

// CanAnswer reports whether the principal's roles let it answer inquiries at all (responders
// and admins); which ones, mayAnswer tells. The MCP servers offer the answering tools by it.
func CanAnswer(p *hitl.Principal) bool { return p.IsAdmin() || p.Has(hitl.RoleResponder) }

// mayAnswer: responders and admins, and when the inquiry is assigned, only its assignees
// (admins included: an assignment is the asker's explicit choice) and the delegates of those
// of them who are away (standsInFor). Who may not see the inquiry gets not found: only those
// who see it may learn whom it is assigned to.
func mayAnswer(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !canSee(p, inq) {
		return notFound(inq.ID)
	}
	if !CanAnswer(p) {
		return forbidden("answering needs the responder role")
	}
	if !assignedTo(inq, p) && len(standsInFor(inq, p)) == 0 {
		return forbidden("inquiry %d is assigned to %s; %s is not one of them", inq.ID, wording.Assignees(inq.AssignedTo), p.Name)
	}
	return nil
}

// behalfOf is whom who answers the inquiry for: the away person the answer names (asked,
// on_behalf_of) when who stands in for them and the inquiry is assigned to them by name; else
// nobody ("") when who may answer as themself; else the nearest away assignee who stands in
// for. who may answer the inquiry (mayAnswer).
func behalfOf(who *hitl.Principal, inq *hitl.Inquiry, asked string) (string, error) {
	standing := standsInFor(inq, who)
	switch {
	case asked == who.Name:
		return "", hitl.Errorf(hitl.EInvalid, "on_behalf_of names the away person %s answers for, not %s themself; leave it out to answer as %s", who.Name, who.Name, who.Name)
	case asked != "" && slices.Contains(standing, asked):
		return asked, nil
	case asked != "" && !slices.Contains(who.ActsFor, asked):
		return "", forbidden("%s may not answer for %s: %s is not away with %s as delegate now", who.Name, asked, asked, who.Name)
	case asked != "":
		return "", forbidden("%s may not answer inquiry %d for %s: it is assigned to %s, not to %s by name (a group's inquiries are not delegated: its other members answer them)",
			who.Name, inq.ID, asked, wording.Assignees(inq.AssignedTo), asked)
	case assignedTo(inq, who) || len(standing) == 0:
		return "", nil
	}
	return standing[0], nil
}

// MayAnswerInClient tells whether the principal that asked an inquiry through MCP may also be
// asked it in its own client (answer_in_client: an MCP elicitation, or a link for it alone),
// its answer recorded as its own. The key stands for the person at the client, so that person
// must be one who may answer the inquiry by the rules every answer meets (the responder role,
// the assignment), and separation of duties must not keep who asks from answering: an agent
// key without the responder role is refused, so no agent answers its own question this way.
// inq nil checks the role alone, before the inquiry is asked. Respond and Decline check again
// when the answer comes (a session's owner, for one, only they know).
func MayAnswerInClient(p *hitl.Principal, inq *hitl.Inquiry) error {
	if !CanAnswer(p) {
		return forbidden("answer_in_client asks the person at the MCP client as %s, and %s may not answer: its key needs the responder role (an agent's key may not answer its own questions)", p.Name, p.Name)
	}
	if inq == nil {
		return nil
	}
	if !assignedTo(inq, p) {
		return forbidden("answer_in_client: inquiry %d is assigned to %s, and %s is not one of them", inq.ID, wording.Assignees(inq.AssignedTo), p.Name)
	}
	if inq.ExcludeRequester && inq.CreatedBy == p.Name {
		return forbidden("answer_in_client: separation of duties keeps %s, who asks inquiry %d, from answering it", p.Name, inq.ID)
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

// mayDecline: those who may answer the inquiry, unless the agent that asked kept it to answers
// (cancellable_by_responder false).
func mayDecline(p *hitl.Principal, inq *hitl.Inquiry) error {
	if err := mayAnswer(p, inq); err != nil {
		return err
	}
	if !inq.CancellableByResponder {
		return forbidden("inquiry %d may not be declined: the agent that asked set cancellable_by_responder to false; answer it instead", inq.ID)
	}
	return nil
}

// answerer is who answers and who carried the answer (relayedBy, "" when nobody did), and
// whether they may: the caller answering as itself, when it may answer the inquiry; the
// person req.RespondedBy names when the caller may relay (admins, and the relay role, for
// bots that carry people's answers); or the person of the answer link the caller came
// through, carried by the link's maker. A relayed person must be one hitl knows who may answer
// the inquiry by hitl's own records (recordedPerson), never by what the relay asserts; the
// relay acts as that person, so it needs not see the inquiry itself, but to a relay that
// does not see it an inquiry its person may not answer does not exist. Anyone else may
// answer only as itself.
//
// Whoever answers stands in for the away people the engine finds now (withDelegations), not
// those the principal was made with, which may be older (a key cached, a long stream); for
// whom the answer is given, behalfOf decides.
func (e *Engine) answerer(ctx context.Context, p *hitl.Principal, inq *hitl.Inquiry, req *hitl.ResponseRequest) (answering, error) {
	named := req.RespondedBy
	if !relays(p, req) {
		p, err := e.withDelegations(ctx, p)
		if err != nil {
			return answering{}, err
		}
		if err := mayAnswer(p, inq); err != nil { // not found for whoever may not see it
			return answering{}, err
		}
		switch {
		case named == "" || named == p.Name:
			if err := carriedByAsker(inq, p.Via); err != nil {
				return answering{}, err
			}
			behalf, err := behalfOf(p, inq, req.OnBehalfOf)
			return answering{who: p, relayedBy: p.Via, onBehalfOf: behalf}, err
		case p.Via != "":
			return answering{}, forbidden("this answer link answers as %s only, not as %s", p.Name, named)
		}
		return answering{}, forbidden("%s may answer only as itself, not as %s: recording another person's answer needs the relay role", p.Name, named)
	}
	if !namePattern.MatchString(named) {
		return answering{}, hitl.Errorf(hitl.EInvalid, "responded_by must be 1 to 200 characters of letters, digits, . _ @ -")
	}
	person, err := e.recordedPerson(ctx, named)
	if err == nil {
		err = mayAnswerAs(person, inq)
	}
	if err == nil {
		err = carriedByAsker(inq, p.Name)
	}
	var behalf string
	if err == nil {
		behalf, err = behalfOf(person, inq, req.OnBehalfOf)
	}
	if err != nil {
		return answering{}, unseen(p, inq, err)
	}
	return answering{who: person, relayedBy: p.Name, onBehalfOf: behalf}, nil
}

// answering is who answers, who carried the answer ("" when nobody did), and the away person
// it is given for ("" when who answers as themself).
type answering struct {
	who                   *hitl.Principal
	relayedBy, onBehalfOf string
}

// separated is Separated for an answer: who answers and who carried it, and the away person it
// is for, who may not answer through a delegate what they may not answer themself.
func (e *Engine) separated(ctx context.Context, inq *hitl.Inquiry, a answering) error {
	if err := e.Separated(ctx, inq, a.who.Name, a.relayedBy); err != nil {
		return err
	}
	if a.onBehalfOf == "" {
		return nil
	}
	if err := e.Separated(ctx, inq, a.onBehalfOf); err != nil {
		return forbidden("%s may not answer inquiry %d for %s: %s", a.who.Name, inq.ID, a.onBehalfOf, hitl.ErrorMessage(err))
	}
	// Down a chain (alice → bob → carol), carol answers for alice through bob: bob chose her, so
	// whom the rule keeps from answering may not pass the inquiry on to a delegate of their own.
	list, err := e.absenceList(ctx)
	if err != nil {
		return err
	}
	chain := delegationsAt(list, e.clock()).chain(a.onBehalfOf)
	if i := slices.Index(chain, a.who.Name); i > 0 {
		for _, through := range chain[:i] {
			if err := e.Separated(ctx, inq, through); err != nil {
				return forbidden("%s may not answer inquiry %d for %s through %s, whose delegate they are: %s", a.who.Name, inq.ID, a.onBehalfOf, through, hitl.ErrorMessage(err))
			}
		}
	}
	return nil
}

// relays: the caller carries the answer of the person req names, as admins and the relay role
// may (an answer link answers as its own person only).
func relays(p *hitl.Principal, req *hitl.ResponseRequest) bool {
	return req.RespondedBy != "" && req.RespondedBy != p.Name && p.Via == "" && mayRelay(p)
}

// unseen is a refusal as the caller may hear it: to a caller that does not see the inquiry (a
// relay acting for a person), a refusal says only that the inquiry does not exist.
func unseen(p *hitl.Principal, inq *hitl.Inquiry, err error) error {
	if hitl.ErrorCode(err) == hitl.EForbidden && !canSee(p, inq) {
		return notFound(inq.ID)
	}
	return err
}

// carriedByAsker refuses an answer that the principal who asked the inquiry carries for
// someone else, by relaying it or through an answer link it made: who asks may never answer
// their own question in another's name, with or without separation of duties.
func carriedByAsker(inq *hitl.Inquiry, carrier string) error {
	if carrier != "" && carrier == inq.CreatedBy {
		return forbidden("%s asked inquiry %d, and who asks may not carry another person's answer to it", carrier, inq.ID)
	}
	return nil
}

// mayAnswerAs tells, in words, why a person named by someone else (a relay, an answer link)
// may not answer the inquiry; the caller could see it, so naming its assignees tells nothing new.
func mayAnswerAs(person *hitl.Principal, inq *hitl.Inquiry) error {
	if mayAnswer(person, inq) != nil {
		return forbidden("%s may not answer inquiry %d: it is assigned to %s, and hitl's records do not make %s one of them", person.Name, inq.ID, wording.Assignees(inq.AssignedTo), person.Name)
	}
	return nil
}

// recordedPerson is what hitl's own records make of a person whom someone else names (a
// relay's responded_by, the person of an answer link or of an email reply): a responder with
// the groups of the name's unrevoked keys. A name whose keys are all revoked has lost the
// power to answer; a name that never had a key answers as a person of no group when it is
// among hitl's people (people may be reached by email or chat without a key); any other name
// is nobody hitl knows. The principal holds the responder role only: being named by another
// never lends a person more than answering.
func (e *Engine) recordedPerson(ctx context.Context, name string) (*hitl.Principal, error) {
	roles, groups, revoked, err := e.keysOf(ctx, name)
	if err != nil {
		return nil, err
	}
	person := &hitl.Principal{Name: name, Roles: []string{hitl.RoleResponder}, Groups: groups}
	switch {
	case len(roles) > 0:
		if !CanAnswer(&hitl.Principal{Roles: roles}) {
			return nil, forbidden("%s may not answer: none of its keys holds the responder role", name)
		}
		return e.withDelegations(ctx, person)
	case revoked:
		return nil, forbidden("every key of %s has been revoked, so %s may no longer answer", name, name)
	}
	if _, err := e.store.Person(ctx, name); hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, forbidden("%s is not a person hitl knows: no key is named so and no person of that name is listed in people", name)
	} else if err != nil {
		return nil, err
	}
	return e.withDelegations(ctx, person)
}

// keysOf gathers the roles and groups of the name's unrevoked keys; revoked tells that the
// name had keys and every one of them is revoked.
func (e *Engine) keysOf(ctx context.Context, name string) (roles, groups []string, revoked bool, err error) {
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	had := false
	for _, k := range keys {
		if k.Name != name {
			continue
		}
		had = true
		if k.RevokedAt == nil {
			roles = append(roles, k.Roles...)
			groups = append(groups, k.Groups...)
		}
	}
	slices.Sort(groups)
	return roles, slices.Compact(groups), had && len(roles) == 0, nil
}

// mayRelay: carrying another's answer, by responded_by or an answer link made for them, needs
// the relay role or admin.
func mayRelay(p *hitl.Principal) bool { return p.IsAdmin() || p.Has(hitl.RoleRelay) }

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
// (a forbidden error with the reason). names are the person who answers and whoever carries
// the answer (a relay, the maker of an answer link): each is held to the rule, so that nobody
// excluded answers through another. The inbox asks it to show a form only to those whose
// answer could count.
func (e *Engine) Separated(ctx context.Context, inq *hitl.Inquiry, names ...string) error {
	owner, err := e.sessionOwner(ctx, inq)
	if err != nil {
		return err
	}
	for _, by := range names {
		switch {
		case by == "":
		case inq.ExcludeRequester && by == inq.CreatedBy:
			return forbidden("%s asked inquiry %d, and separation of duties keeps the one who asks from answering it", by, inq.ID)
		case owner != "" && by == owner:
			return forbidden("%s owns session %s, and separation of duties keeps its owner from answering its inquiries", by, inq.Session)
		}
	}
	return nil
}

func mayAdmin(p *hitl.Principal) error {
	if p.IsAdmin() {
		return nil
	}
	return forbidden("this needs the admin role")
}
