package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
	slackapi "github.com/slack-go/slack"
)

// Engine is what the Slack handlers need of hitl: who a Slack user is, and the same Inquiry,
// Inquiries, CountInquiries and Respond the REST API and the inbox call, so that a click is
// refused or accepted exactly as any other answer would be. *engine.Engine has them all.
type Engine interface {
	// PrincipalBySlackUser is the person whose slack_user_id this is, as a principal with
	// their roles and groups; an error with code hitl.ENotFound when nobody is.
	PrincipalBySlackUser(ctx context.Context, slackUserID string) (*hitl.Principal, error)
	Inquiry(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Inquiry, error)
	Inquiries(ctx context.Context, p *hitl.Principal, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error)
	CountInquiries(ctx context.Context, p *hitl.Principal, f hitl.InquiryFilter) (int, error)
	Respond(ctx context.Context, p *hitl.Principal, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error)
	// TimeZone is the zone the person set ("": UTC), for a direct message redrawn after a click.
	TimeZone(ctx context.Context, p *hitl.Principal) (string, error)
}

// maxRequestBody bounds what Slack posts: a modal's state with every field at its 3,000
// characters fits many times over.
const maxRequestBody = 1 << 20

// notMapped is the refusal for a Slack user who is no hitl person, or a person without a key:
// a person is the principal of their keys' name.
const notMapped = "You are not mapped to a hitl person with a key, so hitl cannot answer for you. Ask a hitl admin to add your Slack id to a person who has one (hitl people set NAME --slack %s)."

// verified passes on only requests that Slack signed with the signing secret (the v0
// signature: HMAC-SHA256 of "v0:timestamp:body", a timestamp within five minutes, compared in
// constant time), with the body read and bounded. Anyone can post to a public URL: an
// unsigned click would answer for whoever it names.
func verified(signingSecret string, next func(w http.ResponseWriter, r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "only POST: this is where Slack sends clicks and commands", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge): // this limit, or a smaller one of the server's
			http.Error(w, fmt.Sprintf("the request body is larger than %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "the request body could not be read: "+err.Error(), http.StatusBadRequest)
			return
		}
		sv, err := slackapi.NewSecretsVerifier(r.Header, signingSecret)
		if err == nil {
			sv.Write(body)
			err = sv.Ensure()
		}
		if err != nil {
			http.Error(w, signatureWords(err), http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next(w, r, body)
	})
}

func signatureWords(err error) string {
	switch {
	case errors.Is(err, slackapi.ErrMissingHeaders):
		return "the request is not signed: X-Slack-Signature and X-Slack-Request-Timestamp are required"
	case errors.Is(err, slackapi.ErrExpiredTimestamp):
		return "the request's timestamp is more than five minutes from now: an old request is not accepted again"
	}
	return "the request's signature does not match the Slack app's signing secret"
}

// handler holds what the interaction and command handlers share.
type handler struct {
	engine Engine
	client *Client
}

// NewInteractionsHandler serves POST /slack/interactions, the app's interactivity request URL:
// button clicks (block_actions) and form submissions (view_submission), each acting as the
// hitl person whose slack_user_id clicked. A click's refusal (chat.postEphemeral) or the
// answered message's update (chat.update) is made before the handler acknowledges: one Web
// API call after Respond fits in the three seconds Slack waits, and the caller of the handler
// (and the tests) see the whole effect once it returns. The dispatcher updates the inquiry's
// other messages.
func NewInteractionsHandler(signingSecret string, engine Engine, client *Client) http.Handler {
	h := &handler{engine: engine, client: client}
	return verified(signingSecret, h.interaction)
}

// NewCommandsHandler serves POST /slack/commands, the /hitl slash command: it lists the
// caller's pending inquiries with their buttons, to them only.
func NewCommandsHandler(signingSecret string, engine Engine, client *Client) http.Handler {
	h := &handler{engine: engine, client: client}
	return verified(signingSecret, h.command)
}

func (h *handler) interaction(w http.ResponseWriter, r *http.Request, _ []byte) {
	payload := ""
	if err := r.ParseForm(); err == nil {
		payload = r.PostForm.Get("payload")
	}
	if payload == "" {
		http.Error(w, "the body has no payload: Slack posts payload=JSON, form-encoded", http.StatusBadRequest)
		return
	}
	var ic slackapi.InteractionCallback
	if err := json.Unmarshal([]byte(payload), &ic); err != nil {
		http.Error(w, "the payload is not the JSON of a Slack interaction: "+err.Error(), http.StatusBadRequest)
		return
	}
	switch ic.Type {
	case slackapi.InteractionTypeBlockActions:
		h.blockActions(r.Context(), &ic)
		w.WriteHeader(http.StatusOK)
	case slackapi.InteractionTypeViewSubmission:
		h.viewSubmission(w, r.Context(), &ic)
	default:
		w.WriteHeader(http.StatusOK) // nothing hitl asked for: acknowledged, ignored
	}
}

// clicked is one button click: the inquiry and the answer it carries.
type clicked struct {
	id     int64
	action string
	option string // the option's value, for actionOption
}

func parseClick(a *slackapi.BlockAction) (clicked, bool) {
	idText, option, _ := strings.Cut(a.Value, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return clicked{}, false
	}
	c := clicked{id: id, action: a.ActionID, option: option}
	switch {
	case a.ActionID == actionApprove, a.ActionID == actionReject, a.ActionID == actionForm:
	case strings.HasPrefix(a.ActionID, actionOption) && option != "":
		c.action = actionOption
	default:
		return clicked{}, false
	}
	return c, true
}

// where is the conversation and message a click came from: refusals go there, and the
// message is updated once answered (an ephemeral one cannot be: it is answered with a note).
func where(ic *slackapi.InteractionCallback) (channel string, msg Ref, ephemeral bool) {
	channel = ic.Channel.ID
	if channel == "" {
		channel = ic.Container.ChannelID
	}
	return channel, Ref{Channel: channel, TS: ic.Container.MessageTs}, ic.Container.IsEphemeral
}

func (h *handler) blockActions(ctx context.Context, ic *slackapi.InteractionCallback) {
	if len(ic.ActionCallback.BlockActions) == 0 {
		return
	}
	c, ok := parseClick(ic.ActionCallback.BlockActions[0])
	if !ok {
		return // the link to the inbox, or a button hitl did not make
	}
	user := ic.User.ID
	channel, msg, ephemeral := where(ic)
	p, refused := h.person(ctx, user)
	if p == nil {
		h.client.tell(ctx, channel, user, refused)
		return
	}
	if c.action == actionForm {
		h.openForm(ctx, ic, p, c.id, msg, ephemeral)
		return
	}
	answer := hitl.ApprovalResponse(true, "")
	switch c.action {
	case actionReject:
		answer = hitl.ApprovalResponse(false, "")
	case actionOption:
		option, _ := json.Marshal(c.option)
		answer = &hitl.ResponseRequest{Response: option}
	}
	inq, err := h.engine.Respond(ctx, p, c.id, answer)
	if err != nil {
		h.client.tell(ctx, channel, user, refusal(p, c.id, err))
		return
	}
	h.answered(ctx, inq, p, channel, user, msg, ephemeral)
}

// person is the hitl person behind a Slack user, or the refusal to show them ("" with a person).
func (h *handler) person(ctx context.Context, slackUser string) (*hitl.Principal, string) {
	p, err := h.engine.PrincipalBySlackUser(ctx, slackUser)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return nil, fmt.Sprintf(notMapped, slackUser)
	case err != nil:
		h.client.log.Error("slack: looking up a Slack user failed", "slack_user", slackUser, "err", err)
		return nil, "hitl could not look you up just now; nothing was answered. Try again in a moment."
	}
	return p, ""
}

// refusal says in words why an answer was not recorded. The engine answers not found for an
// inquiry the person may not see; in a conversation where the message is in plain view, that
// reads as hitl losing it, so it is said as what it means.
func refusal(p *hitl.Principal, id int64, err error) string {
	var he *hitl.Error
	switch {
	case errors.As(err, &he) && he.Code == hitl.EConflict && he.Inquiry != nil && he.Inquiry.Status == hitl.StatusPending:
		return "Nothing was recorded: " + strings.TrimSuffix(he.Message, ".") + "." // a vote cast already, or someone else's claim
	case errors.As(err, &he) && he.Code == hitl.EConflict && he.Inquiry != nil:
		return "Nothing was recorded: " + finalWords(he.Inquiry) + "."
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return fmt.Sprintf("Nothing was recorded: inquiry %d is not one that %s may see or answer.", id, p.Name)
	}
	return fmt.Sprintf("Nothing was recorded for inquiry %d: %s.", id, strings.TrimSuffix(hitl.ErrorMessage(err), "."))
}

// finalWords: "inquiry 7 is already answered by bob", "inquiry 7 timed out".
func finalWords(inq *hitl.Inquiry) string {
	switch {
	case inq.Status == hitl.StatusResponded && inq.RespondedBy != nil:
		return fmt.Sprintf("inquiry %d is already answered by %s", inq.ID, *inq.RespondedBy)
	case inq.Status == hitl.StatusTimeout:
		return fmt.Sprintf("inquiry %d timed out", inq.ID)
	case inq.Status == hitl.StatusCancelled:
		return fmt.Sprintf("inquiry %d was cancelled", inq.ID)
	}
	return fmt.Sprintf("inquiry %d is already %s", inq.ID, wording.Status(inq.Status))
}

// answered shows the outcome where the person clicked: the message is updated for everyone
// in the conversation (the dispatcher updates the inquiry's other messages), or, in an
// ephemeral list, the person is told. A vote that did not decide is told to its voter, with
// where the vote stands, and the message shows the votes so far.
func (h *handler) answered(ctx context.Context, inq *hitl.Inquiry, p *hitl.Principal, channel, user string, msg Ref, ephemeral bool) {
	if words := wording.VoteRecorded(inq, p.Name); words != "" {
		h.client.tell(ctx, channel, user, words)
		if ephemeral || msg.IsZero() {
			return
		}
	} else if ephemeral || msg.IsZero() {
		h.client.tell(ctx, channel, user, fmt.Sprintf("Recorded your answer to inquiry %d: %s", inq.ID, answerWords(inq)))
		return
	}
	if err := h.client.redraw(ctx, msg, inq, h.readerZone(ctx, p, msg)); err != nil {
		h.client.log.Warn("slack: updating the answered message failed", "inquiry_id", inq.ID, "err", err)
	}
}

// readerZone is the zone a redrawn message shows times in, as it was posted: a direct
// message's (its conversation id starts with D) is read by the one who clicked in it, so their
// zone; a channel's, UTC. A zone that cannot be read falls back to UTC: the answer is recorded.
func (h *handler) readerZone(ctx context.Context, p *hitl.Principal, msg Ref) string {
	if !strings.HasPrefix(msg.Channel, "D") {
		return ""
	}
	zone, err := h.engine.TimeZone(ctx, p)
	if err != nil {
		h.client.log.Warn("slack: reading the person's time zone failed; the message shows UTC", "person", p.Name, "err", err)
	}
	return zone
}

func (h *handler) openForm(ctx context.Context, ic *slackapi.InteractionCallback, p *hitl.Principal, id int64, msg Ref, ephemeral bool) {
	channel, _, _ := where(ic)
	inq, err := h.engine.Inquiry(ctx, p, id)
	if err != nil {
		h.client.tell(ctx, channel, ic.User.ID, refusal(p, id, err))
		return
	}
	if inq.Status.Final() {
		h.client.tell(ctx, channel, ic.User.ID, "Nothing to answer: "+finalWords(inq)+".")
		return
	}
	meta := modalMetadata{Inquiry: id}
	if !ephemeral {
		meta.Channel, meta.TS = msg.Channel, msg.TS
	}
	if _, err := h.client.api.OpenViewContext(ctx, ic.TriggerID, modalFor(inq, meta)); err != nil {
		h.client.log.Warn("slack: opening the answer form failed", "inquiry_id", id, "err", classify("views.open", err))
		h.client.tell(ctx, channel, ic.User.ID, fmt.Sprintf("Slack did not open the form; answer inquiry %d in the inbox instead.", id))
	}
}

// viewSubmission answers an inquiry from its modal. Problems go back into the modal beside
// their fields (response_action "errors"), so the person fixes them without losing what they
// typed; an empty 200 closes it.
func (h *handler) viewSubmission(w http.ResponseWriter, ctx context.Context, ic *slackapi.InteractionCallback) {
	if ic.View.CallbackID != modalCallback {
		w.WriteHeader(http.StatusOK)
		return
	}
	var meta modalMetadata
	if err := json.Unmarshal([]byte(ic.View.PrivateMetadata), &meta); err != nil || meta.Inquiry <= 0 {
		http.Error(w, "the form's private_metadata does not name an inquiry", http.StatusBadRequest)
		return
	}
	p, refused := h.person(ctx, ic.User.ID)
	if p == nil {
		writeViewErrors(w, map[string]string{firstBlock(ic): refused})
		return
	}
	inq, err := h.engine.Inquiry(ctx, p, meta.Inquiry)
	if err != nil {
		writeViewErrors(w, map[string]string{firstBlock(ic): refusal(p, meta.Inquiry, err)})
		return
	}
	form := formOf(inq)
	req, problems := form.read(ic.View.State)
	if len(problems) > 0 {
		writeViewErrors(w, form.blockErrors(problems))
		return
	}
	answered, err := h.engine.Respond(ctx, p, meta.Inquiry, req)
	var he *hitl.Error
	switch {
	case errors.As(err, &he) && (he.Code == hitl.EInvalidResponse || he.Code == hitl.EInvalid) && len(he.Fields) > 0:
		writeViewErrors(w, form.blockErrors(he.Fields))
		return
	case err != nil:
		writeViewErrors(w, map[string]string{firstBlock(ic): refusal(p, meta.Inquiry, err)})
		return
	}
	msg := Ref{Channel: meta.Channel, TS: meta.TS}
	if !msg.IsZero() {
		if err := h.client.redraw(ctx, msg, answered, h.readerZone(ctx, p, msg)); err != nil {
			h.client.log.Warn("slack: updating the answered message failed", "inquiry_id", answered.ID, "err", err)
		}
	}
	w.WriteHeader(http.StatusOK)
}

// firstBlock is the modal's first input, where a problem of the whole answer is shown: Slack
// shows errors only beside inputs.
func firstBlock(ic *slackapi.InteractionCallback) string {
	for _, b := range ic.View.Blocks.BlockSet {
		if in, ok := b.(*slackapi.InputBlock); ok {
			return in.BlockID
		}
	}
	return leafBlockID(0)
}

func writeViewErrors(w http.ResponseWriter, errs map[string]string) {
	for k, v := range errs {
		errs[k] = cut(v, maxHint)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(slackapi.NewErrorsViewSubmissionResponse(errs))
}

// maxListed is how many pending inquiries /hitl asks for: as many of them as fit are
// listed (pendingList), ten at most, each in four blocks at the most.
const maxListed = 10

// command answers /hitl with the caller's pending inquiries, soonest deadline first, each
// with its buttons; only the caller sees the list.
func (h *handler) command(w http.ResponseWriter, r *http.Request, _ []byte) {
	cmd, err := slackapi.SlashCommandParse(r)
	if err != nil || cmd.UserID == "" {
		http.Error(w, "the body is not a Slack slash command (form-encoded, with user_id)", http.StatusBadRequest)
		return
	}
	reply := func(msg *slackapi.Msg) {
		msg.ResponseType = slackapi.ResponseTypeEphemeral
		msg.Text, msg.Blocks.BlockSet = fitMessage(msg.Text, msg.Blocks.BlockSet)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
	}
	p, refused := h.person(r.Context(), cmd.UserID)
	if p == nil {
		reply(&slackapi.Msg{Text: refused})
		return
	}
	pending := hitl.InquiryFilter{Status: hitl.StatusPending, Primaries: true, Order: hitl.OrderDeadline, Page: hitl.Page{Limit: maxListed}}
	list, next, err := h.engine.Inquiries(r.Context(), p, pending)
	if err != nil {
		h.client.log.Error("slack: listing pending inquiries failed", "slack_user", cmd.UserID, "err", err)
		reply(&slackapi.Msg{Text: "hitl could not list your inquiries just now: " + hitl.ErrorMessage(err)})
		return
	}
	if len(list) == 0 {
		reply(&slackapi.Msg{Text: "Nothing waits for you, " + p.Name + "."})
		return
	}
	total := len(list)
	if next != "" {
		if total, err = h.engine.CountInquiries(r.Context(), p, pending); err != nil {
			h.client.log.Warn("slack: counting pending inquiries failed", "slack_user", cmd.UserID, "err", err)
			total = -1 // the list says "and more" without a number
		}
	}
	text, blocks := pendingList(p.Name, list, total, h.client.inboxURL, h.client.pendingURL())
	reply(&slackapi.Msg{Text: text, Blocks: slackapi.Blocks{BlockSet: blocks}})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
