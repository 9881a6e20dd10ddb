package web

import (
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
)

// Answer links (GET /a/{token}) are for people who got the question by email or chat. The GET
// only shows the inquiry and a form; only the form's POST answers, so a mail scanner or a
// chat preview that fetches the link answers nothing. ?option=VALUE (a one-click link for
// one option) ticks that option; the person still confirms.

// openLink checks the link's token (before a posted form is read) and loads its inquiry;
// an address that has used too many bad links is told to wait.
func (h *Handler) openLink(w http.ResponseWriter, r *http.Request) (*hitl.Principal, *hitl.Inquiry, bool) {
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
	if wait := h.limited(w, r); wait > 0 {
		h.errorPage(w, r, nil, http.StatusTooManyRequests, tooManyFailures(wait))
		return nil, nil, false
	}
	who, inq, err := h.engine.OpenAnswerLink(r.Context(), r.PathValue("token"))
	if err != nil {
		switch hitl.ErrorCode(err) {
		case hitl.EUnauthorized:
			h.cfg.AuthLimiter.Fail(r.RemoteAddr)
		case hitl.ENotFound:
			err = hitl.Errorf(hitl.ENotFound, "The inquiry of this link no longer exists.")
		}
		closeUnread(w, r)
		h.fail(w, r, nil, err)
		return nil, nil, false
	}
	return who, inq, true
}

// linkTarget is where an answer link's form posts: back to the link, bound to its token.
func linkTarget(r *http.Request) formTarget {
	token := r.PathValue("token")
	return formTarget{Action: "/a/" + url.PathEscape(token), CSRF: csrfToken(token), Confirm: true}
}

// linkPage serves GET /a/{token}.
func (h *Handler) linkPage(w http.ResponseWriter, r *http.Request) {
	who, inq, ok := h.openLink(w, r)
	if !ok {
		return
	}
	d := h.newInquiryData(who, inq, newAnswerForm(inq, linkTarget(r), preselected(r.URL.Query().Get("option")), nil))
	d.Link, d.Done = who, r.URL.Query().Has("done")
	h.addApprovals(r.Context(), who, d, "")
	h.render(w, r, http.StatusOK, "link", &layout{Title: short(inq.Prompt, 60)}, d)
}

// preselected is what a link that names an option enters in the form, to be confirmed.
func preselected(opt string) url.Values {
	if opt == "" {
		return nil
	}
	return url.Values{"answer": {opt}, "approved": {approvalChoice(opt)}}
}

// approvalChoice reads a one-click approval link's option.
func approvalChoice(opt string) string {
	switch opt {
	case "approve", "true":
		return "true"
	case "reject", "false":
		return "false"
	}
	return ""
}

// linkAnswer serves POST /a/{token}: the confirmed answer.
func (h *Handler) linkAnswer(w http.ResponseWriter, r *http.Request) {
	who, inq, ok := h.openLink(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		h.errorPage(w, r, nil, formStatus(err), formProblem(err))
		return
	}
	to := linkTarget(r)
	if !validCSRF(r.PostForm.Get("csrf"), to.CSRF) {
		h.errorPage(w, r, nil, http.StatusForbidden, "This form did not come from this page. Open the link again and confirm there.")
		return
	}
	status, d := h.submit(r, who, inq, to)
	if d == nil {
		http.Redirect(w, r, to.Action+"?done", http.StatusSeeOther)
		return
	}
	d.Link = who
	h.addApprovals(r.Context(), who, d, "")
	h.render(w, r, status, "link", &layout{Title: short(inq.Prompt, 60)}, d)
}
