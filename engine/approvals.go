package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// Approvals that several people decide: a quorum (N distinct approvals, ended early by its
// reject rule) and a chain (steps, each a quorum of its own assignees, in order; any
// rejection ends it). Each vote is the approval's usual answer, validated as answers are, and
// written in a transaction that reads the inquiry locked, so two final votes racing on two
// nodes resolve it once: the second reads the first's outcome.
//
// The inquiry stays pending while votes come in (inquiry.voted, inquiry.step_completed); it is
// responded when the votes decide, with response {"approved", "votes"}. Waiting agents wake
// only then.

const (
	maxQuorum     = 50
	maxSteps      = 10
	maxStepPeople = maxAssignees
)

// checkApprovals reads a request's quorum, steps, pool and separation of duties into the new
// inquiry, whose deadline is known.
func checkApprovals(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry, now time.Time) {
	votes := req.Quorum != nil || len(req.Steps) > 0
	if votes && inq.RequestType != hitl.RequestApproval {
		bad.add("/request_type", "a quorum or steps need request_type approval, whose answers are votes")
	}
	if votes && (len(req.Options) > 0 || !hitl.IsNull(req.ResponseSchema)) {
		bad.add("/response_schema", "votes answer approved (and a comment): a quorum or steps take no response_schema or options")
	}
	if req.Quorum != nil && len(req.Steps) > 0 {
		bad.add("/quorum", "give quorum or steps, not both: each step has its own required")
	}
	if q := req.Quorum; q != nil {
		switch {
		case q.Required < 1 || q.Required > maxQuorum:
			bad.add("/quorum/required", "must be between 1 and %d", maxQuorum)
		case !q.Reject.Majority && q.Reject.Count > maxQuorum:
			bad.add("/quorum/reject", "must be any, majority or a number between 1 and %d", maxQuorum)
		case !slices.ContainsFunc(inq.AssignedTo, isGroupEntry) && len(inq.AssignedTo) > 0 && q.Required > len(inq.AssignedTo):
			bad.add("/quorum/required", "needs %d approvals, but assigned_to names only %s (%s)",
				q.Required, people(len(inq.AssignedTo)), wording.Assignees(inq.AssignedTo))
		}
		quorum := *q
		if quorum.Reject.Count == 0 && !quorum.Reject.Majority {
			quorum.Reject.Count = 1 // reject left out: the first rejection ends it
		}
		inq.Quorum = &quorum
	}
	if req.Steps != nil && len(req.Steps) == 0 {
		bad.add("/steps", "lists no step: give at least one, or leave steps out")
	}
	pools := inq.AssignedTo // before a chain makes them its first step's
	if len(req.Steps) > 0 {
		checkSteps(bad, req, inq, now)
	}
	for i, a := range pools {
		if _, ok := hitl.PoolOf(a); !ok {
			continue
		}
		switch {
		case len(pools) > 1:
			bad.add(fmt.Sprintf("/assigned_to/%d", i), "a pool picks the one person who answers: it stands alone in assigned_to")
		case votes:
			bad.add(fmt.Sprintf("/assigned_to/%d", i), "a pool picks one person; a quorum or steps need several")
		}
	}
	if slices.ContainsFunc(req.EscalateTo, func(a string) bool { _, ok := hitl.PoolOf(a); return ok }) {
		bad.add("/escalate_to", "pools are for assigned_to; escalate_to names people and groups")
	}
	inq.ExcludeRequester = excluded(req.ExcludeRequester, votes)
	inq.ExcludeSessionOwner = excluded(req.ExcludeSessionOwner, votes)
	if inq.ExcludeSessionOwner && inq.Session == "" && req.ExcludeSessionOwner != nil {
		bad.add("/exclude_session_owner", "applies to inquiries asked in a session")
	}
}

// excluded: separation of duties is on by default where several people decide.
func excluded(given *bool, votes bool) bool {
	if given != nil {
		return *given
	}
	return votes
}

// people counts people in words: "1 person", "3 people".
func people(n int) string {
	if n == 1 {
		return "1 person"
	}
	return fmt.Sprintf("%d people", n)
}

func isGroupEntry(a string) bool { return strings.HasPrefix(a, hitl.GroupPrefix) }

// checkSteps reads a chain: its steps are its assignees (assigned_to is the current step's),
// and its deadline is the sooner of the inquiry's and the current step's.
func checkSteps(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry, now time.Time) {
	if len(req.AssignedTo) > 0 {
		bad.add("/assigned_to", "a chain's assignees are those of its steps: give assigned_to in each step")
	}
	if req.EscalateAfter != "" || len(req.EscalateTo) > 0 {
		bad.add("/escalate_to", "a chain moves on by its steps; it does not escalate")
	}
	if len(req.Escalate) > 0 {
		bad.add("/escalate", "a chain moves on by its steps; it does not escalate")
	}
	if len(req.Steps) > maxSteps {
		bad.add("/steps", "at most %d steps", maxSteps)
		return
	}
	steps := make([]hitl.ApprovalStep, len(req.Steps))
	for i, s := range req.Steps {
		path := fmt.Sprintf("/steps/%d", i)
		checkAssignees(bad, path+"/assigned_to", s.AssignedTo, maxStepPeople)
		switch {
		case len(s.AssignedTo) == 0:
			bad.add(path+"/assigned_to", "is required: who approves this step")
		case slices.ContainsFunc(s.AssignedTo, func(a string) bool { _, ok := hitl.PoolOf(a); return ok }):
			bad.add(path+"/assigned_to", "a step names people and groups, not pools")
		}
		switch {
		case s.Required == 0:
			s.Required = 1
		case s.Required < 0 || s.Required > maxQuorum:
			bad.add(path+"/required", "must be between 1 and %d", maxQuorum)
		case !slices.ContainsFunc(s.AssignedTo, isGroupEntry) && s.Required > len(s.AssignedTo):
			bad.add(path+"/required", "needs %d approvals, but the step names only %s (%s)",
				s.Required, people(len(s.AssignedTo)), wording.Assignees(s.AssignedTo))
		}
		if t := s.TimeoutSeconds; t != nil && (*t < 1 || *t > maxTimeoutSeconds) {
			bad.add(path+"/timeout_seconds", "must be between 1 and %d", maxTimeoutSeconds)
		}
		if s.StartedAt != nil || s.TimeoutAt != nil || s.CompletedAt != nil {
			bad.add(path, "started_at, timeout_at and completed_at are the chain's to fill in")
		}
		steps[i] = hitl.ApprovalStep{AssignedTo: slices.Clone(s.AssignedTo), Required: s.Required, TimeoutSeconds: s.TimeoutSeconds}
	}
	inq.Steps = steps
	inq.ChainTimeoutAt = inq.TimeoutAt
	startStep(inq, 1, now)
}

// startStep makes step n current: its people become the assignees, its deadline starts.
func startStep(inq *hitl.Inquiry, n int, now time.Time) {
	inq.Steps = slices.Clone(inq.Steps)
	inq.CurrentStep = n
	s := &inq.Steps[n-1]
	s.StartedAt = &now
	if s.TimeoutSeconds != nil {
		at := now.Add(time.Duration(*s.TimeoutSeconds) * time.Second)
		s.TimeoutAt = &at
	}
	inq.AssignedTo = []string(slices.Clone(s.AssignedTo))
	inq.TimeoutAt = sooner(inq.ChainTimeoutAt, s.TimeoutAt)
}

func sooner(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.Before(*a)) {
		return b
	}
	return a
}

// ballot is a vote as read from an answer, before the writer.
type ballot struct {
	by, relayedBy, onBehalfOf string
	approved                  bool
	comment                   string
	// allowFor, allowArgs: the standing approval the voter asks for (engine/rules.go).
	allowFor, allowArgs string
	// away are the absences that hold as the vote is cast: whose votes each vote spends.
	away delegations
}

// castAlready is the vote of the current vote that b may not add to: one cast by b's voter or
// for them, or, when b is for someone away, one cast by or for that person. A delegate has one
// vote, as themself or for whom they stand in for, and an away person's vote is cast once,
// by them or by a delegate.
func castAlready(inq *hitl.Inquiry, b ballot) *hitl.Vote {
	mine := b.away.spends(b.by, b.onBehalfOf)
	for i, v := range inq.Votes {
		if len(inq.Steps) > 0 && v.Step != inq.CurrentStep {
			continue
		}
		if slices.ContainsFunc(b.away.spends(v.By, v.OnBehalfOf), func(name string) bool { return slices.Contains(mine, name) }) {
			return &inq.Votes[i]
		}
	}
	return nil
}

// sameVote: b repeats v, the same voter for the same person with the same answer (a safe retry).
func sameVote(v *hitl.Vote, b ballot) bool {
	return v != nil && v.By == b.by && v.OnBehalfOf == b.onBehalfOf && v.Approved == b.approved
}

// vote records one vote of an approval that several people decide (see Respond, which
// checked who may answer and that the answer fits); who is the voter.
func (e *Engine) vote(ctx context.Context, who *hitl.Principal, cur *hitl.Inquiry, b ballot) (*hitl.Inquiry, error) {
	voters, err := e.voters(ctx, cur)
	if err != nil {
		return nil, err
	}
	var (
		out *hitl.Inquiry
		evs []*hitl.Event
	)
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		out, evs = nil, nil
		now := e.clock()
		fresh, err := pendingInTx(tx, cur.ID, now)
		if err != nil {
			return err
		}
		if prev := castAlready(fresh, b); prev != nil {
			if sameVote(prev, b) {
				out = fresh // the same vote again (its comment, as an answer's, is not compared): a safe retry
				return nil
			}
			return alreadyVoted(fresh, prev, b)
		}
		if fresh.CurrentStep != cur.CurrentStep { // the chain moved on since it was read
			if err := mayAnswer(who, fresh); err != nil {
				return err
			}
			if voters, err = e.voters(ctx, fresh); err != nil {
				return err
			}
		}
		next := *fresh
		next.UpdatedAt = now
		v := hitl.Vote{By: b.by, Approved: b.approved, Comment: b.comment, At: now, RelayedBy: b.relayedBy, OnBehalfOf: b.onBehalfOf,
			AllowFor: b.allowFor, AllowArgs: b.allowArgs}
		if len(next.Steps) > 0 {
			v.Step = next.CurrentStep
		}
		next.Votes = append(slices.Clip(next.Votes), v)
		out = &next
		voted, err := appendInquiryEventWith(tx, hitl.EventInquiryVoted, out, struct {
			*hitl.Inquiry
			Vote hitl.Vote `json:"vote"`
		}{out, v}, wording.VoteBy(&v), now)
		if err != nil {
			return err
		}
		evs = []*hitl.Event{voted}
		switch tally(out, voters) {
		case undecided:
			return tx.UpdatePendingInquiry(out)
		case stepApproved:
			if out.CurrentStep < len(out.Steps) {
				return e.nextStep(tx, out, now, &evs)
			}
			return e.decide(tx, out, true, b, now, &evs)
		default: // rejected
			return e.decide(tx, out, false, b, now, &evs)
		}
	})
	var final errFinal
	switch {
	case errors.As(err, &final):
		if sameVote(castAlready(final.cur, b), b) {
			return final.cur, nil
		}
		return nil, conflictFinal(final.cur)
	case errors.As(err, &errLate{}):
		return nil, e.late(ctx, cur.ID)
	case err != nil:
		return nil, err
	}
	e.published(evs)
	return out, nil
}

// alreadyVoted refuses b, which prev's vote leaves no room for, in words that say why.
func alreadyVoted(inq *hitl.Inquiry, prev *hitl.Vote, b ballot) error {
	word := "rejected"
	if prev.Approved {
		word = "approved"
	}
	at := prev.At.Format(time.RFC3339)
	msg := fmt.Sprintf("%s already %s inquiry %d at %s; a vote cannot be changed", prev.By, word, inq.ID, at)
	switch {
	case prev.By == b.by && prev.OnBehalfOf == b.onBehalfOf:
	case prev.By == b.by:
		msg = fmt.Sprintf("%s already %s inquiry %d at %s (%s); a delegate has one vote in it, their own or the one for whom they stand in for, not both",
			b.by, word, inq.ID, at, asWhom(prev))
	default:
		theirs := b.away.spends(prev.By, prev.OnBehalfOf)
		mine := b.away.spends(b.by, b.onBehalfOf)
		whose := mine[slices.IndexFunc(mine, func(name string) bool { return slices.Contains(theirs, name) })]
		msg = fmt.Sprintf("%s's vote on inquiry %d is cast already: %s %s it at %s; a vote counts once, whether the person or their delegate casts it",
			whose, inq.ID, wording.VoteBy(prev), word, at)
	}
	return &hitl.Error{Code: hitl.EConflict, Inquiry: inq, Message: msg}
}

// asWhom says how a vote was cast: "as themself" or "for alice".
func asWhom(v *hitl.Vote) string {
	if v.OnBehalfOf != "" {
		return "for " + v.OnBehalfOf
	}
	return "as themself"
}

// nextStep completes the current step of a chain and starts the next one.
func (e *Engine) nextStep(tx hitl.Tx, out *hitl.Inquiry, now time.Time, evs *[]*hitl.Event) error {
	done := out.CurrentStep
	out.Steps = slices.Clone(out.Steps)
	out.Steps[done-1].CompletedAt = &now
	startStep(out, done+1, now)
	if err := tx.UpdatePendingInquiry(out); err != nil {
		return err
	}
	ev, err := appendInquiryEventWith(tx, hitl.EventInquiryStepCompleted, out, struct {
		*hitl.Inquiry
		Step  int      `json:"step"`
		Added []string `json:"added"`
	}{out, done, out.AssignedTo}, "system", now)
	*evs = append(*evs, ev)
	return err
}

// decide resolves the inquiry with the votes' outcome; the vote that decided it is its answer's.
func (e *Engine) decide(tx hitl.Tx, out *hitl.Inquiry, approved bool, b ballot, now time.Time, evs *[]*hitl.Event) error {
	if approved && len(out.Steps) > 0 {
		out.Steps = slices.Clone(out.Steps)
		out.Steps[out.CurrentStep-1].CompletedAt = &now
	}
	final := resolved(out, hitl.StatusResponded, now)
	final.Response, _ = json.Marshal(hitl.VoteOutcome{Approved: approved, Votes: out.Votes})
	final.RespondedBy, final.RespondedAt = &b.by, &now
	if b.relayedBy != "" {
		final.RelayedBy = &b.relayedBy
	}
	if b.onBehalfOf != "" {
		final.OnBehalfOf = &b.onBehalfOf
	}
	if b.comment != "" {
		final.Comment = &b.comment
	}
	identity, err := tx.Identity(b.by)
	if err != nil {
		return err
	}
	final.RespondedByID = &identity
	final.ToolResult = toolResult(final)
	if err := e.issueReceipt(final, voteDeciders(final, approved), now); err != nil {
		return err
	}
	if err := tx.ResolveInquiry(final); err != nil {
		return err
	}
	*out = *final
	ev, err := e.appendDecision(tx, hitl.EventInquiryResponded, final, wording.AnsweredBy(final), now)
	*evs = append(*evs, ev)
	if err != nil || !approved || len(final.Steps) > 0 {
		return err
	}
	return e.quorumRule(tx, final, now, evs) // engine/rules.go
}

// Outcomes of a tally.
const (
	undecided = iota
	stepApproved
	rejected
)

// tally says where the current vote stands. voters are the people who may vote in it, nil
// when that is not known (an unassigned quorum, a group nobody's key carries): then
// "majority" means as many rejections as approvals required, and no vote is lost early.
func tally(inq *hitl.Inquiry, voters []string) int {
	approvals, rejections := 0, 0
	votes := inq.CurrentVotes()
	for _, v := range votes {
		if v.Approved {
			approvals++
		} else {
			rejections++
		}
	}
	left := 0 // those who may vote and have not
	for _, name := range voters {
		if !slices.ContainsFunc(votes, func(v hitl.Vote) bool { return v.Covers(name) }) {
			left++
		}
	}
	required := inq.Required()
	if approvals >= required {
		return stepApproved
	}
	rule := hitl.RejectRule{Count: 1} // a chain: any rejection ends it
	if inq.Quorum != nil {
		rule = inq.Quorum.Reject
	}
	switch {
	case rule.Majority && voters != nil && 2*rejections > len(voters):
		return rejected
	case rule.Majority && voters == nil && rejections >= required:
		return rejected
	case !rule.Majority && rejections >= rule.Count:
		return rejected
	case voters != nil && approvals+left < required:
		return rejected // too few people are left to approve it
	}
	return undecided
}

// voters lists the people who may vote in the current vote: the named assignees and the
// members of its groups (the principals whose keys carry the group), less those separation of
// duties excludes; nil when that is not known.
func (e *Engine) voters(ctx context.Context, inq *hitl.Inquiry) ([]string, error) {
	if len(inq.AssignedTo) == 0 {
		return nil, nil
	}
	var out []string
	var members map[string][]string
	for _, a := range inq.AssignedTo {
		group, ok := hitl.GroupOf(a)
		if !ok {
			out = append(out, a)
			continue
		}
		if members == nil {
			var err error
			if members, err = e.groupMembers(ctx); err != nil {
				return nil, err
			}
		}
		if len(members[group]) == 0 {
			return nil, nil
		}
		out = append(out, members[group]...)
	}
	owner, err := e.sessionOwner(ctx, inq)
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(name string) bool {
		return (inq.ExcludeRequester && name == inq.CreatedBy) || (owner != "" && name == owner)
	}), nil
}

// groupMembers maps each group to the principals whose unrevoked keys carry it, by name.
func (e *Engine) groupMembers(ctx context.Context) (map[string][]string, error) {
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, k := range keys {
		if k.RevokedAt != nil {
			continue
		}
		for _, g := range k.Groups {
			if !slices.Contains(out[g], k.Name) {
				out[g] = append(out[g], k.Name)
			}
		}
	}
	for _, ms := range out {
		slices.Sort(ms)
	}
	return out, nil
}

// respondVote is Respond for an inquiry that votes decide: the answer is checked as any answer
// is, then counted as the vote of a.who (the person, whoever carried it, for whomever it is).
func (e *Engine) respondVote(ctx context.Context, a answering, cur *hitl.Inquiry, req *hitl.ResponseRequest) (*hitl.Inquiry, error) {
	who, by, relayedBy := a.who, a.who.Name, a.relayedBy
	if err := e.separated(ctx, cur, a); err != nil {
		return nil, err
	}
	response, err := e.checkResponse(ctx, cur, req)
	if err != nil {
		if cur.Status.Final() {
			return nil, conflictFinal(cur)
		}
		return nil, err
	}
	b, err := readBallot(response, by, relayedBy, req.Comment)
	if err != nil {
		return nil, err
	}
	b.onBehalfOf = a.onBehalfOf
	if req.AllowFor != "" || req.AllowArgs != "" {
		if len(cur.Steps) > 0 {
			return nil, errChainAllow
		}
		if _, err := e.allowRequested(cur, by, req, response, e.clock()); err != nil {
			return nil, err
		}
		b.allowFor, b.allowArgs = req.AllowFor, req.AllowArgs
	}
	list, err := e.absenceList(ctx)
	if err != nil {
		return nil, err
	}
	b.away = delegationsAt(list, e.clock())
	if cur.Status.Final() {
		if sameVote(castAlready(cur, b), b) {
			return cur, nil
		}
		return nil, conflictFinal(cur)
	}
	return e.vote(ctx, who, cur, b)
}

// readBallot reads a vote from a checked approval answer.
func readBallot(response json.RawMessage, by, relayedBy, comment string) (ballot, error) {
	var a struct {
		Approved *bool  `json:"approved"`
		Comment  string `json:"comment"`
	}
	if err := json.Unmarshal(response, &a); err != nil || a.Approved == nil {
		return ballot{}, hitl.Errorf(hitl.EInvalidResponse, "a vote answers approved: true or false")
	}
	if comment == "" {
		comment = a.Comment
	}
	return ballot{by: by, relayedBy: relayedBy, approved: *a.Approved, comment: comment}, nil
}
