package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
)

// Answers that name their session: OpenIntent's (an intent is a session) and the async agent
// questions protocol's (a session is an agent run). Both go through RespondInSession, so that
// both refuse alike an answer to a run that has ended, or to an inquiry of another session.

// RespondInSession records an answer to inquiry id of the session key. The session must
// exist, be visible to p (or p relays the answer of the person req names) and not have
// finished: ENotFound otherwise, for a run that has ended takes no answers. id 0 means the
// session's one pending inquiry that p may see: none or several is EConflict, saying which.
// The answer is then Respond's, once it knows p may know of the inquiry: one of another
// session is not found; the same answer again by the same person is accepted as it was,
// another is EConflict.
func (e *Engine) RespondInSession(ctx context.Context, p *hitl.Principal, key string, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error) {
	s, err := e.store.Session(ctx, key)
	if hitl.ErrorCode(err) == hitl.ENotFound || err == nil && !canSeeSession(p, s) && !relays(p, req) {
		return nil, sessionNotFound(key)
	}
	if err != nil {
		return nil, err
	}
	if s.Status.Finished() {
		return nil, hitl.Errorf(hitl.ENotFound, "session %s has %s and takes no more answers", key, finishedWords(s.Status))
	}
	if id == 0 {
		if id, err = e.singlePendingQuestion(ctx, p, s); err != nil {
			return nil, err
		}
	}
	inSession := *req
	inSession.Session = key
	return e.Respond(ctx, p, id, &inSession)
}

func finishedWords(s hitl.SessionStatus) string {
	if s == hitl.SessionCancelled {
		return "been cancelled"
	}
	return string(s)
}

// singlePendingQuestion is the id of the one pending question of s that p may see.
func (e *Engine) singlePendingQuestion(ctx context.Context, p *hitl.Principal, s *hitl.Session) (int64, error) {
	asked, err := e.store.SessionInquiries(ctx, s.Key, sessionInquiriesVisible(p, s))
	if err != nil {
		return 0, err
	}
	var pending []string
	var id int64
	for _, inq := range asked {
		if inq.Status == hitl.StatusPending {
			id = inq.ID
			pending = append(pending, strconv.FormatInt(inq.ID, 10))
		}
	}
	switch len(pending) {
	case 0:
		return 0, hitl.Errorf(hitl.EConflict, "session %s has no pending question to answer", s.Key)
	case 1:
		return id, nil
	}
	return 0, hitl.Errorf(hitl.EConflict, "session %s has %d pending questions (%s): say which one with question_id",
		s.Key, len(pending), strings.Join(pending, ", "))
}
