package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/wording"
)

// What an inquiry page shows of approvals by several people: the votes of a quorum, the steps
// of a chain and where it stands, the viewer's own vote in place of a form they can no longer
// use, and the claim of a question one person answers, with its Claim / Release buttons.

// claimFuncs are the template functions of claims, beside the rest of claims rather than in
// render.go's map: the list pages say who holds a claim ("claimed by alice until 10:32") on
// the engine's clock, which decides when it ends.
func claimFuncs(e *engine.Engine) template.FuncMap {
	return template.FuncMap{"claimed": func(inq *hitl.Inquiry) *hitl.InquiryClaim {
		if !inq.Claim.Claimed(e.Now()) {
			return nil
		}
		return inq.Claim
	}}
}

// votesView is a quorum's or a chain's votes as the page shows them.
type votesView struct {
	// Progress: "1 of 2 approvals"; RejectRule, a quorum's, in words.
	Progress   string
	RejectRule string
	Votes      []hitl.Vote // a quorum's
	Steps      []stepView  // a chain's, in order
	// Mine is the viewer's vote in the current vote, which they cannot change.
	Mine *hitl.Vote
	// Outcome is how the votes decided, once they did: "approved" or "rejected".
	Outcome string
}

// stepView is one step of a chain: who approves it, how many, where it stands.
type stepView struct {
	N int
	hitl.ApprovalStep
	// State is done, current, rejected, ended (the chain ended here without an approval) or
	// waiting; Approvals counts the step's approvals so far.
	State     string
	Approvals int
	Votes     []hitl.Vote
}

func newVotesView(inq *hitl.Inquiry, viewer string) *votesView {
	if !inq.IsVote() {
		return nil
	}
	v := &votesView{Progress: wording.Progress(inq)}
	if inq.Quorum != nil {
		v.RejectRule = wording.RejectRule(inq.Quorum.Reject)
		v.Votes = inq.Votes
	}
	if inq.Status == hitl.StatusPending {
		v.Mine = inq.VoteOf(viewer)
	}
	var o hitl.VoteOutcome
	if inq.Status == hitl.StatusResponded && json.Unmarshal(inq.Response, &o) == nil {
		v.Outcome = "rejected"
		if o.Approved {
			v.Outcome = "approved"
		}
	}
	for i, s := range inq.Steps {
		n := i + 1
		sv := stepView{N: n, ApprovalStep: s, Votes: inq.VotesIn(n), State: "waiting"}
		for _, vote := range sv.Votes {
			if vote.Approved {
				sv.Approvals++
			}
		}
		switch {
		case s.CompletedAt != nil:
			sv.State = "done"
		case n != inq.CurrentStep:
		case inq.Status == hitl.StatusPending:
			sv.State = "current"
		case v.Outcome == "rejected":
			sv.State = "rejected"
		default:
			sv.State = "ended" // timed out or cancelled in this step
		}
		v.Steps = append(v.Steps, sv)
	}
	return v
}

// claimView is the claim of a pending inquiry that one person answers: who holds it and
// until when, and the buttons the viewer may use.
type claimView struct {
	Held *hitl.InquiryClaim // the claim, while someone holds it
	// Claim, Release and Break post to the claim's routes; nil for buttons the viewer may not use.
	Claim, Release, Break *formTarget
}

// addApprovals completes an inquiry page with what several people decide and claims, and
// takes the answer form away from a viewer whose answer could not count: one that separation
// of duties excludes (they read why instead) or one who already voted. csrf is the signed-in
// viewer's form token, "" on an answer-link page (which offers no claims).
func (h *Handler) addApprovals(ctx context.Context, p *hitl.Principal, d *inquiryData, csrf string) {
	inq := d.Inquiry
	d.Votes = newVotesView(inq, p.Name)
	if inq.Status != hitl.StatusPending {
		return
	}
	if d.Form != nil {
		err := h.engine.Separated(ctx, inq, p.Name, p.Via)
		var he *hitl.Error
		switch {
		case errors.As(err, &he) && he.Code == hitl.EForbidden:
			d.Form, d.Decline, d.Why = nil, nil, he.Message
		case d.Votes != nil && d.Votes.Mine != nil:
			d.Form = nil // the page says how they voted
		}
	}
	if inq.IsVote() {
		return
	}
	may, err := h.engine.ClaimChoices(ctx, p, inq)
	if err != nil {
		h.log.Warn("reading what the viewer may do with a claim", "inquiry_id", inq.ID, "err", err)
	}
	c := &claimView{}
	if inq.Claim.Claimed(may.At) {
		c.Held = inq.Claim
	}
	if csrf != "" {
		to := func(action string) *formTarget {
			return &formTarget{Action: fmt.Sprintf("/inquiries/%d/%s", inq.ID, action), CSRF: csrf}
		}
		switch {
		case may.Release:
			c.Release = to("release")
		case may.Break:
			c.Break = to("release")
		case may.Claim:
			c.Claim = to("claim")
		}
	}
	if c.Held != nil || c.Claim != nil || c.Release != nil || c.Break != nil {
		d.Claim = c
	}
}

// conflicted is the page for an answer that a conflict refused: the inquiry as it ended when
// another answer (or the deadline) came first; or, still pending, the form again with what
// was entered and the reason in words: someone else holds a claim on it, or the person's vote
// is in already and cannot change.
func (h *Handler) conflicted(p *hitl.Principal, he *hitl.Error, to formTarget, entered url.Values) *inquiryData {
	inq := he.Inquiry
	if inq.Status != hitl.StatusPending {
		d := h.newInquiryData(p, inq, nil)
		d.Notice = lateNotice(inq)
		return d
	}
	d := h.newInquiryData(p, inq, newAnswerForm(inq, to, entered, nil))
	d.Notice = "Your answer was not recorded: " + he.Message + "."
	return d
}

// claim serves POST /inquiries/{id}/claim: the viewer takes the inquiry to answer it.
func (h *Handler) claim(w http.ResponseWriter, r *http.Request, v *viewer) {
	h.changeClaim(w, r, v, "You did not claim it: ", func(ctx context.Context, id int64) error {
		_, err := h.engine.Claim(ctx, v.Principal, id, nil)
		return err
	})
}

// release serves POST /inquiries/{id}/release: the holder gives the claim back, or an admin
// breaks it.
func (h *Handler) release(w http.ResponseWriter, r *http.Request, v *viewer) {
	h.changeClaim(w, r, v, "The claim was not released: ", func(ctx context.Context, id int64) error {
		_, err := h.engine.Release(ctx, v.Principal, id)
		return err
	})
}

// changeClaim runs a change of the claim and goes back to the inquiry; a change refused is
// said in words on the inquiry's page as it now stands.
func (h *Handler) changeClaim(w http.ResponseWriter, r *http.Request, v *viewer, refused string, change func(context.Context, int64) error) {
	inq, ok := h.loadInquiry(w, r, v)
	if !ok {
		return
	}
	to := signedInTarget(inq, v)
	err := change(r.Context(), inq.ID)
	var he *hitl.Error
	switch {
	case err == nil:
		http.Redirect(w, r, to.Action, http.StatusSeeOther)
		return
	case !errors.As(err, &he) || he.Code == hitl.EInternal || he.Code == hitl.EUnavailable || he.Code == hitl.ENotFound:
		h.fail(w, r, v, err)
		return
	}
	seq := h.startSeq(r.Context())
	if now, err := h.engine.Inquiry(r.Context(), v.Principal, inq.ID); err == nil {
		inq = now
	}
	d := h.newInquiryData(v.Principal, inq, newAnswerForm(inq, to, nil, nil))
	d.Notice = refused + he.Message + "."
	h.showInquiry(w, r, httpwire.Status(he.Code), v, seq, d)
}
