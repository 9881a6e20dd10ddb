package web

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/hitl-dev/hitl"
)

// The rules page (/rules): the standing approvals (docs/rules.md) a person may see, which the
// engine decides (Rules: every rule to admins, their own to the others), with a button that
// revokes each one still in force. The page only shows and forwards: the engine revokes.

// rulesData is what the rules page shows.
type rulesData struct {
	Rules  []*hitl.Rule
	Newest bool // newest first (the default); else oldest first
	// Notice says what the last revoke did.
	Notice string
	CSRF   string
}

// rules serves GET /rules; ?order=oldest lists the oldest first.
func (h *Handler) rules(w http.ResponseWriter, r *http.Request, v *viewer) {
	list, err := h.engine.Rules(r.Context(), v.Principal)
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	q := r.URL.Query()
	d := &rulesData{Rules: list, Newest: q.Get("order") != "oldest", CSRF: v.CSRF}
	if d.Newest {
		slices.Reverse(d.Rules) // the engine lists them oldest first
	}
	if id := q.Get("revoked"); id != "" {
		d.Notice = "Rule " + id + " is revoked: it approves nothing from now on."
	}
	h.render(w, r, http.StatusOK, "rules", &layout{Viewer: v, Title: "Rules", Section: "rules"}, d)
}

// revokeRule serves POST /rules/{id}/revoke, then goes back to the page, which says so.
func (h *Handler) revokeRule(w http.ResponseWriter, r *http.Request, v *viewer) {
	id := r.PathValue("id")
	if _, err := h.engine.RevokeRule(r.Context(), v.Principal, id); err != nil {
		h.fail(w, r, v, err)
		return
	}
	to := "/rules?revoked=" + url.QueryEscape(id)
	if r.PostForm.Get("order") == "oldest" {
		to += "&order=oldest"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
