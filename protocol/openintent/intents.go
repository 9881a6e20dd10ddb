package openintent

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// intentView is an intent as GET /api/v1/intents/{intent_id} shows it: every field the SDK's
// Intent.from_dict reads.
type intentView struct {
	ID          string         `json:"id"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Status      string         `json:"status"`
	State       map[string]any `json:"state"`
	// Version counts the session's changes (hitl.ChangesSession): If-Match compares it.
	Version        int64           `json:"version"`
	CreatedBy      string          `json:"created_by"`
	ParentIntentID *string         `json:"parent_intent_id"`
	DependsOn      []string        `json:"depends_on"`
	Constraints    map[string]any  `json:"constraints"`
	Confidence     float64         `json:"confidence"`
	Governance     json.RawMessage `json:"governance_policy"`
	CreatedAt      isoTime         `json:"created_at"`
	UpdatedAt      isoTime         `json:"updated_at"`
	// AbandonmentReason is why an abandoned intent ended (its session's error), when it says.
	AbandonmentReason string `json:"abandonment_reason,omitempty"`
}

// The session metadata an intent's title and description are kept in.
const (
	titleKey       = "title"
	descriptionKey = "description"
)

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

// intent serves GET /api/v1/intents/{intent_id}: the session as an intent, its state
// holding the latest suspension as _suspension, which OpenIntent's SDK polls.
func (a *API) intent(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	return a.writeIntent(w, r.Context(), p, r.PathValue("intent_id"), http.StatusOK)
}

func (a *API) writeIntent(w http.ResponseWriter, ctx context.Context, p *hitl.Principal, key string, status int) error {
	view, err := a.view(ctx, p, key)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, status, view)
}

// view is the intent that the session key is, as p may see it.
func (a *API) view(ctx context.Context, p *hitl.Principal, key string) (*intentView, error) {
	// The version is read first: one that lags the state makes a change a conflict, never one
	// that runs ahead of it a lost update.
	version, err := a.engine.SessionVersion(ctx, p, key)
	if err != nil {
		return nil, err
	}
	sess, err := a.engine.Session(ctx, p, key)
	if err != nil {
		return nil, err
	}
	inqs, err := a.engine.SessionInquiries(ctx, p, key)
	if err != nil {
		return nil, err
	}
	state := stateOf(sess)
	if len(inqs) > 0 {
		state["_suspension"] = suspensionOf(inqs[len(inqs)-1])
	}
	view := &intentView{ID: sess.Key, Title: sess.Key, Description: sess.Metadata[descriptionKey], Status: intentStatus(sess.Status), State: state,
		Version: version, CreatedBy: sess.CreatedBy, DependsOn: []string{}, Constraints: map[string]any{},
		CreatedAt: isoTime(sess.CreatedAt), UpdatedAt: isoTime(sess.UpdatedAt)}
	// The session's updated_at moves with its own changes; the version counts its inquiries'
	// too (a suspension asked, answered, ...).
	for _, inq := range inqs {
		if inq.UpdatedAt.After(time.Time(view.UpdatedAt)) {
			view.UpdatedAt = isoTime(inq.UpdatedAt)
		}
	}
	if title := sess.Metadata[titleKey]; title != "" {
		view.Title = title
	}
	if sess.Error != nil && view.Status == "abandoned" {
		view.AbandonmentReason = *sess.Error
	}
	return view, nil
}

// stateOf is the session's state as an object: a state that is no object is kept whole as
// its value.
func stateOf(sess *hitl.Session) map[string]any {
	state := map[string]any{}
	if !hitl.IsNull(sess.State) {
		d := json.NewDecoder(bytes.NewReader(sess.State))
		d.UseNumber() // numbers come back as they were written
		if d.Decode(&state) != nil {
			state = map[string]any{"value": sess.State}
		}
	}
	return state
}

// intentToCreate is the body of POST /api/v1/intents, as the SDK's create_intent sends it.
type intentToCreate struct {
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Constraints json.RawMessage `json:"constraints"`
	State       json.RawMessage `json:"state"`
	// CreatedBy is the SDK's agent id; the session's creator is the key that sends it.
	CreatedBy        string          `json:"created_by"`
	Status           string          `json:"status"`
	ParentIntentID   string          `json:"parent_intent_id"`
	DependsOn        []string        `json:"depends_on"`
	GovernancePolicy json.RawMessage `json:"governance_policy"`
}

// createIntent serves POST /api/v1/intents: a new session, with a UUID as its key as
// OpenIntent's servers give, the title and description in its metadata and the state as its
// state. What hitl does not enforce (constraints, governance, intent graphs) is refused rather
// than kept and ignored.
func (a *API) createIntent(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req intentToCreate
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(req.Title) == "":
		return hitl.Errorf(hitl.EInvalid, "title is required: what the intent is for, in a few words")
	case !emptyObject(req.Constraints):
		return hitl.Errorf(hitl.EInvalid, "constraints are not enforced by this server: send {} or none")
	case !hitl.IsNull(req.GovernancePolicy):
		return hitl.Errorf(hitl.EInvalid, "governance_policy is not enforced by this server: leave it out (who may answer is set on hitl's keys and inquiries)")
	case req.ParentIntentID != "" || len(req.DependsOn) > 0:
		return hitl.Errorf(hitl.EInvalid, "parent_intent_id and depends_on are not served: this server keeps no intent graphs")
	case req.Status != "" && req.Status != "active":
		return hitl.Errorf(hitl.EInvalid, "status must be active or left out: an intent on this server is active from its creation")
	case !hitl.IsNull(req.State) && !bytes.HasPrefix(bytes.TrimSpace(req.State), []byte("{")):
		return hitl.Errorf(hitl.EInvalid, "state must be a JSON object")
	}
	meta := map[string]string{titleKey: req.Title}
	if req.Description != "" {
		meta[descriptionKey] = req.Description
	}
	key := uuid.NewString()
	if _, _, err := a.engine.PutSession(r.Context(), p, key, &hitl.SessionRequest{State: req.State, Metadata: meta}); err != nil {
		return err
	}
	return a.writeIntent(w, r.Context(), p, key, http.StatusCreated)
}

// emptyObject reports whether raw is absent, null or {}.
func emptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return hitl.IsNull(raw) || (json.Unmarshal(raw, &m) == nil && len(m) == 0)
}

// statusChange is the body of POST /api/v1/intents/{intent_id}/status; the SDK sends the
// version it read in If-Match.
type statusChange struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// status serves POST /api/v1/intents/{intent_id}/status, each of the SDK's statuses as far as
// a session can take it; the intent as it is then.
func (a *API) status(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req statusChange
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	ctx, key := r.Context(), r.PathValue("intent_id")
	switch req.Status {
	case "abandoned", "active", "suspended_awaiting_input":
	case "completed":
		if req.Reason != "" {
			return hitl.Errorf(hitl.EInvalid, "reason is kept for an abandoned intent only: a completed one has its result (POST /v1/sessions/%s/complete)", key)
		}
	case "draft":
		return hitl.Errorf(hitl.EInvalid, "an intent on this server is active from its creation: sessions have no draft status")
	case "blocked":
		return hitl.Errorf(hitl.EInvalid, "this server has no blocked intents: an intent is active, suspended_awaiting_input while a person is asked, completed or abandoned")
	default:
		return hitl.Errorf(hitl.EInvalid, "status must be one of active, suspended_awaiting_input, completed, abandoned")
	}
	sess, err := a.engine.Session(ctx, p, key) // an unknown intent is not created
	if err != nil {
		return err
	}
	switch {
	case req.Status == "abandoned" && sess.Status == hitl.SessionCompleted:
		return hitl.Errorf(hitl.EConflict, "intent %s is completed: an intent that reached its goal cannot be abandoned", key)
	case req.Status == "abandoned" && sess.Status.Finished():
		// Abandoned already: the engine leaves it as it is, with the reason it ended for.
	default:
		if err := unchangeable(sess); err != nil {
			return err
		}
	}
	switch req.Status {
	case "abandoned":
		_, err = a.engine.AbandonSession(ctx, p, key, req.Reason, version)
	case "completed":
		_, err = a.engine.FinishSession(ctx, p, key, engine.SessionEnd{Status: hitl.SessionCompleted, IfVersion: version})
	default:
		err = a.markStatus(ctx, p, sess, req.Status, version)
	}
	if err != nil {
		return err
	}
	return a.writeIntent(w, ctx, p, key, http.StatusOK)
}

// markStatus takes active or suspended_awaiting_input, which follow from the intent's
// suspensions on this server: it is suspended while one waits for a person's answer. The SDK
// says suspended_awaiting_input just before it writes the suspension, and active is what an
// intent without a waiting one is; either is recorded as a change of the session (its version
// moves on, as it does on OpenIntent's servers). An agent cannot make an intent active while
// a person is still asked: the answer does that.
func (a *API) markStatus(ctx context.Context, p *hitl.Principal, sess *hitl.Session, status string, version *int64) error {
	if status == "active" && sess.Status == hitl.SessionAwaitingInput {
		return hitl.Errorf(hitl.EConflict, "intent %s waits for a person's answer to its suspension: it becomes active when they answer (or abandon it)", sess.Key)
	}
	_, _, err := a.engine.PutSession(ctx, p, sess.Key, &hitl.SessionRequest{Metadata: changeMarked(sess, changeStatus), IfVersion: version})
	return err
}

// unchangeable refuses a change of an intent that has ended, in OpenIntent's words (the
// engine would refuse it too, in a session's).
func unchangeable(sess *hitl.Session) error {
	if !sess.Status.Finished() {
		return nil
	}
	status := intentStatus(sess.Status)
	if sess.Error != nil && status == "abandoned" {
		return hitl.Errorf(hitl.EConflict, "intent %s is abandoned (%s) and can no longer change", sess.Key, *sess.Error)
	}
	return hitl.Errorf(hitl.EConflict, "intent %s is %s and can no longer change", sess.Key, status)
}

// changeKey is the session metadata that says what its latest change through these routes
// was (changeStatus, changeState), so that the log names a set_status status_changed although
// a session records active and suspended_awaiting_input as no status of its own.
const changeKey = "openintent_change"

const (
	changeStatus = "status"
	changeState  = "state"
)

// changeMarked is the session's metadata with its latest change marked as kind.
func changeMarked(sess *hitl.Session, kind string) map[string]string {
	meta := maps.Clone(sess.Metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[changeKey] = kind
	return meta
}

// agentAssignment is the body of POST /api/v1/intents/{intent_id}/agents (assign_agent).
type agentAssignment struct {
	AgentID string `json:"agent_id"`
	Role    string `json:"role"`
}

// assignmentEntry is the payload of the agent_assigned entry an assignment logs, which the
// agent's subscription (subscribe) turns into its AGENT_ASSIGNED event. AssignedBy tells it
// from an agent_assigned entry an agent logs itself, as the SDK's delegate() does first.
type assignmentEntry struct {
	AgentID    string `json:"agent_id"`
	Role       string `json:"role"`
	AssignedBy string `json:"assigned_by"`
}

// assign serves POST /api/v1/intents/{intent_id}/agents: the session's agent becomes the one
// named, and an agent_assigned entry in its log tells that agent's subscription.
func (a *API) assign(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req agentAssignment
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.AgentID) == "" {
		return hitl.Errorf(hitl.EInvalid, "agent_id is required: the id of the agent that is to work on the intent")
	}
	if req.Role == "" {
		req.Role = "worker"
	}
	ctx, key := r.Context(), r.PathValue("intent_id")
	sess, err := a.engine.Session(ctx, p, key) // an unknown intent is not created
	if err != nil {
		return err
	}
	if err := unchangeable(sess); err != nil {
		return err
	}
	if _, _, err := a.engine.PutSession(ctx, p, key, &hitl.SessionRequest{Agent: req.AgentID, Metadata: changeMarked(sess, changeState)}); err != nil {
		return err
	}
	payload, _ := json.Marshal(assignmentEntry{AgentID: req.AgentID, Role: req.Role, AssignedBy: p.Name})
	ev, err := a.engine.LogSession(ctx, p, key, hitl.SessionLogEntry{EventType: eventAgentAssigned, Payload: payload})
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, struct {
		IntentID   string  `json:"intent_id"`
		AgentID    string  `json:"agent_id"`
		Role       string  `json:"role"`
		AssignedAt isoTime `json:"assigned_at"`
	}{key, req.AgentID, req.Role, isoTime(ev.Time)})
}

// eventAgentAssigned is OpenIntent's event type of an assignment.
const eventAgentAssigned = "agent_assigned"
