// Package attune serves Attune's shape of hitl, so that a workflow engine built for Attune's
// inquiry service uses it unchanged: its REST routes (/api/v1/..., with the envelope
// {"data": ...}, its field names, numbers for executions and people); the payloads Attune's
// executor publishes, which the message brokers send in the attune format, are in
// protocol/attune/executor. It maps shapes only; the engine decides, as for /v1.
package attune

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/protocol/attune/executor"
)

// inquiry is an inquiry as Attune shows it.
type inquiry struct {
	ID int64 `json:"id"`
	// Execution is a number when the execution id is one (Attune's are), else the string.
	Execution      any             `json:"execution"`
	Prompt         string          `json:"prompt"`
	ResponseSchema json.RawMessage `json:"response_schema"`
	// AssignedTo is the integer identity of the first person assigned (Attune assigns one).
	AssignedTo  *int64          `json:"assigned_to"`
	Status      hitl.Status     `json:"status"`
	Response    json.RawMessage `json:"response"`
	HasResponse bool            `json:"has_response"`
	TimeoutAt   *time.Time      `json:"timeout_at"`
	RespondedAt *time.Time      `json:"responded_at"`
	Created     time.Time       `json:"created"`
	Updated     time.Time       `json:"updated"`
}

type envelope struct {
	Data    any    `json:"data"`
	Message string `json:"message,omitempty"`
}

type inquiryPage struct {
	Data    []inquiry `json:"data"`
	Total   int       `json:"total"`
	Page    int       `json:"page"`
	PerPage int       `json:"per_page"`
	Pages   int       `json:"pages"`
}

// executionValue is an execution id as Attune writes it: a number when it is one.
func executionValue(execution string) any {
	if execution == "" {
		return nil
	}
	if n, err := strconv.ParseInt(execution, 10, 64); err == nil && strconv.FormatInt(n, 10) == execution {
		return n
	}
	return execution
}

// hasResponse: answered (null may be an answer), or given a fallback value at its deadline.
func hasResponse(inq *hitl.Inquiry) bool {
	return inq.Status == hitl.StatusResponded || !hitl.IsNull(inq.Response)
}

// API serves Attune's routes on the engine.
type API struct {
	engine *engine.Engine
}

// New returns Attune's routes on e.
func New(e *engine.Engine) *API { return &API{engine: e} }

// listQuery is the query GET /api/v1/inquiries takes.
var listQuery = []string{"status", "execution", "assigned_to", "page", "per_page"}

// Mount adds Attune's routes to r.
func (a *API) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/executions/{execution_id}/result", Handle: a.result})
	r.Handle(httpwire.Route{Method: "GET", Path: "/api/v1/inquiries", Query: listQuery, Handle: a.list})
	r.Handle(httpwire.Route{Method: "GET", Path: "/api/v1/inquiries/{id}", Handle: a.get})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/inquiries/{id}/respond", Handle: a.respond})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/inquiries/respond", Handle: a.respondMany})
	r.Handle(httpwire.Route{Method: "POST", Path: "/api/v1/inquiries/{id}/cancel", Handle: a.cancel})
}

// inquiries maps inquiries to Attune's shape, looking up their assignees' identities
// at once.
func (a *API) inquiries(r *http.Request, inqs []*hitl.Inquiry) ([]inquiry, error) {
	var names []string
	for _, inq := range inqs {
		if name := executor.Person(inq.AssignedTo); name != "" {
			names = append(names, name)
		}
	}
	ids, err := a.engine.IdentityIDs(r.Context(), names)
	if err != nil {
		return nil, err
	}
	out := make([]inquiry, len(inqs))
	for i, inq := range inqs {
		out[i] = inquiry{ID: inq.ID, Execution: executionValue(inq.Execution), Prompt: inq.Prompt,
			ResponseSchema: inq.ResponseSchema, Status: inq.Status, Response: inq.Response,
			HasResponse: hasResponse(inq), TimeoutAt: inq.TimeoutAt, RespondedAt: inq.RespondedAt,
			Created: inq.CreatedAt, Updated: inq.UpdatedAt}
		if id, ok := ids[executor.Person(inq.AssignedTo)]; ok {
			out[i].AssignedTo = &id
		}
	}
	return out, nil
}

func (a *API) write(w http.ResponseWriter, r *http.Request, status int, inq *hitl.Inquiry, message string) error {
	shown, err := a.inquiries(r, []*hitl.Inquiry{inq})
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, status, envelope{Data: shown[0], Message: message})
}

// result serves POST /api/v1/executions/{execution_id}/result: an action's result,
// which asks a human when it holds __inquiry.
func (a *API) result(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var result json.RawMessage
	if err := httpwire.Decode(r, &result); err != nil {
		return err
	}
	inq, created, err := a.engine.IntakeActionResult(r.Context(), p, r.PathValue("execution_id"), result)
	if err != nil {
		return err
	}
	if inq == nil {
		return httpwire.WriteJSON(w, http.StatusOK, envelope{Data: nil})
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/api/v1/inquiries/"+strconv.FormatInt(inq.ID, 10))
	}
	return a.write(w, r, status, inq, "")
}

const (
	defaultPerPage = 50
	maxPerPage     = 500
	maxPage        = 1_000_000
)

// wholeParam reads a query parameter that is a whole number from low to high.
func wholeParam(q map[string][]string, name string, def, low, high int64, what string) (int64, error) {
	vs := q[name]
	if len(vs) == 0 {
		return def, nil
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil || n < low || n > high {
		return 0, hitl.Errorf(hitl.EInvalid, "%s must be %s, a whole number from %d to %d; got %q", name, what, low, high, vs[0])
	}
	return n, nil
}

// list serves GET /api/v1/inquiries: Attune's filters (status, execution, assigned_to
// as an identity) and numbered pages.
func (a *API) list(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	page, err := wholeParam(q, "page", 1, 1, maxPage, "a page number")
	if err != nil {
		return err
	}
	perPage, err := wholeParam(q, "per_page", defaultPerPage, 1, maxPerPage, "how many inquiries a page lists")
	if err != nil {
		return err
	}
	f := hitl.InquiryFilter{Status: hitl.Status(q.Get("status")), Execution: q.Get("execution"),
		Page: hitl.Page{Limit: int(perPage), Offset: int((page - 1) * perPage)}}
	if q.Has("assigned_to") {
		id, err := wholeParam(q, "assigned_to", 0, 1, 1<<63-1, "an integer identity")
		if err != nil {
			return err
		}
		name, err := a.engine.IdentityName(r.Context(), id)
		if hitl.ErrorCode(err) == hitl.ENotFound {
			return hitl.Errorf(hitl.EInvalid, "assigned_to: %s", hitl.ErrorMessage(err))
		}
		if err != nil {
			return err
		}
		f.AssignedTo = []string{name}
	}
	items, _, err := a.engine.Inquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	total, err := a.engine.CountInquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	shown, err := a.inquiries(r, items)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inquiryPage{Data: shown, Total: total, Page: int(page), PerPage: int(perPage),
		Pages: (total + int(perPage) - 1) / int(perPage)})
}

func (a *API) get(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.PathInquiry(r, p, a.engine.Inquiry)
	if err != nil {
		return err
	}
	return a.write(w, r, http.StatusOK, inq, "")
}

func (a *API) respond(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.Answer(r, p, a.engine.Respond)
	if err != nil {
		return err
	}
	return a.write(w, r, http.StatusOK, inq, "Response submitted successfully")
}

// respondMany serves POST /api/v1/inquiries/respond: hitl's bulk answer (POST
// /v1/inquiries/respond, the same request and rules), its results the envelope's data.
func (a *API) respondMany(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	results, err := httpwire.AnswerMany(r, p, a.engine.RespondMany)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, envelope{Data: results})
}

func (a *API) cancel(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.WithReason(r, p, a.engine.Cancel)
	if err != nil {
		return err
	}
	return a.write(w, r, http.StatusOK, inq, "Inquiry cancelled")
}
