package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// page is the shape of every list.
type page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

func newPage[T any](items []T, next string) page[T] {
	if items == nil {
		items = []T{}
	}
	p := page[T]{Data: items}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

func pageParams(q url.Values) (hitl.Page, error) {
	p := hitl.Page{Cursor: q.Get("cursor"), Limit: 50}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 500 {
			return p, hitl.Errorf(hitl.EInvalid, "limit must be a whole number from 1 to 500")
		}
		p.Limit = n
	}
	return p, nil
}

// duration reads a wait time: Go syntax ("30s", "1m30s") or plain seconds ("30").
func duration(q url.Values, name string, def time.Duration) (time.Duration, error) {
	return waitDuration(q.Get(name), name, def)
}

// waitDuration reads how long a wait lasts: a duration like 30s, or a number of seconds;
// def when s is empty.
func waitDuration(s, name string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		s = strconv.FormatFloat(n, 'f', -1, 64) + "s"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > engine.MaxWait {
		return 0, hitl.Errorf(hitl.EInvalid, "%s must be a duration from 0s to %s, like 30s", name, engine.MaxWait)
	}
	return d, nil
}

func timeParam(q url.Values, name string) (*time.Time, error) {
	s := q.Get(name)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, hitl.Errorf(hitl.EInvalid, "%s must be an RFC 3339 time", name)
	}
	return &t, nil
}

// ---- keys

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.KeyRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	k, err := s.engine.CreateKey(r.Context(), p, &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusCreated, k)
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	keys, err := s.engine.Keys(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(keys, ""))
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.RevokeKey(r.Context(), p, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// me is the caller's principal, with the key it authenticated with (hitl whoami shows it: the
// key to revoke, or to tell apart from the name's other keys).
func (s *Server) me(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	return httpwire.WriteJSON(w, http.StatusOK, p.AsCaller())
}

// ---- inquiries

func (s *Server) createInquiry(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	wait, err := duration(r.URL.Query(), "wait", 0)
	if err != nil {
		return err
	}
	var req hitl.InquiryRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	inq, created, err := s.engine.CreateInquiry(r.Context(), p, &req, r.Header.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	if wait > 0 && !inq.Status.Final() {
		if inq, err = s.engine.Wait(r.Context(), p, inq.ID, wait); err != nil {
			return err
		}
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/inquiries/"+strconv.FormatInt(inq.ID, 10))
	}
	return httpwire.WriteJSON(w, status, inq)
}

func (s *Server) listInquiries(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	pg, err := pageParams(q)
	if err != nil {
		return err
	}
	f := hitl.InquiryFilter{
		Status: hitl.Status(q.Get("status")), Execution: q.Get("execution"), Session: q.Get("session"), Origin: q.Get("origin"),
		RequestType: hitl.RequestType(q.Get("request_type")), CreatedBy: q.Get("created_by"), Page: pg,
		Text: q.Get("q"), Order: hitl.InquiryOrder(q.Get("order")),
	}
	for _, a := range q["assigned_to"] {
		if a == "me" {
			f.AssignedTo = append(f.AssignedTo, p.Entries()...)
		} else {
			f.AssignedTo = append(f.AssignedTo, a)
		}
	}
	for k, vs := range q {
		if name, ok := strings.CutPrefix(k, "metadata."); ok && name != "" {
			if f.Metadata == nil {
				f.Metadata = map[string]string{}
			}
			f.Metadata[name] = vs[0]
		}
	}
	if f.CreatedAfter, err = timeParam(q, "created_after"); err != nil {
		return err
	}
	if f.CreatedBefore, err = timeParam(q, "created_before"); err != nil {
		return err
	}
	items, next, err := s.engine.Inquiries(r.Context(), p, f)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(items, next))
}

// createAnswerLink serves POST /v1/inquiries/{id}/links: a signed link for one person to
// answer the inquiry from an email or chat message.
func (s *Server) createAnswerLink(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	var req hitl.AnswerLinkRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	link, err := s.engine.CreateAnswerLink(r.Context(), p, id, &req)
	if err != nil {
		return err
	}
	link.URL = httpwire.BaseURL(r, s.cfg.PublicURL) + "/a/" + link.Token
	return httpwire.WriteJSON(w, http.StatusCreated, link)
}

func (s *Server) getInquiry(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.PathInquiry(r, p, s.engine.Inquiry)
	if err != nil {
		return err
	}
	if err := httpwire.WriteJSON(w, http.StatusOK, inq); err != nil {
		return err
	}
	s.engine.InquiryFetched(p, inq)
	s.engine.Viewed(r.Context(), p, inq)
	return nil
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.Answer(r, p, s.engine.Respond)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.WithReason(r, p, s.engine.Cancel)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}

// claim takes the inquiry of the path for the caller ({"ttl_seconds"} optional).
func (s *Server) claim(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	var req hitl.ClaimRequest
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	inq, err := s.engine.Claim(r.Context(), p, id, req.TTLSeconds)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}

// release gives the claim on the inquiry of the path back (its holder), or breaks it (an admin).
func (s *Server) release(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	inq, err := s.engine.Release(r.Context(), p, id)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}

func (s *Server) wait(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	timeout, err := duration(r.URL.Query(), "timeout", 30*time.Second)
	if err != nil {
		return err
	}
	inq, err := s.engine.Wait(r.Context(), p, id, timeout)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}

// ---- sessions

func (s *Server) putSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.SessionRequest
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	sess, created, err := s.engine.PutSession(r.Context(), p, r.PathValue("key"), &req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return httpwire.WriteJSON(w, status, sess)
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	sess, err := s.engine.Session(r.Context(), p, r.PathValue("key"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, sess)
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	pg, err := pageParams(q)
	if err != nil {
		return err
	}
	items, next, err := s.engine.Sessions(r.Context(), p, hitl.SessionFilter{Status: hitl.SessionStatus(q.Get("status")), Page: pg})
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(items, next))
}

func (s *Server) sessionInquiries(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	items, err := s.engine.SessionInquiries(r.Context(), p, r.PathValue("key"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(items, ""))
}

func (s *Server) finishSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal, end engine.SessionEnd) error {
	sess, err := s.engine.FinishSession(r.Context(), p, r.PathValue("key"), end)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, sess)
}

func (s *Server) completeSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req struct {
		Result json.RawMessage `json:"result"`
	}
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	return s.finishSession(w, r, p, engine.SessionEnd{Status: hitl.SessionCompleted, Result: req.Result})
}

func (s *Server) failSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req struct {
		Error string `json:"error"`
	}
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	return s.finishSession(w, r, p, engine.SessionEnd{Status: hitl.SessionFailed, Error: req.Error})
}

func (s *Server) cancelSession(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := httpwire.DecodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	return s.finishSession(w, r, p, engine.SessionEnd{Status: hitl.SessionCancelled})
}

// ---- events and engagement

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	pg, err := pageParams(q)
	if err != nil {
		return err
	}
	f := hitl.EventFilter{Session: q.Get("session"), Limit: pg.Limit}
	after := q.Get("after")
	if after == "" {
		after = pg.Cursor
	}
	if after != "" {
		if f.After, err = strconv.ParseInt(after, 10, 64); err != nil || f.After < 0 {
			return hitl.Errorf(hitl.EInvalid, "after must be an event seq (a whole number ≥ 0)")
		}
	}
	for _, t := range q["type"] {
		f.Types = append(f.Types, strings.Split(t, ",")...)
	}
	if id := q.Get("inquiry_id"); id != "" {
		if f.InquiryID, err = strconv.ParseInt(id, 10, 64); err != nil || f.InquiryID <= 0 {
			return hitl.Errorf(hitl.EInvalid, "inquiry_id must be an inquiry id")
		}
	}
	evs, err := s.engine.Events(r.Context(), p, f)
	if err != nil {
		return err
	}
	next := ""
	if len(evs) == f.Limit {
		next = strconv.FormatInt(evs[len(evs)-1].Seq, 10)
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(evs, next))
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var sig engine.Signals
	if err := httpwire.Decode(r, &sig); err != nil {
		return err
	}
	d, err := s.engine.Decide(sig)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, d)
}
