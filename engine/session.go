package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
)

func sessionNotFound(key string) error {
	return hitl.Errorf(hitl.ENotFound, "session %s not found", key)
}

// errSessionRace: the session was created by another node between reading and inserting.
type errSessionRace struct{}

func (errSessionRace) Error() string { return "session created concurrently" }

// PutSession creates a session (created = true) or updates its agent, state and metadata.
func (e *Engine) PutSession(ctx context.Context, p *hitl.Principal, key string, req *hitl.SessionRequest) (s *hitl.Session, created bool, err error) {
	s, created, err = e.putSession(ctx, p, key, req)
	if errors.As(err, &errSessionRace{}) {
		s, created, err = e.putSession(ctx, p, key, req) // now it exists: this is an update
	}
	return s, created, err
}

func (e *Engine) putSession(ctx context.Context, p *hitl.Principal, key string, req *hitl.SessionRequest) (s *hitl.Session, created bool, err error) {
	if err := mayAsk(p); err != nil {
		return nil, false, err
	}
	var bad problems
	if !sessionKeyPattern.MatchString(key) {
		bad.add("/key", "must be 1 to 200 characters of A-Z a-z 0-9 . _ : -")
	}
	if utf8.RuneCountInString(req.Agent) > maxOrigin {
		bad.add("/agent", "must be at most %d characters", maxOrigin)
	}
	if len(req.State) > e.limits.StateBytes {
		bad.add("/state", "is %d bytes; at most %d are allowed", len(req.State), e.limits.StateBytes)
	} else if !hitl.IsNull(req.State) {
		checkJSON(&bad, "/state", req.State, valueLimits)
	}
	if req.CallbackURL != "" {
		e.checkURL(ctx, &bad, "/callback_url", req.CallbackURL)
	}
	checkMetadata(&bad, "/metadata", req.Metadata)
	switch req.CallbackFormat {
	case "", hitl.CallbackCloudEvents, hitl.CallbackAgentQuestions:
	default:
		bad.add("/callback_format", "must be %s or %s", hitl.CallbackCloudEvents, hitl.CallbackAgentQuestions)
	}
	if err := bad.err("invalid session"); err != nil {
		return nil, false, err
	}
	now := e.clock()
	var evs []*hitl.Event
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		cur, err := tx.Session(key)
		switch {
		case hitl.ErrorCode(err) == hitl.ENotFound && req.IfVersion != nil:
			return sessionNotFound(key) // a change of a version of it, and there is none
		case hitl.ErrorCode(err) == hitl.ENotFound:
			created = true
			s = &hitl.Session{Key: key, Status: hitl.SessionRunning, Agent: req.Agent, CreatedBy: p.Name,
				Metadata: map[string]string{}, CreatedAt: now}
		case err != nil:
			return err
		default:
			if err := mayClaimSession(p, cur); err != nil {
				return err
			}
			if cur.Status.Finished() {
				return hitl.Errorf(hitl.EConflict, "session %s is %s and can no longer change", key, cur.Status)
			}
			if err := checkSessionVersion(tx, key, req.IfVersion); err != nil {
				return err
			}
			created, s = false, cur
		}
		if req.Agent != "" {
			s.Agent = req.Agent
		}
		if !hitl.IsNull(req.State) {
			s.State = req.State
		}
		if req.Metadata != nil {
			s.Metadata = req.Metadata
		}
		if req.CallbackURL != "" {
			u := req.CallbackURL
			s.CallbackURL = &u
		}
		switch req.CallbackFormat {
		case hitl.CallbackCloudEvents:
			s.CallbackFormat = ""
		case hitl.CallbackAgentQuestions:
			if s.CallbackURL == nil {
				return hitl.Errorf(hitl.EInvalid, "callback_format %s needs a callback_url to post the questions to", req.CallbackFormat)
			}
			s.CallbackFormat = req.CallbackFormat
		}
		s.UpdatedAt = now
		if created {
			err = tx.InsertSession(s)
			if hitl.ErrorCode(err) == hitl.EConflict {
				return errSessionRace{} // another node created it a moment ago: update it instead
			}
		} else {
			err = tx.UpdateSession(s)
		}
		if err != nil {
			return err
		}
		ev, err := appendSessionEvent(tx, hitl.EventSessionUpdated, s, p.Name, now)
		evs = []*hitl.Event{ev}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	e.published(evs)
	return s, created, nil
}

// Session returns a session the principal may see, as far as it may see it (sessionView).
func (e *Engine) Session(ctx context.Context, p *hitl.Principal, key string) (*hitl.Session, error) {
	s, err := e.store.Session(ctx, key)
	if err != nil {
		return nil, err
	}
	if !canSeeSession(p, s) {
		return nil, sessionNotFound(key)
	}
	return e.sessionFor(ctx, p, s)
}

// sessionFor is what p may see of s (sessionView), with counts of the inquiries p may see:
// for anyone but its owner, those of the whole run would tell of questions kept from them.
func (e *Engine) sessionFor(ctx context.Context, p *hitl.Principal, s *hitl.Session) (*hitl.Session, error) {
	v := sessionView(p, s)
	if v == s {
		return s, nil
	}
	seen, err := e.store.SessionInquiries(ctx, s.Key, visibility(p))
	if err != nil {
		return nil, err
	}
	v.InquiriesAsked, v.PendingInquiries = len(seen), 0
	for _, inq := range seen {
		if inq.Status == hitl.StatusPending {
			v.PendingInquiries++
		}
	}
	return v, nil
}

// SessionVersion is the version of a session the principal may see: how many times it has
// changed (hitl.ChangesSession).
func (e *Engine) SessionVersion(ctx context.Context, p *hitl.Principal, key string) (int64, error) {
	s, err := e.store.Session(ctx, key)
	if err != nil {
		return 0, err
	}
	if !canSeeSession(p, s) {
		return 0, sessionNotFound(key)
	}
	return e.store.SessionVersion(ctx, key)
}

// StaleVersion is the conflict of a change made against a version of a session that is no
// longer its own: someone changed it since the caller read it. It is an EConflict.
type StaleVersion struct {
	Key            string
	Given, Current int64
}

func (s *StaleVersion) Error() string {
	return fmt.Sprintf("session %s is at version %d, not %d: it changed since you read it; read it again and retry", s.Key, s.Current, s.Given)
}

// Unwrap is the domain error it is, for hitl.ErrorCode and the problem it is shown as.
func (s *StaleVersion) Unwrap() error { return hitl.Errorf(hitl.EConflict, "%s", s.Error()) }

// checkSessionVersion refuses, with a StaleVersion, a change asked of version want (nil: any)
// of a session that is at another. The caller has read the session in tx first: PostgreSQL
// then holds its row until the change commits, so no other change comes in between.
func checkSessionVersion(tx hitl.Tx, key string, want *int64) error {
	if want == nil {
		return nil
	}
	current, err := tx.SessionVersion(key)
	if err != nil {
		return err
	}
	if current != *want {
		return &StaleVersion{Key: key, Given: *want, Current: current}
	}
	return nil
}

// Sessions lists sessions newest first: agents see the ones they created.
func (e *Engine) Sessions(ctx context.Context, p *hitl.Principal, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, "", hitl.Errorf(hitl.EInvalid, "status must be running, awaiting_input, completed, failed or cancelled")
	}
	sessionsVisible(p, &f)
	items, next, err := e.store.Sessions(ctx, f)
	if err != nil {
		return nil, "", err
	}
	for i, s := range items {
		if items[i], err = e.sessionFor(ctx, p, s); err != nil {
			return nil, "", err
		}
	}
	return items, next, nil
}

// SessionInquiries returns a session's whole history that the principal may see, oldest first.
func (e *Engine) SessionInquiries(ctx context.Context, p *hitl.Principal, key string) ([]*hitl.Inquiry, error) {
	s, err := e.Session(ctx, p, key)
	if err != nil {
		return nil, err
	}
	return e.store.SessionInquiries(ctx, key, sessionInquiriesVisible(p, s))
}

// SessionEnd is how a session finishes.
type SessionEnd struct {
	Status hitl.SessionStatus // completed, failed or cancelled
	Result json.RawMessage    // for completed
	Error  string             // for failed
	// IfVersion, when set, ends it only if it is at that version (checkSessionVersion).
	IfVersion *int64
}

// FinishSession completes, fails or cancels a session. Its pending inquiries are cancelled
// in the same transaction: nobody would act on their answers any more.
func (e *Engine) FinishSession(ctx context.Context, p *hitl.Principal, key string, end SessionEnd) (*hitl.Session, error) {
	return e.finish(ctx, p, key, end, false)
}

// AbandonSession ends a session that will not reach its goal, as OpenIntent's agents abandon
// an intent: a running session fails, with the reason as its error, and its pending inquiries
// are cancelled. One that has already failed or been cancelled is abandoned already (a
// question that timed out under the fail policy, say, ended it) and is returned as it is, with
// the reason it ended for; a completed one is a conflict.
func (e *Engine) AbandonSession(ctx context.Context, p *hitl.Principal, key, reason string, ifVersion *int64) (*hitl.Session, error) {
	return e.finish(ctx, p, key, SessionEnd{Status: hitl.SessionFailed, Error: reason, IfVersion: ifVersion}, true)
}

// finish ends a session as end says; abandoning, one that has already ended without
// completing is left as it is.
func (e *Engine) finish(ctx context.Context, p *hitl.Principal, key string, end SessionEnd, abandoning bool) (*hitl.Session, error) {
	if !end.Status.Finished() {
		return nil, fmt.Errorf("FinishSession with status %q", end.Status)
	}
	if len(end.Result) > e.limits.StateBytes {
		return nil, hitl.Errorf(hitl.EInvalid, "result is %d bytes; at most %d are allowed", len(end.Result), e.limits.StateBytes)
	}
	var bad problems
	if !hitl.IsNull(end.Result) && !checkJSON(&bad, "/result", end.Result, valueLimits) {
		return nil, bad.err("invalid result")
	}
	if n := utf8.RuneCountInString(end.Error); n > maxComment {
		return nil, hitl.Errorf(hitl.EInvalid, "error is %d characters long; at most %d are allowed", n, maxComment)
	}
	now := e.clock()
	var (
		evs []*hitl.Event
		out *hitl.Session
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		evs = nil
		s, err := tx.Session(key)
		if err != nil {
			return err
		}
		if err := mayChangeSession(p, s); err != nil {
			return err
		}
		if err := checkSessionVersion(tx, key, end.IfVersion); err != nil {
			return err
		}
		switch {
		case abandoning && s.Status == hitl.SessionCompleted:
			return hitl.Errorf(hitl.EConflict, "session %s has completed: a run that reached its goal cannot be abandoned", key)
		case abandoning && s.Status.Finished():
			out = s
			return nil
		case s.Status.Finished():
			return hitl.Errorf(hitl.EConflict, "session %s is already %s", key, s.Status)
		}
		evs, err = finishSession(tx, s, end, p.Name, now, 0)
		out = s
		return err
	})
	if err != nil {
		return nil, err
	}
	e.published(evs)
	return out, nil
}

// finishSession writes the end of an unfinished session: its pending inquiries are cancelled,
// and it is completed, failed or cancelled, with the events of both. resolved is an inquiry
// that this transaction has already resolved (0: none): a store may still list it as pending
// until the transaction commits.
func finishSession(tx hitl.Tx, s *hitl.Session, end SessionEnd, actor string, now time.Time, resolved int64) ([]*hitl.Event, error) {
	pending, err := tx.PendingInquiries(s.Key)
	if err != nil {
		return nil, err
	}
	var evs []*hitl.Event
	reason := "the session was " + string(end.Status)
	for _, inq := range pending {
		if inq.ID == resolved {
			continue
		}
		_, ev, err := cancelInquiry(tx, inq, reason, declining{actor: actor}, now)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	s.Status, s.UpdatedAt, s.CompletedAt = end.Status, now, &now
	s.PendingInquiries = 0
	if !hitl.IsNull(end.Result) {
		s.Result = end.Result
	}
	if end.Error != "" {
		s.Error = &end.Error
	}
	if err := tx.UpdateSession(s); err != nil {
		return nil, err
	}
	ev, err := appendSessionEvent(tx, sessionEventType[end.Status], s, actor, now)
	return append(evs, ev), err
}

// LogSession adds an entry to a session's log, as OpenIntent's agents log to an intent: an
// event (session.logged) that changes nothing and records what the agent says it did or saw,
// beside its questions and their answers. Its owner (or an admin) writes it, while the session
// runs or after it has ended: a note on why it ended belongs with the rest.
func (e *Engine) LogSession(ctx context.Context, p *hitl.Principal, key string, entry hitl.SessionLogEntry) (*hitl.Event, error) {
	var bad problems
	if !logEventTypePattern.MatchString(entry.EventType) {
		bad.add("/event_type", "must be 1 to 100 characters of a-z A-Z 0-9 . _ : - (comment, for a note)")
	}
	switch payload := bytes.TrimSpace(entry.Payload); {
	case hitl.IsNull(payload):
		entry.Payload = json.RawMessage("{}")
	case len(payload) > e.limits.ContextBytes:
		bad.add("/payload", "is %d bytes; at most %d are allowed", len(payload), e.limits.ContextBytes)
	case payload[0] != '{':
		bad.add("/payload", "must be a JSON object, like {\"message\": \"...\"}")
	default:
		checkJSON(&bad, "/payload", payload, valueLimits)
	}
	if utf8.RuneCountInString(entry.TraceID) > maxShortText || utf8.RuneCountInString(entry.ParentEventID) > maxShortText {
		bad.add("/trace_id", "trace_id and parent_event_id must be at most %d characters", maxShortText)
	}
	if err := bad.err("invalid log entry"); err != nil {
		return nil, err
	}
	now := e.clock()
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		s, err := tx.Session(key)
		if err != nil {
			return err
		}
		if err := mayChangeSession(p, s); err != nil {
			return err
		}
		// The session, as every event of a session carries it, and the entry beside it.
		ev, err = appendSessionEventWith(tx, hitl.EventSessionLogged, s, struct {
			*hitl.Session
			Entry hitl.SessionLogEntry `json:"entry"`
		}{s, entry}, p.Name, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.published([]*hitl.Event{ev})
	return ev, nil
}

// logEventTypePattern is what an agent may call an entry of its log: OpenIntent's event types
// (comment, tool_call_started, intent.suspended, ...) and the like.
var logEventTypePattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,100}$`)

// SessionFailure is why resolving inq failed its session, "" when it did not: a timeout under
// the fail policy ("question 7 timed out", timeOut), or a person's decline, with its reason
// (Decline). Nova's task_error says it to the page that follows the session.
func SessionFailure(inq *hitl.Inquiry) string {
	switch {
	case inq.Session == "":
		return ""
	case inq.Status == hitl.StatusTimeout && !inq.FallbackApplied:
		return fmt.Sprintf("question %d timed out", inq.ID)
	case inq.Status == hitl.StatusCancelled && inq.DeclinedBy != nil:
		return deref(inq.CancelReason)
	}
	return ""
}

var sessionEventType = map[hitl.SessionStatus]string{
	hitl.SessionCompleted: hitl.EventSessionCompleted,
	hitl.SessionFailed:    hitl.EventSessionFailed,
	hitl.SessionCancelled: hitl.EventSessionCancelled,
}

// Events returns a page of the log the principal may see.
func (e *Engine) Events(ctx context.Context, p *hitl.Principal, f hitl.EventFilter) ([]*hitl.Event, error) {
	if f.After < 0 {
		return nil, hitl.Errorf(hitl.EInvalid, "after must not be negative")
	}
	f.Visibility = visibility(p)
	return e.store.Events(ctx, f)
}
