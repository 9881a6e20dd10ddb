package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// The away page (/away): a person sets and ends their absence, with the delegate who answers in
// their place; an admin does so for anyone (?person=NAME). The rules are the engine's
// (SetAbsence); the page maps a form onto them and says what they refused.

// awayTimeLayout is what an <input type="datetime-local"> sends: a wall time, read as UTC
// (the page says so).
const awayTimeLayout = "2006-01-02T15:04"

// awayData is what the away page shows.
type awayData struct {
	Person  string
	Absence *hitl.Absence
	// ActsFor are the away people the viewer stands in for now.
	ActsFor  []string
	MayOther bool // an admin: the page may be for another person
	From     string
	Until    string
	Delegate string
	Problem  string
	CSRF     string
}

// awayPerson is whose absence the page is about: the viewer's own, or, for an admin, the
// person named.
func awayPerson(v *viewer, named string) string {
	if named = strings.TrimSpace(named); named != "" && v.Principal.IsAdmin() {
		return named
	}
	return v.Principal.Name
}

// away serves GET /away.
func (h *Handler) away(w http.ResponseWriter, r *http.Request, v *viewer) {
	d := &awayData{Person: awayPerson(v, r.URL.Query().Get("person"))}
	h.renderAway(w, r, v, http.StatusOK, d)
}

func (h *Handler) renderAway(w http.ResponseWriter, r *http.Request, v *viewer, status int, d *awayData) {
	a, err := h.engine.Absence(r.Context(), v.Principal, d.Person)
	switch hitl.ErrorCode(err) {
	case "":
		d.Absence = a
	case hitl.ENotFound:
	default:
		h.fail(w, r, v, err)
		return
	}
	d.ActsFor, d.MayOther, d.CSRF = v.Principal.ActsFor, v.Principal.IsAdmin(), v.CSRF
	h.render(w, r, status, "away", &layout{Viewer: v, Title: "Away", Section: "away"}, d)
}

// setAway serves POST /away: the form's period and delegate become the person's absence.
func (h *Handler) setAway(w http.ResponseWriter, r *http.Request, v *viewer) {
	f := r.PostForm
	d := &awayData{Person: awayPerson(v, f.Get("person")), From: f.Get("from"), Until: f.Get("until"), Delegate: strings.TrimSpace(f.Get("delegate"))}
	req := &hitl.AbsenceRequest{Delegate: d.Delegate}
	var bad []string
	for _, field := range []struct {
		label, value string
		into         *time.Time
	}{{"From", d.From, &req.From}, {"Until", d.Until, &req.Until}} {
		t, err := time.ParseInLocation(awayTimeLayout, field.value, time.UTC)
		if err != nil {
			bad = append(bad, field.label+" is not a date and time, like 2026-12-22T09:00.")
		}
		*field.into = t
	}
	if len(bad) > 0 {
		d.Problem = strings.Join(bad, " ")
		h.renderAway(w, r, v, http.StatusBadRequest, d)
		return
	}
	if _, err := h.engine.SetAbsence(r.Context(), v.Principal, d.Person, req); err != nil {
		h.awayRefused(w, r, v, d, err)
		return
	}
	http.Redirect(w, r, awayURL(v, d.Person), http.StatusSeeOther)
}

// endAway serves POST /away/end: the person is back.
func (h *Handler) endAway(w http.ResponseWriter, r *http.Request, v *viewer) {
	d := &awayData{Person: awayPerson(v, r.PostForm.Get("person"))}
	if err := h.engine.EndAbsence(r.Context(), v.Principal, d.Person); err != nil {
		h.awayRefused(w, r, v, d, err)
		return
	}
	http.Redirect(w, r, awayURL(v, d.Person), http.StatusSeeOther)
}

// awayRefused shows the page again with what the engine refused, in its words.
func (h *Handler) awayRefused(w http.ResponseWriter, r *http.Request, v *viewer, d *awayData, err error) {
	code := hitl.ErrorCode(err)
	if code == hitl.EInternal || code == hitl.EUnavailable {
		h.fail(w, r, v, err)
		return
	}
	d.Problem = hitl.ErrorMessage(err)
	h.renderAway(w, r, v, httpwire.Status(code), d)
}

func awayURL(v *viewer, person string) string {
	if person == v.Principal.Name {
		return "/away"
	}
	return "/away?person=" + url.QueryEscape(person)
}
