// Package openintent serves OpenIntent's HITL shape (RFC-0025, /api/v1/intents/...), so that
// its SDK and the operators' tools written for it use hitl unchanged: an intent is a session, a
// suspension an inquiry asked in it (suspension_id is the inquiry's id, as a string or a
// number), its event log the session's events, with what its agent logs as session.logged
// events; an abandoned intent is a session that failed or was cancelled. It maps shapes only;
// the engine decides, as for /v1.
package openintent

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// suspensionRespond is the body of POST /api/v1/intents/{intent_id}/suspend/respond.
type suspensionRespond struct {
	SuspensionID json.RawMessage `json:"suspension_id"`
	Value        json.RawMessage `json:"value"`
	RespondedBy  string          `json:"responded_by"`
}

// suspensionResolved is its answer.
type suspensionResolved struct {
	IntentID     string          `json:"intent_id"`
	SuspensionID json.RawMessage `json:"suspension_id"` // as the caller wrote it
	Resolution   string          `json:"resolution"`
	Value        json.RawMessage `json:"value"`
	RespondedBy  string          `json:"responded_by"`
	RelayedBy    string          `json:"relayed_by,omitempty"`
	RespondedAt  *time.Time      `json:"responded_at"`
}

// suspensionRecord is intent.state._suspension: the intent's latest suspension.
type suspensionRecord struct {
	ID              int64           `json:"id"`
	Question        string          `json:"question"`
	Context         json.RawMessage `json:"context"`
	ChannelHint     *string         `json:"channel_hint"`
	TimeoutSeconds  *int64          `json:"timeout_seconds"`
	FallbackPolicy  string          `json:"fallback_policy"`
	FallbackValue   json.RawMessage `json:"fallback_value"`
	Resolution      string          `json:"resolution"`
	Value           json.RawMessage `json:"value"`
	RespondedBy     *string         `json:"responded_by"`
	RelayedBy       *string         `json:"relayed_by,omitempty"`
	RespondedAt     *time.Time      `json:"responded_at"`
	FallbackApplied bool            `json:"fallback_applied"`
}

// intentView is GET /api/v1/intents/{intent_id}.
type intentView struct {
	ID     string         `json:"id"`
	Status string         `json:"status"`
	State  map[string]any `json:"state"`
	// AbandonmentReason is why an abandoned intent ended (its session's error), when it says.
	AbandonmentReason string `json:"abandonment_reason,omitempty"`
}

// intentStatus is a session's status under RFC-0001's names, which call every end but
// completion abandoned.
func intentStatus(s hitl.SessionStatus) string {
	switch s {
	case hitl.SessionRunning:
		return "active"
	case hitl.SessionAwaitingInput:
		return "suspended_awaiting_input"
	case hitl.SessionFailed, hitl.SessionCancelled:
		return "abandoned"
	}
	return string(s) // completed
}

// statusChange is the body of POST /api/v1/intents/{intent_id}/status. OpenIntent's SDK sends
// the intent's version in If-Match; hitl's sessions have none, and the header is not read.
type statusChange struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// intentEvent is an entry of an intent's event log (RFC-0001's Event object).
type intentEvent struct {
	ID string `json:"id"`
	// Seq is where the event stands in hitl's log: GET .../events?after=SEQ goes on from it.
	Seq       int64           `json:"seq"`
	IntentID  string          `json:"intent_id"`
	EventType string          `json:"event_type"`
	Actor     string          `json:"actor"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt time.Time       `json:"created_at"`
}

// eventToLog is the body of POST /api/v1/intents/{intent_id}/events. The SDK's actor is its
// agent id; hitl records the key that sends the event as its actor, and does not read it.
type eventToLog struct {
	EventType string          `json:"event_type"`
	Actor     string          `json:"actor"`
	Payload   json.RawMessage `json:"payload"`
}

// intentEventOf is an event of the intent's session as OpenIntent shows it: an entry the agent
// logged as it logged it; an inquiry's event under OpenIntent's name for it (intent.suspended,
// intent.resumed) when it has one, else hitl's; the payload the event's data.
func intentEventOf(ev *hitl.Event) intentEvent {
	out := intentEvent{ID: ev.ID, Seq: ev.Seq, IntentID: ev.Session, EventType: ev.Type, Actor: ev.Actor, Payload: ev.Data, CreatedAt: ev.Time}
	if alias := hitl.IntentAliasType(ev); alias != "" {
		out.EventType = alias
	}
	if entry := hitl.LoggedEntry(ev); entry != nil {
		out.EventType, out.Payload = entry.EventType, entry.Payload
	}
	return out
}

// resolution is an inquiry's status under RFC-0025's names.
func resolution(s hitl.Status) string {
	switch s {
	case hitl.StatusPending:
		return "pending"
	case hitl.StatusTimeout:
		return "expired"
	}
	return string(s) // responded, cancelled
}

// suspensionID reads a suspension id: the inquiry's id, as a number or a string of one.
func suspensionID(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || hitl.IsNull(raw) {
		return 0, hitl.Errorf(hitl.EInvalid, "suspension_id is required: the id of the suspension to answer, from the intent's state._suspension.id")
	}
	text, n := httpwire.IDInJSON(raw)
	if n == 0 {
		return 0, hitl.Errorf(hitl.ENotFound, "suspension %s not found: suspension ids on this server are whole numbers (the id in the intent's state._suspension)", text)
	}
	return n, nil
}

// API serves OpenIntent's routes on the engine.
type API struct {
	engine *engine.Engine
}

// New returns OpenIntent's routes on e.
func New(e *engine.Engine) *API { return &API{engine: e} }

// Mount adds OpenIntent's routes to r.
func (a *API) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "GET", Path: "/api/v1/intents/{intent_id}", Handle: a.intent})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/intents/{intent_id}/suspend/respond", Handle: a.respond})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/intents/{intent_id}/status", Handle: a.status})
	r.Handle(httpwire.Route{Method: "GET", Path: "/api/v1/intents/{intent_id}/events", Query: []string{"limit", "after"}, Handle: a.events})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/intents/{intent_id}/events", Handle: a.logEvent})
}

// respond serves POST /api/v1/intents/{intent_id}/suspend/respond.
func (a *API) respond(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req suspensionRespond
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	intent := r.PathValue("intent_id")
	id, err := suspensionID(req.SuspensionID)
	if err != nil {
		return err
	}
	if len(req.Value) == 0 {
		return hitl.Errorf(hitl.EInvalid, "value is required: the operator's answer to the suspension (any JSON value, null included)")
	}
	// The intent is the session: the engine answers only an inquiry of it, while it runs.
	inq, err := a.engine.RespondInSession(r.Context(), p, intent, id, &hitl.ResponseRequest{Response: req.Value, RespondedBy: req.RespondedBy})
	if err != nil {
		return err
	}
	out := suspensionResolved{IntentID: intent, SuspensionID: bytes.TrimSpace(req.SuspensionID), Resolution: resolution(inq.Status),
		Value: inq.Response, RespondedAt: inq.RespondedAt}
	if inq.RespondedBy != nil {
		out.RespondedBy = *inq.RespondedBy
	}
	if inq.RelayedBy != nil {
		out.RelayedBy = *inq.RelayedBy
	}
	return httpwire.WriteJSON(w, http.StatusOK, out)
}

// intent serves GET /api/v1/intents/{intent_id}: the session as an intent, its state
// holding the latest suspension as _suspension, which OpenIntent's SDK polls.
func (a *API) intent(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	view, err := a.view(r.Context(), p, r.PathValue("intent_id"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, view)
}

// view is the intent that the session key is, as p may see it.
func (a *API) view(ctx context.Context, p *hitl.Principal, key string) (*intentView, error) {
	sess, err := a.engine.Session(ctx, p, key)
	if err != nil {
		return nil, err
	}
	inqs, err := a.engine.SessionInquiries(ctx, p, key)
	if err != nil {
		return nil, err
	}
	state := map[string]any{}
	if !hitl.IsNull(sess.State) && json.Unmarshal(sess.State, &state) != nil {
		state = map[string]any{"value": sess.State} // a state that is no object is kept whole
	}
	if len(inqs) > 0 {
		state["_suspension"] = suspensionOf(inqs[len(inqs)-1])
	}
	view := &intentView{ID: sess.Key, Status: intentStatus(sess.Status), State: state}
	if sess.Error != nil && view.Status == "abandoned" {
		view.AbandonmentReason = *sess.Error
	}
	return view, nil
}

// status serves POST /api/v1/intents/{intent_id}/status: an agent abandons its intent (the
// session fails, with the reason) or completes it; the intent as it is then.
func (a *API) status(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req statusChange
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	key := r.PathValue("intent_id")
	var err error
	switch req.Status {
	case "abandoned":
		_, err = a.engine.AbandonSession(r.Context(), p, key, req.Reason, nil)
	case "completed":
		if req.Reason != "" {
			return hitl.Errorf(hitl.EInvalid, "reason is kept for an abandoned intent only: a completed one has its result (POST /v1/sessions/%s/complete)", key)
		}
		_, err = a.engine.FinishSession(r.Context(), p, key, engine.SessionEnd{Status: hitl.SessionCompleted})
	default:
		return hitl.Errorf(hitl.EInvalid, "status must be abandoned or completed: whether an intent is active or suspended_awaiting_input follows from its questions")
	}
	if err != nil {
		return err
	}
	view, err := a.view(r.Context(), p, key)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, view)
}

// logEvent serves POST /api/v1/intents/{intent_id}/events: an entry the agent adds to its
// intent's log (its SDK's log() sends a comment).
func (a *API) logEvent(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req eventToLog
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	ev, err := a.engine.LogSession(r.Context(), p, r.PathValue("intent_id"), hitl.SessionLogEntry{EventType: req.EventType, Payload: req.Payload})
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, intentEventOf(ev))
}

// maxEvents is the most events GET .../events returns at once, as OpenIntent's server; 100 by
// default.
const maxEvents = 1000

// events serves GET /api/v1/intents/{intent_id}/events?limit=N&after=SEQ: the intent's log,
// oldest first, as far as the caller may see it.
func (a *API) events(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	key := r.PathValue("intent_id")
	if _, err := a.engine.Session(r.Context(), p, key); err != nil {
		return err
	}
	f := hitl.EventFilter{Session: key, Limit: 100}
	q := r.URL.Query()
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxEvents {
			return hitl.Errorf(hitl.EInvalid, "limit must be a whole number from 1 to %d", maxEvents)
		}
		f.Limit = n
	}
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return hitl.Errorf(hitl.EInvalid, "after must be the seq of an event of the intent (a whole number ≥ 0)")
		}
		f.After = n
	}
	evs, err := a.engine.Events(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]intentEvent, len(evs))
	for i, ev := range evs {
		out[i] = intentEventOf(ev)
	}
	return httpwire.WriteJSON(w, http.StatusOK, out)
}

func suspensionOf(inq *hitl.Inquiry) suspensionRecord {
	rec := suspensionRecord{ID: inq.ID, Question: inq.Prompt, Context: inq.Context, FallbackPolicy: string(inq.FallbackPolicy),
		FallbackValue: inq.FallbackValue, Resolution: resolution(inq.Status), Value: inq.Response, RespondedBy: inq.RespondedBy,
		RelayedBy: inq.RelayedBy, RespondedAt: inq.RespondedAt, FallbackApplied: inq.FallbackApplied}
	if inq.ChannelHint != "" {
		rec.ChannelHint = &inq.ChannelHint
	}
	if inq.TimeoutAt != nil {
		secs := int64(inq.TimeoutAt.Sub(inq.CreatedAt).Round(time.Second) / time.Second)
		rec.TimeoutSeconds = &secs
	}
	if rec.FallbackPolicy == "" {
		rec.FallbackPolicy = string(hitl.FallbackFail)
	}
	return rec
}
