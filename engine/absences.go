package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
)

// Delegation while away. A person (or an admin for them) sets an absence: a period and a
// delegate. During it:
//
//   - the delegate may answer what is assigned to the person by name (not through a group: the
//     group's other members still answer), and the answer records on_behalf_of, "bob for alice";
//   - the messages that would go to the person go to the delegate, saying for whom;
//   - a delegate away too hands on to their own delegate, at most hitl.MaxDelegationDepth
//     delegates down the chain, never back to someone already in it.
//
// The absences are few and read on every authentication (who a principal acts for), so each
// node keeps them in memory and forgets them at each absence event, its own or another node's.
// Whether one holds is decided at the moment it is asked, by the engine's clock.

// absenceCache holds the stored absences between their changes.
type absenceCache struct {
	mu     sync.Mutex
	loaded bool
	list   []*hitl.Absence
}

func (c *absenceCache) forget() {
	c.mu.Lock()
	c.loaded, c.list = false, nil
	c.mu.Unlock()
}

func isAbsenceEvent(ev *hitl.Event) bool {
	return ev.Type == hitl.EventPersonAbsenceSet || ev.Type == hitl.EventPersonAbsenceEnded
}

// absenceList returns the stored absences, by person.
func (e *Engine) absenceList(ctx context.Context) ([]*hitl.Absence, error) {
	c := &e.absences
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded {
		return c.list, nil
	}
	list, err := e.store.Absences(ctx)
	if err != nil {
		return nil, err
	}
	c.loaded, c.list = true, list
	return list, nil
}

// delegations are the absences that hold at one moment: each away person's delegate.
type delegations map[string]string

func delegationsAt(list []*hitl.Absence, at time.Time) delegations {
	d := delegations{}
	for _, a := range list {
		if a.ActiveAt(at) {
			d[a.Person] = a.Delegate
		}
	}
	return d
}

// chain is who may answer for person, nearest first: their delegate, and while that one is
// away too, that one's delegate, up to hitl.MaxDelegationDepth of them, stopping before anyone
// already in the chain (the person included). Empty when the person is not away.
func (d delegations) chain(person string) []string {
	var out []string
	for at := person; len(out) < hitl.MaxDelegationDepth; {
		next, away := d[at]
		if !away || next == person || slices.Contains(out, next) {
			break
		}
		out = append(out, next)
		at = next
	}
	return out
}

// spends is whose votes a vote by by for behalf casts: the voter's, the away person's, and
// those of everyone between them down the chain (alice → bob → carol: carol's vote for alice
// is bob's too, whose delegate she is there), so that no one's vote counts twice.
func (d delegations) spends(by, behalf string) []string {
	out := []string{by}
	if behalf == "" {
		return out
	}
	out = append(out, behalf)
	chain := d.chain(behalf)
	if i := slices.Index(chain, by); i > 0 {
		out = append(out, chain[:i]...)
	}
	return out
}

// standIn is who is reached in person's place: the first delegate of the chain who is not away
// themself, else the last one the chain reaches; "" when the person is not away.
func (d delegations) standIn(person string) string {
	c := d.chain(person)
	for _, name := range c {
		if _, away := d[name]; !away {
			return name
		}
	}
	if len(c) == 0 {
		return ""
	}
	return c[len(c)-1]
}

// actsFor lists the away people name may answer for: those whose chain holds name, the
// nearest first (a direct delegation before one through somebody else).
func (d delegations) actsFor(name string) []string {
	type link struct {
		person string
		depth  int
	}
	var links []link
	for person := range d {
		if i := slices.Index(d.chain(person), name); i >= 0 && person != name {
			links = append(links, link{person, i})
		}
	}
	slices.SortFunc(links, func(a, b link) int {
		if a.depth != b.depth {
			return a.depth - b.depth
		}
		return strings.Compare(a.person, b.person)
	})
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.person
	}
	return out
}

// withDelegations returns p with ActsFor set to the away people p stands in for now (a copy:
// the principal given may be shared, as the key cache's are).
func (e *Engine) withDelegations(ctx context.Context, p *hitl.Principal) (*hitl.Principal, error) {
	list, err := e.absenceList(ctx)
	if err != nil {
		return nil, err
	}
	acts := delegationsAt(list, e.clock()).actsFor(p.Name)
	if len(acts) == 0 && len(p.ActsFor) == 0 {
		return p, nil
	}
	out := *p
	out.ActsFor = acts
	return &out, nil
}

// mayKeepAbsence: a person sets and ends their own absence; an admin anyone's.
func mayKeepAbsence(p *hitl.Principal, name string) error {
	if p.IsAdmin() || p.Name == name {
		return nil
	}
	return forbidden("only %s or an admin may set or end %s's absence; %s is neither", name, name, p.Name)
}

// SetAbsence sets a person's absence, replacing the one they had: from req.From until
// req.Until, req.Delegate answers in their place.
func (e *Engine) SetAbsence(ctx context.Context, p *hitl.Principal, name string, req *hitl.AbsenceRequest) (*hitl.Absence, error) {
	if err := checkPersonName(name); err != nil {
		return nil, err
	}
	if err := mayKeepAbsence(p, name); err != nil {
		return nil, err
	}
	if !CanAnswer(p) { // admins answer; an agent's key: it answers nothing, so hands nothing on
		return nil, forbidden("an absence hands a person's answering to a delegate, and %s may not answer: its key needs the responder role", name)
	}
	now := e.clock()
	var bad problems
	switch {
	case req.From.IsZero():
		bad.add("/from", "is required: when the absence starts, like 2026-12-22T00:00:00Z")
	case req.Until.IsZero():
		bad.add("/until", "is required: when the absence ends, like 2027-01-04T00:00:00Z")
	case !req.Until.After(req.From):
		bad.add("/until", "must be after from (%s)", req.From.UTC().Format(time.RFC3339))
	case !req.Until.After(now):
		bad.add("/until", "%s has passed already: an absence must end in the future", req.Until.UTC().Format(time.RFC3339))
	}
	switch {
	case req.Delegate == "":
		bad.add("/delegate", "is required: the person who answers in %s's place", name)
	case !namePattern.MatchString(req.Delegate):
		bad.add("/delegate", "must be 1 to 200 characters of letters, digits, . _ @ -")
	case req.Delegate == name:
		bad.add("/delegate", "%s cannot be their own delegate; name someone who answers in their place", name)
	}
	if err := bad.err("invalid absence"); err != nil {
		return nil, err
	}
	if _, err := e.recordedPerson(ctx, req.Delegate); err != nil {
		if hitl.ErrorCode(err) == hitl.EForbidden {
			return nil, &hitl.Error{Code: hitl.EInvalid, Message: "invalid absence: /delegate: " + hitl.ErrorMessage(err),
				Fields: []hitl.FieldError{{Path: "/delegate", Message: hitl.ErrorMessage(err)}}}
		}
		return nil, err
	}
	a := &hitl.Absence{Person: name, From: hitl.UTC(req.From), Until: hitl.UTC(req.Until), Delegate: req.Delegate, SetBy: p.Name, SetAt: now}
	list, err := e.absenceList(ctx)
	if err != nil {
		return nil, err
	}
	if err := loopOf(list, a); err != nil {
		return nil, err
	}
	if err := e.audited(ctx, p, hitl.EventPersonAbsenceSet, a, func(tx hitl.Tx) error {
		if _, err := tx.Identity(name); err != nil {
			return err
		}
		return tx.PutAbsence(a)
	}); err != nil {
		return nil, err
	}
	e.log.Info("absence set", "person", name, "delegate", a.Delegate, "from", a.From, "until", a.Until, "actor", p.Name)
	return a, nil
}

// loopOf refuses an absence whose delegate would hand the work back to its person: following
// the delegates from the new one, through absences that hold at some moment of the new one's
// period together, comes back to the person. (The chains followed at answer time stop at a
// loop too; this tells the person who sets it.)
func loopOf(list []*hitl.Absence, a *hitl.Absence) error {
	by := map[string]*hitl.Absence{}
	for _, other := range list {
		by[other.Person] = other
	}
	by[a.Person] = a
	from, until := a.From, a.Until
	path := []string{a.Person}
	for at := a; ; {
		path = append(path, at.Delegate)
		if at.Delegate == a.Person {
			return hitl.Errorf(hitl.EConflict, "this absence would make a loop of delegates, %s: each of them is away at the same time and names the next, so %s's inquiries would come back to %s. Choose another delegate, or end one of the others' absences first",
				strings.Join(path, " → "), a.Person, a.Person)
		}
		next := by[at.Delegate]
		if next == nil || slices.Contains(path[:len(path)-1], at.Delegate) {
			return nil // the chain ends, or loops without the person (stopped at answer time)
		}
		if next.From.After(from) {
			from = next.From
		}
		if next.Until.Before(until) {
			until = next.Until
		}
		if !from.Before(until) {
			return nil // not away at the same time
		}
		at = next
	}
}

// Absence returns a person's absence unless it has ended (ENotFound): to the person and admins.
func (e *Engine) Absence(ctx context.Context, p *hitl.Principal, name string) (*hitl.Absence, error) {
	if err := checkPersonName(name); err != nil {
		return nil, err
	}
	if err := mayKeepAbsence(p, name); err != nil {
		return nil, err
	}
	return e.currentAbsence(ctx, name)
}

// currentAbsence is name's absence unless it has ended, ENotFound otherwise.
func (e *Engine) currentAbsence(ctx context.Context, name string) (*hitl.Absence, error) {
	list, err := e.absenceList(ctx)
	if err != nil {
		return nil, err
	}
	now := e.clock()
	for _, a := range list {
		if a.Person == name && now.Before(a.Until) {
			shown := *a
			return &shown, nil
		}
	}
	return nil, hitl.Errorf(hitl.ENotFound, "%s has no absence set", name)
}

// EndAbsence ends a person's absence now (ENotFound when they have none that has not ended).
func (e *Engine) EndAbsence(ctx context.Context, p *hitl.Principal, name string) error {
	if err := checkPersonName(name); err != nil {
		return err
	}
	if err := mayKeepAbsence(p, name); err != nil {
		return err
	}
	if _, err := e.currentAbsence(ctx, name); err != nil {
		return err
	}
	shown := map[string]string{"person": name}
	if err := e.audited(ctx, p, hitl.EventPersonAbsenceEnded, shown, func(tx hitl.Tx) error { return tx.DeleteAbsence(name) }); err != nil {
		return err
	}
	e.log.Info("absence ended", "person", name, "actor", p.Name)
	return nil
}
