package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
)

// Nova's shape (seed 004): an inquiry is an interaction, a session is its thread (and task).
//
//	POST /api/interactions/{id}/answer  {"answer": ...}
//	POST /api/interactions/{id}/cancel  {"reason": "..."}   (a person declines)
//	GET  /api/interactions/pending?thread_id=...
//
// and on /v1/ws, a subscription with "protocol": "nova" receives user_prompt and
// interaction_update messages (novaMessage).

// Nova's interaction statuses.
const (
	novaPending  = "PENDING"
	novaAnswered = "ANSWERED"
	novaCanceled = "CANCELED"
	novaResuming = "RESUMING"
)

// novaInteraction is an inquiry as Nova's Interaction model shows it.
type novaInteraction struct {
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

func novaStatus(inq *hitl.Inquiry) string {
	switch {
	case inq.Status == hitl.StatusPending:
		return novaPending
	case inq.Status == hitl.StatusResponded, inq.FallbackApplied:
		return novaAnswered
	}
	return novaCanceled // cancelled, or timed out without an answer
}

// originName is who asks, as Nova's card shows it ("Calendar agent asks: …").
func originName(inq *hitl.Inquiry) string {
	if inq.Origin != "" {
		return inq.Origin
	}
	return inq.CreatedBy
}

// orNull is raw, or JSON null when there is none: Nova's fields are always present.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func toNovaInteraction(inq *hitl.Inquiry) novaInteraction {
	return novaInteraction{ID: inq.ID, Task: inq.Session, Thread: inq.Session, ThreadID: inq.Session, Agent: inq.CreatedBy,
		OriginName: originName(inq), Question: inq.Prompt, Schema: orNull(inq.ResponseSchema), Answer: orNull(inq.Response), Status: novaStatus(inq),
		CancellableByResponder: inq.CancellableByResponder, CreatedAt: inq.CreatedAt, UpdatedAt: inq.UpdatedAt, ExpiresAt: inq.TimeoutAt}
}

// novaAnswer serves POST /api/interactions/{id}/answer.
func (s *Server) novaAnswer(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := inquiryID(r)
	if err != nil {
		return err
	}
	var req struct {
		Answer json.RawMessage `json:"answer"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Answer == nil {
		return hitl.Errorf(hitl.EInvalid, `answer is required: send {"answer": ...}`)
	}
	inq, err := s.engine.Respond(r.Context(), p, id, &hitl.ResponseRequest{Response: req.Answer})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toNovaInteraction(inq))
}

// novaCancel serves POST /api/interactions/{id}/cancel: the person declines; the inquiry is
// cancelled and its thread's session fails with the reason.
func (s *Server) novaCancel(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := s.declineInquiry(r, p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toNovaInteraction(inq))
}

// novaPendingLimit bounds the list: a thread has usually one pending interaction.
const novaPendingLimit = 100

// novaPending serves GET /api/interactions/pending?thread_id=: the pending interactions the
// caller may see, of one thread when it is given.
func (s *Server) novaPending(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	f := hitl.InquiryFilter{Status: hitl.StatusPending, Session: r.URL.Query().Get("thread_id"), Order: hitl.OrderNewest,
		Page: hitl.Page{Limit: novaPendingLimit}}
	inqs, _, err := s.engine.Inquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]novaInteraction, len(inqs))
	for i, inq := range inqs {
		out[i] = toNovaInteraction(inq)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"interactions": out})
}

// novaEventTypes are the events a Nova subscription has messages for.
var novaEventTypes = []string{hitl.EventInquiryCreated, hitl.EventInquiryResponded, hitl.EventInquiryTimeout,
	hitl.EventInquiryCancelled, hitl.EventInquiryResumed}

// novaMessage is the Nova WebSocket message an event makes; nil for the events Nova has no
// message for.
func novaMessage(ev *hitl.Event) any {
	var inq hitl.Inquiry
	if ev.InquiryID == nil || json.Unmarshal(ev.Data, &inq) != nil {
		return nil
	}
	update := func(status string) any {
		return map[string]any{"type": "interaction_update", "interaction_id": inq.ID, "status": status}
	}
	switch ev.Type {
	case hitl.EventInquiryCreated:
		return map[string]any{"type": "user_prompt", "interaction_id": inq.ID, "question": inq.Prompt, "schema": orNull(inq.ResponseSchema),
			"origin_name": originName(&inq), "thread_id": inq.Session}
	case hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
		return update(novaStatus(&inq))
	case hitl.EventInquiryResumed:
		return update(novaResuming)
	}
	return nil
}
