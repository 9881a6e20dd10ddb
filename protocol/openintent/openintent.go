// Package openintent serves OpenIntent's HITL shape (RFC-0025, /api/v1/intents/...), so that
// its SDK and the operators' tools written for it use hitl unchanged: an intent is a session, a
// suspension an inquiry asked in it (suspension_id is the inquiry's id, as a string or a
// number). It maps shapes only; the engine decides, as for /v1.
package openintent

import (
	"bytes"
	"encoding/json"
	"net/http"
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
}

// intentStatus is a session's status under RFC-0001's names.
func intentStatus(s hitl.SessionStatus) string {
	switch s {
	case hitl.SessionRunning:
		return "active"
	case hitl.SessionAwaitingInput:
		return "suspended_awaiting_input"
	}
	return string(s) // completed, failed, cancelled
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
	key := r.PathValue("intent_id")
	sess, err := a.engine.Session(r.Context(), p, key)
	if err != nil {
		return err
	}
	inqs, err := a.engine.SessionInquiries(r.Context(), p, key)
	if err != nil {
		return err
	}
	state := map[string]any{}
	if !hitl.IsNull(sess.State) && json.Unmarshal(sess.State, &state) != nil {
		state = map[string]any{"value": sess.State} // a state that is no object is kept whole
	}
	if len(inqs) > 0 {
		state["_suspension"] = suspensionOf(inqs[len(inqs)-1])
	}
	return httpwire.WriteJSON(w, http.StatusOK, intentView{ID: sess.Key, Status: intentStatus(sess.Status), State: state})
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
