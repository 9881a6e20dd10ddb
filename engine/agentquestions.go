package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// The async agent questions protocol (/agent/...): a session is an agent run, an inquiry in
// it a question. The rules it needs beyond hitl's own are here: the questions listed, and the
// question_pending and question_answered callbacks. Its answers name their session, as
// OpenIntent's do: those RespondInSession takes (sessionanswers.go).

// SessionQuestions lists the questions asked in sessions that p may see, oldest first, with
// status (empty: any), and the sessions they are in, by key, as p may see them.
func (e *Engine) SessionQuestions(ctx context.Context, p *hitl.Principal, status hitl.Status) ([]*hitl.Inquiry, map[string]*hitl.Session, error) {
	var out []*hitl.Inquiry
	f := hitl.InquiryFilter{Status: status, Page: hitl.Page{Limit: 500}}
	for {
		items, next, err := e.Inquiries(ctx, p, f)
		if err != nil {
			return nil, nil, err
		}
		for _, inq := range items {
			if inq.Session != "" {
				out = append(out, inq)
			}
		}
		if next == "" {
			break
		}
		f.Page.Cursor = next
	}
	slices.Reverse(out) // Inquiries lists the newest first; a queue of questions reads oldest first
	var keys []string
	for _, inq := range out {
		if !slices.Contains(keys, inq.Session) {
			keys = append(keys, inq.Session)
		}
	}
	ss, err := e.store.SessionsByKey(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	sessions := make(map[string]*hitl.Session, len(ss))
	for _, s := range ss {
		sessions[s.Key] = sessionView(p, s)
	}
	return out, sessions, nil
}

// questionPending is the body of the protocol's callback for a new question.
type questionPending struct {
	Event     string       `json:"event"`
	SessionID string       `json:"session_id"`
	AgentName string       `json:"agent_name"`
	Question  callbackItem `json:"question"`
	AnswerURL string       `json:"answer_url"`
}

// questionAnswered is the body of the protocol's callback for an answered question, in the
// shape of question_pending: the agent that waits on its callback learns the answer there.
// A default answer (a fallback value applied at the deadline) has answered_by null.
type questionAnswered struct {
	Event         string          `json:"event"`
	SessionID     string          `json:"session_id"`
	AgentName     string          `json:"agent_name"`
	Question      callbackItem    `json:"question"`
	Answer        json.RawMessage `json:"answer"`
	AnsweredBy    *string         `json:"answered_by"`
	AnsweredAt    time.Time       `json:"answered_at"`
	DefaultAnswer bool            `json:"default_answer"`
}

// callbackItem is a question as the callbacks show it.
type callbackItem struct {
	ID      string          `json:"id"`
	Text    string          `json:"text"`
	Options []string        `json:"options"`
	Context json.RawMessage `json:"context"`
}

// QuestionID is how the protocol names a question: the inquiry's id, as a string.
func QuestionID(id int64) string { return strconv.FormatInt(id, 10) }

// OptionValues are the values of an inquiry's options, [] when it has none.
func OptionValues(inq *hitl.Inquiry) []string {
	values := make([]string, len(inq.Options))
	for i, o := range inq.Options {
		values[i] = o.Value
	}
	return values
}

// QuestionContext is an inquiry's context as the protocol shows it: {} when it has none.
func QuestionContext(inq *hitl.Inquiry) json.RawMessage {
	if hitl.IsNull(inq.Context) {
		return json.RawMessage("{}")
	}
	return inq.Context
}

// agentQuestionCallbacks adds the protocol's callbacks of an event of a session: a new question
// (question_pending), and its answer, a person's or the default one (question_answered). They
// go to the session's callback URL when it asked for that format, and to the server's URL for
// every session's questions (Options.AgentQuestionCallbackURL).
func (e *Engine) agentQuestionCallbacks(out *[]*hitl.Delivery, now time.Time, ev *hitl.Event, session *hitl.Session) error {
	if session == nil || (ev.Type != hitl.EventInquiryCreated && ev.Type != hitl.EventInquiryResponded && ev.Type != hitl.EventInquiryTimeout) {
		return nil
	}
	var urls []string
	if session.CallbackFormat == hitl.CallbackAgentQuestions && session.CallbackURL != nil {
		urls = append(urls, *session.CallbackURL)
	}
	if u := e.agentQuestionURL; u != "" && !slices.Contains(urls, u) {
		urls = append(urls, u)
	}
	if len(urls) == 0 {
		return nil
	}
	var inq hitl.Inquiry
	if err := json.Unmarshal(ev.Data, &inq); err != nil {
		return fmt.Errorf("event %d: %w", ev.Seq, err)
	}
	if ev.Type == hitl.EventInquiryTimeout && !inq.FallbackApplied {
		return nil // no answer: the session failed with it (timeOut)
	}
	question := callbackItem{ID: QuestionID(inq.ID), Text: inq.Prompt, Options: OptionValues(&inq), Context: QuestionContext(&inq)}
	var body any = questionPending{Event: "question_pending", SessionID: session.Key, AgentName: session.Agent, Question: question,
		AnswerURL: strings.TrimSuffix(e.notify.PublicURL, "/") + "/agent/answer/" + session.Key}
	if ev.Type != hitl.EventInquiryCreated {
		body = questionAnswered{Event: "question_answered", SessionID: session.Key, AgentName: session.Agent, Question: question,
			Answer: hitl.OrNull(inq.Response), AnsweredBy: inq.RespondedBy, AnsweredAt: answeredAt(&inq), DefaultAnswer: inq.FallbackApplied}
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	for _, u := range urls {
		d, err := e.addDelivery(out, now, hitl.DeliverySessionCallback, ev, u, hostOf(u), "", nil)
		if err != nil {
			return err
		}
		d.Payload, d.Channel = payload, hitl.CallbackAgentQuestions
	}
	return nil
}

// answeredAt is when an inquiry was answered: by a person, or by its deadline's default answer.
func answeredAt(inq *hitl.Inquiry) time.Time {
	if inq.RespondedAt != nil {
		return *inq.RespondedAt
	}
	return inq.UpdatedAt
}
