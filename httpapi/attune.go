package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Attune's REST shape (/api/v1/...), so that a workflow engine built for Attune's inquiry
// service uses hitl unchanged: its envelope {"data": ...}, its field names, numbers for
// executions and people. It maps shapes only; the engine decides, as for /v1.

// attuneInquiry is an inquiry as Attune shows it.
type attuneInquiry struct {
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

type attuneData struct {
	Data    any    `json:"data"`
	Message string `json:"message,omitempty"`
}

type attunePage struct {
	Data    []attuneInquiry `json:"data"`
	Total   int             `json:"total"`
	Page    int             `json:"page"`
	PerPage int             `json:"per_page"`
	Pages   int             `json:"pages"`
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

// person is the first assignee that names a principal rather than a group.
func person(inq *hitl.Inquiry) string {
	for _, a := range inq.AssignedTo {
		if !strings.HasPrefix(a, hitl.GroupPrefix) {
			return a
		}
	}
	return ""
}

// hasResponse: answered (null may be an answer), or given a fallback value at its deadline.
func hasResponse(inq *hitl.Inquiry) bool {
	return inq.Status == hitl.StatusResponded || !hitl.IsNull(inq.Response)
}

// attuneInquiries maps inquiries to Attune's shape, looking up their assignees' identities
// at once.
func (s *Server) attuneInquiries(r *http.Request, inqs []*hitl.Inquiry) ([]attuneInquiry, error) {
	var names []string
	for _, inq := range inqs {
		if name := person(inq); name != "" {
			names = append(names, name)
		}
	}
	ids, err := s.engine.IdentityIDs(r.Context(), names)
	if err != nil {
		return nil, err
	}
	out := make([]attuneInquiry, len(inqs))
	for i, inq := range inqs {
		out[i] = attuneInquiry{ID: inq.ID, Execution: executionValue(inq.Execution), Prompt: inq.Prompt,
			ResponseSchema: inq.ResponseSchema, Status: inq.Status, Response: inq.Response,
			HasResponse: hasResponse(inq), TimeoutAt: inq.TimeoutAt, RespondedAt: inq.RespondedAt,
			Created: inq.CreatedAt, Updated: inq.UpdatedAt}
		if id, ok := ids[person(inq)]; ok {
			out[i].AssignedTo = &id
		}
	}
	return out, nil
}

func (s *Server) writeAttune(w http.ResponseWriter, r *http.Request, status int, inq *hitl.Inquiry, message string) error {
	shown, err := s.attuneInquiries(r, []*hitl.Inquiry{inq})
	if err != nil {
		return err
	}
	return writeJSON(w, status, attuneData{Data: shown[0], Message: message})
}

// attuneResult serves POST /api/v1/executions/{execution_id}/result: an action's result,
// which asks a human when it holds __inquiry.
func (s *Server) attuneResult(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var result json.RawMessage
	if err := decode(r, &result); err != nil {
		return err
	}
	inq, created, err := s.engine.IntakeActionResult(r.Context(), p, r.PathValue("execution_id"), result)
	if err != nil {
		return err
	}
	if inq == nil {
		return writeJSON(w, http.StatusOK, attuneData{Data: nil})
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/api/v1/inquiries/"+strconv.FormatInt(inq.ID, 10))
	}
	return s.writeAttune(w, r, status, inq, "")
}

const (
	attunePerPage    = 50
	attuneMaxPerPage = 500
	attuneMaxPage    = 1_000_000
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

// attuneList serves GET /api/v1/inquiries: Attune's filters (status, execution, assigned_to
// as an identity) and numbered pages.
func (s *Server) attuneList(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	page, err := wholeParam(q, "page", 1, 1, attuneMaxPage, "a page number")
	if err != nil {
		return err
	}
	perPage, err := wholeParam(q, "per_page", attunePerPage, 1, attuneMaxPerPage, "how many inquiries a page lists")
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
		name, err := s.engine.IdentityName(r.Context(), id)
		if hitl.ErrorCode(err) == hitl.ENotFound {
			return hitl.Errorf(hitl.EInvalid, "assigned_to: %s", hitl.ErrorMessage(err))
		}
		if err != nil {
			return err
		}
		f.AssignedTo = []string{name}
	}
	items, _, err := s.engine.Inquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	total, err := s.engine.CountInquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	shown, err := s.attuneInquiries(r, items)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, attunePage{Data: shown, Total: total, Page: int(page), PerPage: int(perPage),
		Pages: (total + int(perPage) - 1) / int(perPage)})
}

func (s *Server) attuneGet(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := s.pathInquiry(r, p)
	if err != nil {
		return err
	}
	return s.writeAttune(w, r, http.StatusOK, inq, "")
}

func (s *Server) attuneRespond(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := s.answer(r, p)
	if err != nil {
		return err
	}
	return s.writeAttune(w, r, http.StatusOK, inq, "Response submitted successfully")
}

func (s *Server) attuneCancel(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := s.cancelInquiry(r, p)
	if err != nil {
		return err
	}
	return s.writeAttune(w, r, http.StatusOK, inq, "Inquiry cancelled")
}
