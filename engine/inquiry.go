package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/deadline"
	"github.com/hitl-dev/hitl/internal/jsonlimit"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/internal/wording"
)

const maxIdempotencyKey = 200

// defaultListLimit is the page size of a list asked for without one.
const defaultListLimit = 100

// MaxWait is the longest a single wait may last.
const MaxWait = 5 * time.Minute

// CreateInquiry asks a question. With an idempotency key, the same key from the same
// principal returns the inquiry it first created (created = false) whatever its status now;
// the same key with a different request is a conflict.
func (e *Engine) CreateInquiry(ctx context.Context, p *hitl.Principal, req *hitl.InquiryRequest, idempotencyKey string) (inq *hitl.Inquiry, created bool, err error) {
	ctx, span := e.tracer.Start(ctx, "hitl.create_inquiry")
	defer func() { endInquirySpan(span, inq, err) }()
	if err := mayAsk(p); err != nil {
		return nil, false, err
	}
	if len(idempotencyKey) > maxIdempotencyKey {
		return nil, false, hitl.Errorf(hitl.EInvalid, "Idempotency-Key must be at most %d characters", maxIdempotencyKey)
	}
	hash := requestHash(req)
	now := e.clock()
	inq, buildErr := e.buildInquiry(ctx, p, req, now)
	if buildErr == nil {
		buildErr = dedupOf(req, inq) // engine/dedup.go
	}
	if buildErr != nil {
		// A retry of a request that was valid when first sent (say, with a timeout_at that
		// has passed since) still gets its inquiry back.
		if idempotencyKey != "" {
			if prev, err := e.replay(ctx, p, idempotencyKey, hash); err != nil || prev != nil {
				return prev, false, err
			}
		}
		return nil, false, buildErr
	}
	rule, err := e.ruleFor(ctx, inq) // a standing approval (engine/rules.go)
	if err != nil {
		return nil, false, err
	}
	var (
		evs  []*hitl.Event
		prev *hitl.Inquiry
		made = inq
	)
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		made = inq
		evs, prev = nil, nil
		if idempotencyKey != "" {
			found, err := replayTx(tx, p, idempotencyKey, hash)
			if err != nil || found != nil {
				prev = found
				return err
			}
		}
		if req.IfSessionVersion != nil {
			if _, err := tx.Session(req.Session); err != nil { // holds its row (PostgreSQL)
				return err
			}
			if err := checkSessionVersion(tx, req.Session, req.IfSessionVersion); err != nil {
				return err
			}
		}
		var err error
		if evs, err = e.insertJoining(tx, p, inq, now); err != nil {
			return err
		}
		if rule != nil {
			var ruled []*hitl.Event
			if made, ruled, err = e.applyRule(tx, rule, inq, now); err != nil {
				return err
			}
			evs = append(evs, ruled...)
		}
		if idempotencyKey != "" {
			err := tx.InsertIdempotencyKey(p.Name, idempotencyKey, hash, inq.ID, now)
			if hitl.ErrorCode(err) == hitl.EConflict {
				return errIdempotencyRace{} // the same key committed elsewhere a moment ago
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if errors.As(err, &errIdempotencyRace{}) {
		prev, err = e.replay(ctx, p, idempotencyKey, hash)
	}
	if err != nil {
		return nil, false, err
	}
	if prev != nil {
		return prev, false, nil
	}
	e.published(evs)
	if rule != nil {
		e.ruleApplied(rule)
	}
	e.log.Debug("inquiry created", "inquiry_id", inq.ID, "session", inq.Session, "actor", p.Name)
	return made, true, nil
}

// insertInquiry stores a new inquiry in its session (created on first use) with the event
// that says so, and returns the events to publish after commit.
func (e *Engine) insertInquiry(tx hitl.Tx, p *hitl.Principal, inq *hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
	var evs []*hitl.Event
	if inq.Session != "" {
		ev, err := e.joinSession(tx, p, inq, now)
		if err != nil {
			return nil, err
		}
		if ev != nil {
			evs = append(evs, ev)
		}
	}
	if err := tx.InsertInquiry(inq); err != nil {
		return nil, err
	}
	ev, err := appendInquiryEvent(tx, hitl.EventInquiryCreated, inq, p.Name, now)
	if err != nil || inq.Pool == "" {
		return append(evs, ev), err
	}
	assigned, err := assignedEvent(tx, inq)
	return append(evs, ev, assigned), err
}

// errIdempotencyRace: two requests with one idempotency key were created at once (on two
// nodes); the one that lost rolls back and answers with the winner's inquiry.
type errIdempotencyRace struct{}

func (errIdempotencyRace) Error() string { return "idempotency key used concurrently" }

func (e *Engine) replay(ctx context.Context, p *hitl.Principal, key, hash string) (prev *hitl.Inquiry, err error) {
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		prev, err = replayTx(tx, p, key, hash)
		return err
	})
	return prev, err
}

// replayTx returns the inquiry an idempotency key already created, nil if the key is new.
func replayTx(tx hitl.Tx, p *hitl.Principal, key, hash string) (*hitl.Inquiry, error) {
	id, prevHash, err := tx.IdempotencyKey(p.Name, key)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if prevHash != hash {
		return nil, hitl.Errorf(hitl.EConflict, "Idempotency-Key %q was used before with a different request (inquiry %d)", key, id)
	}
	return tx.Inquiry(id)
}

func requestHash(req *hitl.InquiryRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// joinSession creates the inquiry's session on first use, refuses a session another
// principal owns, and enforces exclusivity: an exclusive inquiry must be the session's only
// pending one.
func (e *Engine) joinSession(tx hitl.Tx, p *hitl.Principal, inq *hitl.Inquiry, now time.Time) (*hitl.Event, error) {
	var ev *hitl.Event
	s, err := tx.Session(inq.Session)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		s = &hitl.Session{Key: inq.Session, Status: hitl.SessionRunning, Agent: inq.Origin, CreatedBy: p.Name,
			Metadata: map[string]string{}, CreatedAt: now, UpdatedAt: now}
		switch err = tx.InsertSession(s); {
		case err == nil:
			if ev, err = appendSessionEvent(tx, hitl.EventSessionUpdated, s, p.Name, now); err != nil {
				return nil, err
			}
		case hitl.ErrorCode(err) == hitl.EConflict:
			s, err = tx.Session(inq.Session) // another node created it a moment ago
		}
	}
	if err == nil {
		err = mayClaimSession(p, s) // only its owner (or an admin) asks in a session
	}
	switch {
	case err != nil:
		return nil, err
	case s.Status.Finished():
		return nil, hitl.Errorf(hitl.EConflict, "session %s is %s; ask in a session that is still running", s.Key, s.Status)
	}
	if s.PendingInquiries == 0 {
		return ev, nil
	}
	pending, err := tx.PendingInquiries(inq.Session)
	if err != nil {
		return nil, err
	}
	for _, other := range pending {
		if inq.Exclusive {
			return nil, hitl.Errorf(hitl.EConflict, "session %s already has a pending inquiry (%d) and this one is exclusive", s.Key, other.ID)
		}
		if other.Exclusive {
			return nil, hitl.Errorf(hitl.EConflict, "session %s has a pending exclusive inquiry (%d)", s.Key, other.ID)
		}
	}
	return ev, nil
}

// Inquiry returns one inquiry the principal may see (ENotFound otherwise).
func (e *Engine) Inquiry(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Inquiry, error) {
	inq, err := e.store.Inquiry(ctx, id)
	if err != nil {
		return nil, err
	}
	if !canSee(p, inq) {
		return nil, notFound(id)
	}
	return inq, nil
}

func notFound(id int64) error { return hitl.Errorf(hitl.ENotFound, "inquiry %d not found", id) }

// Inquiries lists what the principal may see, newest first or soonest deadline first.
func (e *Engine) Inquiries(ctx context.Context, p *hitl.Principal, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	if err := checkInquiryFilter(&f); err != nil {
		return nil, "", err
	}
	f.Visibility = visibility(p)
	return e.store.Inquiries(ctx, f)
}

// CountInquiries counts what Inquiries lists on all its pages.
func (e *Engine) CountInquiries(ctx context.Context, p *hitl.Principal, f hitl.InquiryFilter) (int, error) {
	if err := checkInquiryFilter(&f); err != nil {
		return 0, err
	}
	f.Visibility = visibility(p)
	return e.store.CountInquiries(ctx, f)
}

func checkInquiryFilter(f *hitl.InquiryFilter) error {
	if f.Page.Limit <= 0 {
		f.Page.Limit = defaultListLimit // a caller that gives none gets a page, not a panic
	}
	if f.Status != "" && !f.Status.Valid() {
		return hitl.Errorf(hitl.EInvalid, "status must be pending, responded, timeout or cancelled")
	}
	if f.RequestType != "" && !f.RequestType.Valid() {
		return hitl.Errorf(hitl.EInvalid, "request_type must be approval, clarification, selection or input")
	}
	if !f.Order.Valid() {
		return hitl.Errorf(hitl.EInvalid, "order must be newest or deadline")
	}
	if n := utf8.RuneCountInString(f.Text); n > maxShortText {
		return hitl.Errorf(hitl.EInvalid, "q is %d characters long; at most %d are allowed", n, maxShortText)
	}
	return nil
}

// LastEventSeq is the seq of the newest event: a page rendered from the state after it
// follows the stream from there.
func (e *Engine) LastEventSeq(ctx context.Context) (int64, error) { return e.store.LastEventSeq(ctx) }

// errFinal stops a transaction that found the inquiry already final; the caller answers from cur.
type errFinal struct{ cur *hitl.Inquiry }

func (errFinal) Error() string { return "inquiry is final" }

// errLate stops a transaction that found the deadline passed before the timer fired.
type errLate struct{}

func (errLate) Error() string { return "deadline passed" }

// pendingInTx reads an inquiry that a human or its agent is about to resolve: errFinal when it
// is already final, errLate when its deadline has passed.
func pendingInTx(tx hitl.Tx, id int64, now time.Time) (*hitl.Inquiry, error) {
	cur, err := tx.Inquiry(id)
	switch {
	case err != nil:
		return nil, err
	case cur.Status.Final():
		return nil, errFinal{cur}
	case cur.TimeoutAt != nil && !now.Before(*cur.TimeoutAt):
		return nil, errLate{}
	}
	return cur, nil
}

// notInSessionError refuses an answer to inquiry id that names a session it is not in.
func notInSessionError(id int64, session string) error {
	return hitl.Errorf(hitl.ENotFound, "inquiry %d is not in session %s", id, session)
}

// Respond records a human's answer. Exactly one answer wins; the same answer again from the
// same principal returns the inquiry (a safe retry); any other later call is a conflict that
// carries the current state.
//
// Everything that reads and checks (who may answer, whether the answer fits, compiling the
// schema after a restart) happens before the writer: an answer that costs seconds to validate
// holds nobody else's writes. Nothing checked there changes while the inquiry is pending (its
// assignees, schema and deadline are fixed when it is created; only resolving it changes it),
// so the writer only has to make sure that it still is: the write is conditional on it
// (ResolveInquiry's EConflict), and only when it fails is the inquiry read again, to answer
// with its final state. The writer reads nothing on the way that succeeds.
func (e *Engine) Respond(ctx context.Context, p *hitl.Principal, id int64, req *hitl.ResponseRequest) (inq *hitl.Inquiry, err error) {
	ctx, span := e.tracer.Start(ctx, "hitl.respond", trace.WithAttributes(attribute.Int64("hitl.inquiry_id", id)))
	defer func() { endInquirySpan(span, inq, err) }()
	cur, err := e.store.Inquiry(ctx, id)
	if err != nil {
		return nil, err
	}
	// An answer usually comes in a trace of its own (a person's browser): linked to the
	// inquiry's, it can be found from the agent's.
	tracing.Link(span, cur.Traceparent, cur.Tracestate)
	// An inquiry of another session is not found, before who may answer is asked, to whoever
	// may know of the inquiry: the caller who sees it, or one the answerer lets through.
	notInSession := req.Session != "" && cur.Session != req.Session
	if notInSession && canSee(p, cur) {
		return nil, notInSessionError(id, req.Session)
	}
	a, err := e.answerer(ctx, p, cur, req) // who may answer, as whom, and for whom
	if err != nil {
		return nil, err
	}
	who, relayedBy := a.who, a.relayedBy
	if notInSession {
		return nil, notInSessionError(id, req.Session)
	}
	if err := answeringJoined(cur); err != nil {
		return nil, err
	}
	by := who.Name
	if cur.HasDecisions() {
		given := *req
		given.Response = approvalAsDecision(cur, req.Response)
		req = &given
	}
	if cur.IsVote() {
		return e.respondVote(ctx, a, cur, req)
	}
	if cur.Status.Final() {
		return answeredAlready(by, cur, req)
	}
	now := e.clock()
	if cur.TimeoutAt != nil && !now.Before(*cur.TimeoutAt) {
		return nil, e.late(ctx, id)
	}
	if err := e.separated(ctx, cur, a); err != nil {
		return nil, err
	}
	if c := cur.Claim; c.Claimed(now) && c.By != by {
		return nil, claimedBy(cur, now)
	}
	response, err := e.checkResponse(ctx, cur, req)
	if err != nil {
		return nil, err
	}
	allow, err := e.allowRequested(cur, by, req, response, now) // engine/rules.go
	if err != nil {
		return nil, err
	}
	out := resolved(cur, hitl.StatusResponded, now)
	out.Response, out.Chosen = response, chosenIn(cur, response)
	out.RespondedBy, out.RespondedAt = &by, &now
	if relayedBy != "" {
		out.RelayedBy = &relayedBy
	}
	if a.onBehalfOf != "" {
		out.OnBehalfOf = &a.onBehalfOf
	}
	if comment := answerComment(cur, response, req.Comment); comment != "" {
		out.Comment = &comment
	}
	out.ToolResult = toolResult(out)
	// Signed before the writer: the receipt depends on nothing the writer reads.
	if err := e.issueReceipt(out, answerDeciders(out), now); err != nil {
		return nil, err
	}
	var evs []*hitl.Event
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		identity := who.IdentityID
		if identity == 0 { // someone without a key: an answer link, a chat or email reply, a relayed person
			var err error
			if identity, err = tx.Identity(by); err != nil {
				return err
			}
		}
		out.RespondedByID = &identity
		err := tx.ResolveInquiry(out)
		if hitl.ErrorCode(err) == hitl.EConflict { // resolved since it was read
			final, err := tx.Inquiry(id)
			if err != nil {
				return err
			}
			return errFinal{final}
		}
		if err != nil {
			return err
		}
		ev, err := e.appendDecision(tx, hitl.EventInquiryResponded, out, wording.AnsweredBy(out), now)
		evs = []*hitl.Event{ev}
		if err != nil || allow == nil {
			return err
		}
		ruled, err := insertRuleWith(tx, allow, now)
		evs = append(evs, ruled)
		return err
	})
	var final errFinal
	switch {
	case errors.As(err, &final):
		return answeredAlready(by, final.cur, req)
	case err != nil:
		return nil, err
	}
	e.published(evs)
	return out, nil
}

// checkResponse validates an answer to a pending inquiry and returns it compacted: the text
// stored is the one the schema was checked against. null is an answer like any other, valid
// when the schema allows it; only a missing response is refused here.
func (e *Engine) checkResponse(ctx context.Context, inq *hitl.Inquiry, req *hitl.ResponseRequest) (json.RawMessage, error) {
	var bad problems
	if len(req.Response) == 0 {
		bad.add("/response", "is required")
	}
	if n := utf8.RuneCountInString(req.Comment); n > maxComment {
		bad.add("/comment", "is %d characters long; at most %d are allowed", n, maxComment)
	}
	if err := bad.err("invalid answer"); err != nil {
		return nil, err
	}
	response, fields, err := e.decodeAnswer(ctx, inq, req.Response)
	if err != nil {
		return nil, err
	}
	if fields != nil {
		return nil, &hitl.Error{Code: hitl.EInvalidResponse, Message: invalidAnswerMessage(fields), Fields: fields}
	}
	return response, nil
}

// answerComment is the comment of an answer: the one given with it, else, for a plain
// approval, the comment its answer holds ({"approved": true, "comment": "…"}), so that the
// answer's comment is set whichever way the answer came (an API client or an older channel
// that puts it in the answer only), as a vote's is (readBallot).
func answerComment(inq *hitl.Inquiry, response json.RawMessage, given string) string {
	if given != "" || !inq.IsPlainApproval() {
		return given
	}
	var a struct {
		Comment string `json:"comment"`
	}
	if json.Unmarshal(response, &a) != nil {
		return ""
	}
	return a.Comment
}

// CheckAnswer says what the inquiry's schema finds wrong with an answer, recording nothing: a
// form whose fields could not all be read (a number that is not one, JSON that does not
// parse) shows the problems of the others with theirs, so a person fixes everything after one
// submit. The answer is checked as Respond checks it, in a validation slot; inq is the
// inquiry as the caller read it, as one who may answer it.
func (e *Engine) CheckAnswer(ctx context.Context, inq *hitl.Inquiry, response json.RawMessage) ([]hitl.FieldError, error) {
	_, fields, err := e.decodeAnswer(ctx, inq, response)
	return fields, err
}

func invalidAnswerMessage(fields []hitl.FieldError) string {
	f := fields[0]
	where := f.Path
	if where == "" {
		where = "the answer"
	}
	msg := fmt.Sprintf("the answer does not fit the inquiry: %s: %s", where, f.Message)
	if len(fields) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(fields)-1)
	}
	return msg
}

// answeredAlready answers a respond call on a final inquiry.
// by is whom the answer is recorded as (see answerer).
func answeredAlready(by string, cur *hitl.Inquiry, req *hitl.ResponseRequest) (*hitl.Inquiry, error) {
	if cur.Status == hitl.StatusResponded && cur.RespondedBy != nil && *cur.RespondedBy == by && sameJSON(cur.Response, req.Response) {
		return cur, nil
	}
	return nil, conflictFinal(cur)
}

func conflictFinal(cur *hitl.Inquiry) error {
	return &hitl.Error{Code: hitl.EConflict, Message: fmt.Sprintf("inquiry %d is already %s", cur.ID, wording.Status(cur.Status)), Inquiry: cur}
}

// late handles an answer or cancel that came after the deadline but before the timer fired:
// the timeout happens now, and the caller gets the conflict with the timed-out state.
func (e *Engine) late(ctx context.Context, id int64) error {
	e.expire(ctx, []int64{id})
	cur, err := e.store.Inquiry(ctx, id)
	if err != nil {
		return err
	}
	return conflictFinal(cur)
}

// sameJSON reports whether two answers are the same JSON value: numbers are compared by
// value (1 and 1.0 are the same), and a value beyond the bounds is the same as nothing (it
// was never stored, and comparing it would cost what the bounds are there to avoid).
func sameJSON(a, b json.RawMessage) bool {
	_, x, errA := jsonlimit.Decode(a, valueLimits)
	_, y, errB := jsonlimit.Decode(b, valueLimits)
	return errA == nil && errB == nil && equalJSON(x, y)
}

func equalJSON(x, y any) bool {
	switch x := x.(type) {
	case json.Number:
		y, ok := y.(json.Number)
		if !ok || x == y {
			return ok
		}
		rx, okX := new(big.Rat).SetString(string(x))
		ry, okY := new(big.Rat).SetString(string(y))
		return okX && okY && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	default: // a string, a bool or nil
		return x == y
	}
}

// resolved returns a copy of cur in a final status.
func resolved(cur *hitl.Inquiry, status hitl.Status, now time.Time) *hitl.Inquiry {
	next := *cur
	next.Status, next.UpdatedAt = status, now
	next.NextReminderAt = nil // reminders stop
	next.Claim = nil          // and so does any claim
	// and the ladder, where it stood
	if cur.Escalation != nil {
		esc := *cur.Escalation
		esc.NextAt = nil
		next.Escalation = &esc
	}
	return &next
}

// toolResult is what an LLM conversation appends as the tool's result.
func toolResult(inq *hitl.Inquiry) *hitl.ToolResult {
	if inq.ToolCall == nil {
		return nil
	}
	if inq.HasDecisions() {
		return decisionResult(inq)
	}
	var content string
	switch {
	case inq.Status == hitl.StatusResponded:
		content = string(inq.Response)
	case inq.Status == hitl.StatusTimeout && inq.FallbackApplied:
		content = fmt.Sprintf("The human did not answer before the deadline; the fallback answer applies: %s", inq.Response)
	case inq.Status == hitl.StatusTimeout:
		content = "The human did not answer before the deadline; there is no answer. Do not go ahead as if they had agreed."
	case inq.Status == hitl.StatusCancelled && inq.CancelReason != nil:
		content = "The question was cancelled before the human answered: " + *inq.CancelReason
	default:
		content = "The question was cancelled before the human answered."
	}
	return &hitl.ToolResult{ToolCallID: inq.ToolCall.ID, Content: content}
}

// Cancel withdraws a pending question (its creator or an admin).
func (e *Engine) Cancel(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error) {
	return e.cancel(ctx, p, id, reason, mayCancel, nil, nil)
}

// cancel cancels a pending inquiry when may lets p, and writes what follows from it (then,
// when set) in the same transaction. declined, when set, records p's refusal to answer
// (DeclinedBy, and OnBehalfOf when p declines as the delegate of someone away); may fills it in.
func (e *Engine) cancel(ctx context.Context, p *hitl.Principal, id int64, reason string, may func(*hitl.Principal, *hitl.Inquiry) error,
	declined *answering, then func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, error)) (*hitl.Inquiry, error) {
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := may(p, inq); err != nil {
		return nil, err
	}
	if declined != nil {
		reason = declined.declineReason(reason)
	}
	if n := utf8.RuneCountInString(reason); n > maxComment {
		return nil, hitl.Errorf(hitl.EInvalid, "reason is %d characters long; at most %d are allowed", n, maxComment)
	}
	if inq.Status.Final() {
		return nil, conflictFinal(inq)
	}
	now := e.clock()
	if inq.TimeoutAt != nil && !now.Before(*inq.TimeoutAt) {
		return nil, e.late(ctx, id)
	}
	var evs []*hitl.Event
	var out *hitl.Inquiry
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		cur, err := pendingInTx(tx, id, now)
		if err != nil {
			return err
		}
		by := declining{actor: p.Name}
		if declined != nil {
			by = declining{actor: wording.DeclinedBy(p.Name, declined.onBehalfOf), by: p.Name, onBehalfOf: declined.onBehalfOf}
		}
		var ev *hitl.Event
		if out, ev, err = cancelInquiry(tx, cur, reason, by, now); err != nil || then == nil {
			evs = []*hitl.Event{ev}
			return err
		}
		more, err := then(tx, cur, now)
		evs = append([]*hitl.Event{ev}, more...)
		return err
	})
	if err != nil {
		return nil, e.notPending(ctx, id, err)
	}
	e.published(evs)
	return out, nil
}

// notPending says why a change of a pending inquiry failed: a conflict with its final state
// when it was final (or timed out on the way), else the error.
func (e *Engine) notPending(ctx context.Context, id int64, err error) error {
	var final errFinal
	switch {
	case errors.As(err, &final):
		return conflictFinal(final.cur)
	case errors.As(err, &errLate{}):
		return e.late(ctx, id)
	}
	return err
}

// declining is who cancels an inquiry (actor, as its event names them), and when it is a
// refusal to answer, the person who declined (by) and the away person they declined for.
type declining struct{ actor, by, onBehalfOf string }

// cancelInquiry writes the cancellation of a pending inquiry and its event; d.by is the person
// who declined to answer it ("" when it was withdrawn), d.onBehalfOf whom they declined for.
func cancelInquiry(tx hitl.Tx, cur *hitl.Inquiry, reason string, d declining, now time.Time) (*hitl.Inquiry, *hitl.Event, error) {
	out := resolved(cur, hitl.StatusCancelled, now)
	if reason != "" {
		out.CancelReason = &reason
	}
	if d.by != "" {
		out.DeclinedBy = &d.by
	}
	if d.onBehalfOf != "" {
		out.OnBehalfOf = &d.onBehalfOf
	}
	out.ToolResult = toolResult(out)
	if err := tx.ResolveInquiry(out); err != nil {
		return nil, nil, err
	}
	ev, err := appendInquiryEvent(tx, hitl.EventInquiryCancelled, out, d.actor, now)
	return out, ev, err
}

// recheck is how soon a deadline is looked at again when another node held the inquiry while
// this one wanted to time it out: usually the other node has timed it out by then (and the
// recheck finds nothing to do); if its transaction failed, this node does it.
const recheck = 100 * time.Millisecond

// expire times out inquiries whose deadlines have passed, in one transaction: the fallback
// value answers when the policy says so. Inquiries that are final, or that another node is
// resolving at this moment, are left out, so every inquiry times out exactly once.
func (e *Engine) expire(ctx context.Context, ids []int64) {
	e.fireTimers(ctx, e.deadlines, ids, "timing out inquiries", e.timeOut)
}

// timeOut resolves an inquiry whose deadline has passed, with its fallback value when its
// policy applies one. Under the fail policy its session, if it has one, fails with it: the
// run cannot go on without the answer (the agent questions design: "fail the session";
// Nova's expired interaction fails its task).
func (e *Engine) timeOut(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, *time.Time, error) {
	switch {
	case cur.TimeoutAt == nil:
		return nil, nil, nil
	case now.Before(*cur.TimeoutAt): // the wall clock is behind the timer
		return nil, cur.TimeoutAt, nil
	}
	var session *hitl.Session
	if cur.Session != "" && !cur.FallbackPolicy.AppliesValue() {
		s, err := tx.Session(cur.Session)
		if err != nil {
			return nil, nil, err
		}
		if s.Status.Finished() {
			// Another inquiry of the session timed out before this one in this transaction and
			// failed it, which cancelled this one: nothing is left to do.
			return nil, nil, nil
		}
		session = s
	}
	out := resolved(cur, hitl.StatusTimeout, now)
	if cur.FallbackPolicy.AppliesValue() {
		out.Response, out.FallbackApplied = cur.FallbackValue, true
		out.Chosen = chosenIn(cur, cur.FallbackValue)
	}
	out.ToolResult = toolResult(out)
	if out.FallbackApplied { // the value set in advance decided: a decision, with its receipt
		if err := e.issueReceipt(out, fallbackDeciders, now); err != nil {
			return nil, nil, err
		}
	}
	if err := tx.ResolveInquiry(out); err != nil {
		return nil, nil, err
	}
	ev, err := e.appendDecision(tx, hitl.EventInquiryTimeout, out, "system", now)
	if err != nil || session == nil {
		return []*hitl.Event{ev}, nil, err
	}
	failed, err := finishSession(tx, session, SessionEnd{Status: hitl.SessionFailed, Error: SessionFailure(out)}, "system", now, out.ID)
	return append([]*hitl.Event{ev}, failed...), nil, err
}

// fireTimers runs fire, in one transaction, on the inquiries among ids that are pending and
// that no other node holds right now: those another node holds are looked at again a moment
// later, so each timer fires once across nodes. fire returns the events of what it did, or
// when to look again. A transaction that fails is tried again a second later.
func (e *Engine) fireTimers(ctx context.Context, timers *deadline.Queue, ids []int64, what string,
	fire func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) (evs []*hitl.Event, again *time.Time, err error)) {
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
		changed := map[int64]bool{} // by what fired before them in this transaction
		for _, cur := range claimed {
			done[cur.ID] = true
			if changed[cur.ID] { // as read, it is out of date (engine/dedup.go): again, read anew
				later = append(later, hitl.Deadline{InquiryID: cur.ID, At: now})
				continue
			}
			fired, again, err := fire(tx, cur, now)
			if err != nil {
				return err
			}
			evs = append(evs, fired...)
			markChanged(changed, fired)
			if again != nil {
				later = append(later, hitl.Deadline{InquiryID: cur.ID, At: *again})
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
			e.log.Error(what+" failed; retrying in a second", "inquiries", len(ids), "err", err)
			for _, id := range ids {
				timers.Add(id, now.Add(time.Second))
			}
		}
		return
	}
	for _, d := range later {
		timers.Add(d.InquiryID, d.At)
	}
	e.published(evs)
}

// Wait returns the inquiry once it is final, or when timeout passes (still pending), or when
// the engine is draining for shutdown. Waiters are woken by push after the resolving commit.
func (e *Engine) Wait(ctx context.Context, p *hitl.Principal, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	if timeout < 0 || timeout > MaxWait {
		return nil, hitl.Errorf(hitl.EInvalid, "wait timeout must be between 0 and %s", MaxWait)
	}
	ch := e.waiters.Add(id)
	defer e.waiters.Remove(id, ch)
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil || inq.Status.Final() || timeout == 0 {
		if err == nil {
			e.received(p, inq)
		}
		return inq, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case w := <-ch:
		e.metrics.WaiterWoken(time.Since(w.At))
		e.received(p, w.Inquiry)
		return w.Inquiry, nil
	case <-t.C:
	case <-e.draining:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	inq, err = e.Inquiry(ctx, p, id)
	if err == nil {
		e.received(p, inq)
	}
	return inq, err
}

// endInquirySpan ends the span of a change of an inquiry, with the inquiry's ID and status.
func endInquirySpan(span trace.Span, inq *hitl.Inquiry, err error) {
	if inq != nil {
		span.SetAttributes(attribute.Int64("hitl.inquiry_id", inq.ID), attribute.String("hitl.inquiry_status", string(inq.Status)))
	}
	tracing.End(span, err)
}
