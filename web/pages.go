package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/wording"
)

// inboxPage is how many inquiries one page of the inbox lists.
const inboxPage = 50

// countUpTo is as far as the inbox counts a list: "1000+" says enough, and counting a year
// of answered questions on every view of the inbox would make it as slow as the history is long.
const countUpTo = 1000

// tab is one list of the inbox.
type tab struct {
	Key, Label string
	Count      int
	URL        string
	filter     hitl.InquiryFilter
}

// Shown is the tab's count as the inbox shows it: "1000+" at countUpTo.
func (t *tab) Shown() string { return shownCount(t.Count) }

// shownCount is a count taken up to countUpTo, in words: "1000+" when it reached it.
func shownCount(n int) string {
	if n >= countUpTo {
		return strconv.Itoa(countUpTo) + "+"
	}
	return strconv.Itoa(n)
}

func tabs(p *hitl.Principal) []*tab {
	// The inbox lists each question once: not the inquiries that joined it (docs/dedup.md).
	pending := hitl.InquiryFilter{Status: hitl.StatusPending, Primaries: true}
	mine := pending
	mine.AssignedTo = append(p.Entries(), p.ActsFor...) // and what they answer for someone away
	return []*tab{
		{Key: "mine", Label: "Assigned to me", filter: mine},
		{Key: "pending", Label: "All pending", filter: pending},
		{Key: "responded", Label: "Answered", filter: hitl.InquiryFilter{Status: hitl.StatusResponded, Primaries: true}},
		{Key: "timeout", Label: "Timed out", filter: hitl.InquiryFilter{Status: hitl.StatusTimeout, Primaries: true}},
		{Key: "cancelled", Label: "Cancelled", filter: hitl.InquiryFilter{Status: hitl.StatusCancelled, Primaries: true}},
	}
}

// inbox serves GET /: one tab of inquiries, searched and sorted, with the count of every tab.
func (h *Handler) inbox(w http.ResponseWriter, r *http.Request, v *viewer) {
	q := r.URL.Query()
	seq := h.startSeq(r.Context())
	active, search, sort := q.Get("tab"), q.Get("q"), q.Get("sort")
	all := tabs(v.Principal)
	for _, t := range all {
		t.URL = inboxURL(t.Key, search, sort, "")
		t.filter.CountUpTo = countUpTo
		n, err := h.engine.CountInquiries(r.Context(), v.Principal, t.filter)
		if err != nil {
			h.fail(w, r, v, err)
			return
		}
		t.Count = n
	}
	pendingForMe := all[0].Count
	if active == "" {
		active = defaultTab(v.Principal, pendingForMe)
	}
	var current *tab
	for _, t := range all {
		if t.Key == active {
			current = t
		}
	}
	if current == nil {
		h.errorPage(w, r, v, http.StatusBadRequest, "There is no such list. Choose one of the tabs.")
		return
	}
	f := current.filter
	f.Text, f.Order, f.Page = search, hitl.InquiryOrder(sort), hitl.Page{Cursor: q.Get("cursor"), Limit: inboxPage}
	items, next, err := h.engine.Inquiries(r.Context(), v.Principal, f)
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	total := current.Count
	if search != "" {
		if total, err = h.engine.CountInquiries(r.Context(), v.Principal, f); err != nil {
			h.fail(w, r, v, err)
			return
		}
	}
	selectable := h.selectable(v.Principal, items)
	forWhom := map[int64]string{} // the inquiries the viewer answers for someone away
	for _, inq := range items {
		if name := engine.AnswersFor(v.Principal, inq); name != "" && inq.Status == hitl.StatusPending {
			forWhom[inq.ID] = name
		}
	}
	nextURL := ""
	if next != "" {
		nextURL = inboxURL(active, search, sort, next)
	}
	title := "Inbox"
	if pendingForMe > 0 {
		title = fmt.Sprintf("(%s) Inbox", shownCount(pendingForMe))
	}
	h.render(w, r, http.StatusOK, "inbox", &layout{Viewer: v, Title: title, Section: "inbox", Stream: listStream, Seq: seq},
		map[string]any{"Tabs": all, "Active": active, "Items": items, "Next": nextURL, "Q": search, "Sort": sort, "Total": total, "TotalShown": shownCount(total),
			"First": inboxURL(active, search, sort, ""), "Paged": q.Get("cursor") != "",
			"Approve": offersApproval(v.Principal, active) && len(selectable) > 0, "Selectable": selectable, "CSRF": v.CSRF,
			"ForWhom": forWhom})
}

// listStream follows what changes the lists: inquiries asked and ended, and the changes of
// pending ones that move them between people or change their line (votes, the steps of a
// chain, claims, pools, escalations).
var listStream = "type=inquiry.created,inquiry.responded,inquiry.timeout,inquiry.cancelled," +
	"inquiry.voted,inquiry.step_completed,inquiry.claimed,inquiry.released,inquiry.assigned,inquiry.escalated,inquiry.promoted"

// defaultTab is the list the inbox opens on: what waits for a responder who has inquiries
// assigned to them, else everything pending (an admin oversees it all).
func defaultTab(p *hitl.Principal, pendingForMe int) string {
	if pendingForMe > 0 && !p.IsAdmin() {
		return "mine"
	}
	return "pending"
}

// inboxURL is the address of one page of the inbox; empty parameters are left out.
func inboxURL(tab, search, sort, cursor string) string {
	v := url.Values{"tab": {tab}}
	for k, val := range map[string]string{"q": search, "sort": sort, "cursor": cursor} {
		if val != "" {
			v.Set(k, val)
		}
	}
	return "/?" + v.Encode()
}

// inquiryData is what the inquiry page shows.
type inquiryData struct {
	Inquiry *hitl.Inquiry
	Form    *answerForm // when the viewer may answer now
	// Decline is where the viewer declines, when the agent let those who answer do so.
	Decline *formTarget
	ForWhom string // the away person the viewer's answer is for, "" for the viewer themself
	Why     string // why the viewer may not answer a pending inquiry
	Notice  string // what happened to the viewer's answer, when it did not count
	Context *node
	Tool    *node
	Link    *hitl.Principal // on an answer-link page: who answers
	Done    bool            // on an answer-link page: the answer was just recorded
	// Notified says whom the inquiry's notifications reached, by which channel, how far.
	Notified []notified
	// Votes of a quorum or a chain; Claim of a question one person answers (approvals.go).
	Votes *votesView
	Claim *claimView
	Audit auditView // whether the audit log is intact (web/audit.go)
	// Askers is how many agents wait for this answer: more than 1 when others joined it.
	Askers int
	// Precedents: how the same question was answered before (web/precedents.go).
	Precedents []hitl.Precedent
	// Suggestion: the standing approval offered after identical approvals (web/suggestions.go).
	Suggestion *suggestionView
}

// notified is one recipient reached by one channel, in words: "alice", "by email", "delivered".
type notified struct {
	Who, How, Status string
}

// notified lists an inquiry's recipients and channels, each with its newest notification's
// status. Best effort: a page without the list is better than no page.
func (h *Handler) notified(ctx context.Context, p *hitl.Principal, id int64) []notified {
	ds, err := h.engine.Notifications(ctx, p, id)
	if err != nil {
		return nil
	}
	var out []notified
	index := map[[2]string]int{}
	for _, d := range ds {
		n := notified{Who: d.Recipient, How: "by " + d.Channel, Status: string(d.Status)}
		switch d.Channel {
		case hitl.ChannelSlack:
			n.How = "on Slack"
		case hitl.ChannelChatWebhook:
			n.Who, n.How = "the chat room of webhook "+d.Recipient, "" // several rooms: each by its own webhook's ID
		}
		if d.Recipient == hitl.RecipientDefault {
			n.Who = "the default destination"
		}
		key := [2]string{d.Recipient, d.Channel}
		if i, ok := index[key]; ok {
			out[i].Status = n.Status // oldest first: the newest message says how far it got
			continue
		}
		index[key] = len(out)
		out = append(out, n)
	}
	return out
}

func (h *Handler) newInquiryData(p *hitl.Principal, inq *hitl.Inquiry, form *answerForm) *inquiryData {
	d := &inquiryData{Inquiry: inq, Context: tree(inq.Context)}
	if inq.ToolCall != nil {
		d.Tool = tree(inq.ToolCall.Arguments)
	}
	if inq.Status == hitl.StatusPending {
		if err := h.engine.MayAnswer(p, inq); err != nil {
			d.Why = err.Error()
		} else {
			d.Form, d.ForWhom = form, engine.AnswersFor(p, inq)
		}
		// Only a signed-in person declines: an answer-link page answers for one inquiry only.
		if form != nil && form.Action == fmt.Sprintf("/inquiries/%d", inq.ID) && h.engine.MayDecline(p, inq) == nil {
			d.Decline = &formTarget{Action: form.Action + "/decline", CSRF: form.CSRF}
		}
	}
	return d
}

// loadInquiry reads the inquiry of the page's path as the viewer may see it, or shows why not.
func (h *Handler) loadInquiry(w http.ResponseWriter, r *http.Request, v *viewer) (*hitl.Inquiry, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.errorPage(w, r, v, http.StatusNotFound, "There is no such inquiry.")
		return nil, false
	}
	inq, err := h.engine.Inquiry(r.Context(), v.Principal, id)
	if err != nil {
		h.fail(w, r, v, err)
		return nil, false
	}
	return inq, true
}

// signedInTarget is where a signed-in person's answer to inq posts.
func signedInTarget(inq *hitl.Inquiry, v *viewer) formTarget {
	return formTarget{Action: fmt.Sprintf("/inquiries/%d", inq.ID), CSRF: v.CSRF}
}

// inquiry serves GET /inquiries/{id}.
func (h *Handler) inquiry(w http.ResponseWriter, r *http.Request, v *viewer) {
	seq := h.startSeq(r.Context())
	inq, ok := h.loadInquiry(w, r, v)
	if !ok {
		return
	}
	// A chat message's option link (?answer=VALUE) shows that option chosen, to be confirmed:
	// the link is seen by a whole room, so opening it answers nothing.
	to, entered := signedInTarget(inq, v), preselected(r.URL.Query().Get("answer"))
	to.Confirm = entered != nil
	h.engine.Viewed(r.Context(), v.Principal, inq)
	h.showInquiry(w, r, http.StatusOK, v, seq, h.newInquiryData(v.Principal, inq, newAnswerForm(inq, to, entered, nil)))
}

func (h *Handler) showInquiry(w http.ResponseWriter, r *http.Request, status int, v *viewer, seq string, d *inquiryData) {
	d.Notified = h.notified(r.Context(), v.Principal, d.Inquiry.ID)
	h.addApprovals(r.Context(), v.Principal, d, v.CSRF)
	h.addPrecedents(r.Context(), v.Principal, d)
	h.addSuggestion(r.Context(), v.Principal, d)
	d.Audit = h.auditLine(r.Context(), d.Inquiry.ID)
	d.Askers, _ = h.engine.Askers(r.Context(), d.Inquiry) // a line of the page; it shows without it
	l := &layout{Viewer: v, Title: short(d.Inquiry.Prompt, 60), Stream: fmt.Sprintf("inquiry_id=%d", d.Inquiry.ID), Seq: seq}
	h.render(w, r, status, "inquiry", l, d)
}

// answer serves POST /inquiries/{id}: the answer form.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, v *viewer) {
	inq, ok := h.loadInquiry(w, r, v)
	if !ok {
		return
	}
	to := signedInTarget(inq, v)
	status, d := h.submit(r, v.Principal, inq, to)
	if d == nil {
		http.Redirect(w, r, to.Action, http.StatusSeeOther)
		return
	}
	h.showInquiry(w, r, status, v, h.startSeq(r.Context()), d)
}

// decline serves POST /inquiries/{id}/decline: the person declines to answer (Decline).
func (h *Handler) decline(w http.ResponseWriter, r *http.Request, v *viewer) {
	inq, ok := h.loadInquiry(w, r, v)
	if !ok {
		return
	}
	to := signedInTarget(inq, v)
	_, err := h.engine.Decline(r.Context(), v.Principal, inq.ID, strings.TrimSpace(r.PostForm.Get("reason")))
	var he *hitl.Error
	switch {
	case err == nil:
		http.Redirect(w, r, to.Action, http.StatusSeeOther)
	case errors.As(err, &he) && he.Code == hitl.EConflict && he.Inquiry != nil:
		d := h.newInquiryData(v.Principal, he.Inquiry, nil)
		d.Notice = "You did not decline: the inquiry was already " + string(he.Inquiry.Status) + "."
		h.showInquiry(w, r, http.StatusConflict, v, h.startSeq(r.Context()), d)
	case errors.As(err, &he) && (he.Code == hitl.EForbidden || he.Code == hitl.EInvalid):
		d := h.newInquiryData(v.Principal, inq, newAnswerForm(inq, to, nil, nil))
		d.Notice = "You did not decline: " + he.Message
		h.showInquiry(w, r, http.StatusUnprocessableEntity, v, h.startSeq(r.Context()), d)
	default:
		h.fail(w, r, v, err)
	}
}

// submit records the posted answer to inq as p. It returns nil when the answer counts (the
// caller redirects); else the status and the page to show: the form again with what was
// entered and every problem beside its field, or the inquiry as it ended when another answer
// (or the deadline) came first.
func (h *Handler) submit(r *http.Request, p *hitl.Principal, inq *hitl.Inquiry, to formTarget) (int, *inquiryData) {
	again := func(status int, errs []hitl.FieldError) (int, *inquiryData) {
		return status, h.newInquiryData(p, inq, newAnswerForm(inq, to, r.PostForm, errs))
	}
	if formKind(inq) == formDecision && r.PostForm.Get("preview") != "" {
		return http.StatusOK, h.newInquiryData(p, inq, newAnswerForm(inq, to, r.PostForm, nil)) // the changes, shown before sending
	}
	req, errs := readAnswer(inq, r.PostForm)
	readAllow(req, r.PostForm)
	if errs != nil {
		if req != nil && req.Response != nil {
			// Checking is best effort: the problems already found are shown whatever happens.
			if checked, err := h.engine.CheckAnswer(r.Context(), inq, req.Response); err == nil {
				errs = withSchemaProblems(errs, checked)
			}
		}
		return again(http.StatusUnprocessableEntity, errs)
	}
	_, err := h.engine.Respond(r.Context(), p, inq.ID, req)
	if err == nil {
		return 0, nil
	}
	if errs, ok := fieldErrors(err); ok {
		return again(http.StatusUnprocessableEntity, errs)
	}
	var he *hitl.Error
	if errors.As(err, &he) && he.Code == hitl.EConflict && he.Inquiry != nil {
		return http.StatusConflict, h.conflicted(p, he, to, r.PostForm)
	}
	if errors.As(err, &he) && he.Code == hitl.EForbidden {
		d := h.newInquiryData(p, inq, nil)
		d.Why = he.Message
		return http.StatusForbidden, d
	}
	h.log.Warn("answer failed", "inquiry_id", inq.ID, "err", err)
	return again(http.StatusServiceUnavailable, []hitl.FieldError{{Path: "", Message: "your answer could not be saved; nothing was recorded. Try again."}})
}

// lateNotice tells the person why their answer did not count.
func lateNotice(inq *hitl.Inquiry) string {
	switch inq.Status {
	case hitl.StatusResponded:
		by := "someone else"
		if inq.RespondedBy != nil {
			by = wording.AnsweredBy(inq)
		}
		return "Your answer was not recorded: " + by + " answered first. Their answer is below."
	case hitl.StatusTimeout:
		return "Your answer was not recorded: the deadline passed first."
	case hitl.StatusCancelled:
		return "Your answer was not recorded: the inquiry was cancelled."
	}
	return "Your answer was not recorded."
}

// entry is one line of a session's timeline.
type entry struct {
	Event   *hitl.Event
	Inquiry *hitl.Inquiry // for inquiry events: the inquiry after the change
	Session *hitl.Session // for session events
	Logged  *logged       // for session.logged
}

// logged is an entry an agent logged in its session, as the timeline tells it: its type and
// the message of a comment, or else what it logged as JSON.
type logged struct {
	EventType, Text string
}

// loggedOf is the timeline's line of a session.logged event; nil for another event.
func loggedOf(ev *hitl.Event) *logged {
	entry := hitl.LoggedEntry(ev)
	if entry == nil {
		return nil
	}
	var comment struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(entry.Payload, &comment) == nil && comment.Message != nil {
		return &logged{EventType: entry.EventType, Text: *comment.Message}
	}
	return &logged{EventType: entry.EventType, Text: string(entry.Payload)}
}

const timelinePage = 500

// session serves GET /sessions/{key}: the agent run's questions and answers in order.
func (h *Handler) session(w http.ResponseWriter, r *http.Request, v *viewer) {
	key := r.PathValue("key")
	seq := h.startSeq(r.Context())
	s, err := h.engine.Session(r.Context(), v.Principal, key)
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	evs, err := h.engine.Events(r.Context(), v.Principal, hitl.EventFilter{Session: key, After: max(after, 0), Limit: timelinePage + 1})
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	next := ""
	if len(evs) > timelinePage {
		evs = evs[:timelinePage]
		next = fmt.Sprintf("/sessions/%s?after=%d", url.PathEscape(key), evs[len(evs)-1].Seq)
	}
	entries := make([]entry, 0, len(evs))
	for _, ev := range evs {
		e := entry{Event: ev}
		if ev.InquiryID != nil {
			e.Inquiry = &hitl.Inquiry{}
			if json.Unmarshal(ev.Data, e.Inquiry) != nil {
				e.Inquiry = nil
			}
		} else {
			e.Session = &hitl.Session{}
			if json.Unmarshal(ev.Data, e.Session) != nil {
				e.Session = nil
			}
			e.Logged = loggedOf(ev)
		}
		entries = append(entries, e)
	}
	l := &layout{Viewer: v, Title: "Session " + key, Stream: "session=" + url.QueryEscape(key), Seq: seq}
	h.render(w, r, http.StatusOK, "session", l, map[string]any{"Session": s, "Entries": entries, "Next": next,
		"State": tree(s.State), "Result": tree(s.Result), "Metadata": slices.Sorted(maps.Keys(s.Metadata))})
}
