// Package openintent serves the part of OpenIntent (/api/v1/intents/..., RFC-0001 and RFC-0025)
// that its Python SDK's client and Agent use for intents that ask people, so that they and the
// operators' tools written for it use hitl unchanged: an intent is a session, its version the
// count of the session's changes (If-Match compares it), a suspension an inquiry asked in it
// (written by the SDK through the intent's state, it keeps the SDK's id), its event log the
// session's events, with what its agent logs as session.logged events; an abandoned intent is
// a session that failed or was cancelled. It maps shapes only; the engine decides, as for /v1.
package openintent

import (
	"bytes"
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

// intentEvent is an entry of an intent's event log (RFC-0001's Event object).
type intentEvent struct {
	ID string `json:"id"`
	// Seq is where the event stands in hitl's log: GET .../events?after=SEQ goes on from it.
	// Sequence is the same number under OpenIntent's name.
	Seq      int64  `json:"seq"`
	Sequence int64  `json:"sequence"`
	IntentID string `json:"intent_id"`
	// EventType is one of the SDK's event types, which it parses every event's type into;
	// HitlType is the event's type in hitl's log.
	EventType     string          `json:"event_type"`
	HitlType      string          `json:"hitl_type"`
	Actor         string          `json:"actor"`
	Payload       json.RawMessage `json:"payload"`
	TraceID       string          `json:"trace_id,omitempty"`
	ParentEventID string          `json:"parent_event_id,omitempty"`
	CreatedAt     isoTime         `json:"created_at"`
}

// eventToLog is the body of POST /api/v1/intents/{intent_id}/events, as the SDK's log_event
// sends it. Its actor is the SDK's agent id; hitl records the key that sends the event as its
// actor, and does not read it.
type eventToLog struct {
	EventType     string          `json:"event_type"`
	Actor         string          `json:"actor"`
	Payload       json.RawMessage `json:"payload"`
	TraceID       string          `json:"trace_id"`
	ParentEventID string          `json:"parent_event_id"`
}

// intentEventOf is an event of the intent's session as OpenIntent shows it: an entry the agent
// logged as it logged it, any other event under the SDK's name for it (eventTypeOf), with its
// data as the payload.
func intentEventOf(ev *hitl.Event) intentEvent {
	out := intentEvent{ID: ev.ID, Seq: ev.Seq, Sequence: ev.Seq, IntentID: ev.Session, EventType: eventTypeOf(ev), HitlType: ev.Type,
		Actor: ev.Actor, Payload: ev.Data, CreatedAt: isoTime(ev.Time)}
	if entry := hitl.LoggedEntry(ev); entry != nil {
		out.EventType, out.Payload, out.TraceID, out.ParentEventID = entry.EventType, entry.Payload, entry.TraceID, entry.ParentEventID
	}
	return out
}

// eventTypeOf is the SDK's name for an event of a session: an inquiry's under OpenIntent's
// name for it (intent.suspended, intent.resumed), the session's creation intent_created, a
// status set_status recorded and its end status_changed, its other changes state_patched, a reminder and an escalation of a
// suspension as RFC-0026 names them; what else befalls a suspension (a claim, a vote, ...)
// changes the intent's _suspension, state_patched.
func eventTypeOf(ev *hitl.Event) string {
	if alias := hitl.IntentAliasType(ev); alias != "" {
		return alias
	}
	switch ev.Type {
	case hitl.EventSessionUpdated:
		var s struct {
			CreatedAt string            `json:"created_at"`
			UpdatedAt string            `json:"updated_at"`
			Metadata  map[string]string `json:"metadata"`
		}
		switch {
		case json.Unmarshal(ev.Data, &s) != nil:
		case s.CreatedAt == s.UpdatedAt:
			return "intent_created"
		case s.Metadata[changeKey] == changeStatus:
			return "status_changed" // set_status: active or suspended_awaiting_input
		}
	case hitl.EventSessionCompleted, hitl.EventSessionFailed, hitl.EventSessionCancelled:
		return "status_changed"
	case hitl.EventInquiryReminded:
		return "intent.suspension_renotified"
	case hitl.EventInquiryEscalated:
		return "intent.suspension_escalated"
	}
	return "state_patched"
}

// API serves OpenIntent's routes on the engine.
type API struct {
	engine *engine.Engine
}

// New returns OpenIntent's routes on e.
func New(e *engine.Engine) *API { return &API{engine: e} }

// Mount adds OpenIntent's routes to r. Their refusals are problem+json with the members the
// SDK reads (sdkErrors).
func (a *API) Mount(r httpwire.Router) {
	for _, rt := range []httpwire.Route{
		{Method: "GET", Path: "/.well-known/openintent.json", Public: true, Handle: a.discovery},
		{Method: "GET", Path: "/api/v1/server/config", Handle: a.serverConfig},
		{Method: "POST", Path: "/api/v1/intents", Handle: a.createIntent},
		{Method: "GET", Path: "/api/v1/intents/{intent_id}", Handle: a.intent},
		{Method: "POST", Path: "/api/v1/intents/{intent_id}/status", Handle: a.status},
		{Method: "POST", Path: "/api/v1/intents/{intent_id}/state", Handle: a.patchState},
		{Method: "POST", Path: "/api/v1/intents/{intent_id}/agents", Handle: a.assign},
		{Method: "POST", Path: "/api/v1/intents/{intent_id}/suspend/respond", Handle: a.respond},
		{Method: "GET", Path: "/api/v1/intents/{intent_id}/events", Query: []string{"limit", "after", "event_type", "since"}, Handle: a.events},
		{Method: "POST", Path: "/api/v1/intents/{intent_id}/events", Handle: a.logEvent},
		{Method: "GET", Path: "/api/v1/agents/{agent_id}/subscribe", Handle: a.subscribe},
	} {
		rt.Handle = sdkErrors(rt.Handle)
		r.Handle(rt)
	}
}

// respond serves POST /api/v1/intents/{intent_id}/suspend/respond.
func (a *API) respond(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req suspensionRespond
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	intent := r.PathValue("intent_id")
	id, err := a.findSuspension(r.Context(), p, intent, req.SuspensionID)
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

// logEvent serves POST /api/v1/intents/{intent_id}/events: an entry the agent adds to its
// intent's log (its SDK's log() sends a comment).
func (a *API) logEvent(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req eventToLog
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	ev, err := a.engine.LogSession(r.Context(), p, r.PathValue("intent_id"),
		hitl.SessionLogEntry{EventType: req.EventType, Payload: req.Payload, TraceID: req.TraceID, ParentEventID: req.ParentEventID})
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, intentEventOf(ev))
}

// maxEvents is the most events GET .../events returns at once, as OpenIntent's server; 100 by
// default.
const maxEvents = 1000

// events serves GET /api/v1/intents/{intent_id}/events?limit=N&after=SEQ&event_type=T&since=TIME:
// the intent's log, oldest first, as far as the caller may see it; event_type is the SDK's
// name (eventTypeOf), since the time the SDK's get_events sends (datetime.isoformat()).
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
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := parseISOTime(s)
		if err != nil {
			return hitl.Errorf(hitl.EInvalid, "since must be a time such as 2026-01-02T15:04:05+00:00 (an ISO 8601 date and time), not %q", s)
		}
		since = t
	}
	eventType := q.Get("event_type")
	out := []intentEvent{}
	// Filtered here, by the SDK's names: read on until the page is full or the log ends.
	for len(out) < f.Limit {
		evs, err := a.engine.Events(r.Context(), p, f)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			f.After = ev.Seq
			oe := intentEventOf(ev)
			if (eventType == "" || oe.EventType == eventType) && ev.Time.After(since) && len(out) < f.Limit {
				out = append(out, oe)
			}
		}
		if len(evs) < f.Limit || (eventType == "" && since.IsZero()) {
			break
		}
	}
	return httpwire.WriteJSON(w, http.StatusOK, out)
}
