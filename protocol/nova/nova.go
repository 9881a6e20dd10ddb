// Package nova serves Nova's shape (seed 004) of hitl, so that Nova's clients use it unchanged:
// an inquiry is an interaction, a session is its thread (and task).
//
//	POST /api/interactions/{id}/answer  {"answer": ...}
//	POST /api/interactions/{id}/cancel  {"reason": "..."}   (a person declines)
//	GET  /api/interactions/pending?thread_id=...
//
// and on /v1/ws, a subscription with "protocol": "nova" receives user_prompt,
// interaction_update and task_error messages (Messages). It maps shapes only; the engine
// decides.
package nova

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// Nova's interaction statuses.
const (
	statusPending  = "PENDING"
	statusAnswered = "ANSWERED"
	statusCanceled = "CANCELED"
	statusResuming = "RESUMING"
)

// interaction is an inquiry as Nova's Interaction model shows it.
type interaction struct {
	ID                     int64           `json:"id"`
	Task                   string          `json:"task"`
	Thread                 string          `json:"thread"`
	ThreadID               string          `json:"thread_id"`
	Agent                  string          `json:"agent"`
	OriginName             string          `json:"origin_name"`
	Question               string          `json:"question"`
	Schema                 json.RawMessage `json:"schema"`
	Answer                 json.RawMessage `json:"answer"`
	Status                 string          `json:"status"`
	CancellableByResponder bool            `json:"cancellable_by_responder"`
	CreatedAt              time.Time       `json:"created_at"`
	UpdatedAt              time.Time       `json:"updated_at"`
	ExpiresAt              *time.Time      `json:"expires_at"`
}

func status(inq *hitl.Inquiry) string {
	switch {
	case inq.Status == hitl.StatusPending:
		return statusPending
	case inq.Status == hitl.StatusResponded, inq.FallbackApplied:
		return statusAnswered
	}
	return statusCanceled // cancelled, or timed out without an answer
}

// originName is who asks, as Nova's card shows it ("Calendar agent asks: …").
func originName(inq *hitl.Inquiry) string {
	if inq.Origin != "" {
		return inq.Origin
	}
	return inq.CreatedBy
}

func interactionOf(inq *hitl.Inquiry) interaction {
	return interaction{ID: inq.ID, Task: inq.Session, Thread: inq.Session, ThreadID: inq.Session, Agent: inq.CreatedBy,
		OriginName: originName(inq), Question: inq.Prompt, Schema: hitl.OrNull(inq.ResponseSchema), Answer: hitl.OrNull(inq.Response), Status: status(inq),
		CancellableByResponder: inq.CancellableByResponder, CreatedAt: inq.CreatedAt, UpdatedAt: inq.UpdatedAt, ExpiresAt: inq.TimeoutAt}
}

// API serves Nova's routes on the engine.
type API struct {
	engine *engine.Engine
}

// New returns Nova's routes on e.
func New(e *engine.Engine) *API { return &API{engine: e} }

// Mount adds Nova's routes to r.
func (a *API) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/interactions/{id}/answer", Handle: a.answer})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/interactions/{id}/cancel", Handle: a.cancel})
	r.Handle(httpwire.Route{Method: "GET", Path: "/api/interactions/pending", Query: []string{"thread_id"}, Handle: a.pending})
}

// answer serves POST /api/interactions/{id}/answer.
func (a *API) answer(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	var req struct {
		Answer json.RawMessage `json:"answer"`
	}
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	if req.Answer == nil {
		return hitl.Errorf(hitl.EInvalid, `answer is required: send {"answer": ...}`)
	}
	inq, err := a.engine.AnswerInteraction(r.Context(), p, id, req.Answer)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, interactionOf(inq))
}

// cancel serves POST /api/interactions/{id}/cancel: the person declines; the inquiry is
// cancelled and its thread's session fails with the reason.
func (a *API) cancel(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.WithReason(r, p, a.engine.Decline)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, interactionOf(inq))
}

// pendingLimit bounds the list: a thread has usually one pending interaction.
const pendingLimit = 100

// pending serves GET /api/interactions/pending?thread_id=: the pending interactions the
// caller may see, of one thread when it is given.
func (a *API) pending(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	f := hitl.InquiryFilter{Status: hitl.StatusPending, Session: r.URL.Query().Get("thread_id"), Order: hitl.OrderNewest,
		Page: hitl.Page{Limit: pendingLimit}}
	inqs, _, err := a.engine.Inquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]interaction, len(inqs))
	for i, inq := range inqs {
		out[i] = interactionOf(inq)
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{"interactions": out})
}

// EventTypes are the events a Nova subscription has messages for.
var EventTypes = []string{hitl.EventInquiryCreated, hitl.EventInquiryResponded, hitl.EventInquiryTimeout,
	hitl.EventInquiryCancelled, hitl.EventInquiryResumed}

// Messages are the Nova WebSocket messages an event makes, in order; none for the events Nova
// has no message for. An interaction whose end failed its task (it expired, or the person
// declined: engine.SessionFailure) makes its interaction_update CANCELED, then task_error with
// the reason, as Nova's cancel did. They come from the inquiry's event, which whoever may see
// the interaction sees; the session's own events carry its state, kept to its owner.
func Messages(ev *hitl.Event) []any {
	var inq hitl.Inquiry
	if ev.InquiryID == nil || json.Unmarshal(ev.Data, &inq) != nil {
		return nil
	}
	update := func(status string) map[string]any {
		return map[string]any{"type": "interaction_update", "interaction_id": inq.ID, "status": status}
	}
	switch ev.Type {
	case hitl.EventInquiryCreated:
		return []any{map[string]any{"type": "user_prompt", "interaction_id": inq.ID, "question": inq.Prompt, "schema": hitl.OrNull(inq.ResponseSchema),
			"origin_name": originName(&inq), "thread_id": inq.Session}}
	case hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
		out := []any{update(status(&inq))}
		if reason := engine.SessionFailure(&inq); reason != "" {
			out = append(out, map[string]any{"type": "task_error", "task_id": inq.Session, "thread_id": inq.Session,
				"interaction_id": inq.ID, "message": reason})
		}
		return out
	case hitl.EventInquiryResumed:
		return []any{update(statusResuming)}
	}
	return nil
}
