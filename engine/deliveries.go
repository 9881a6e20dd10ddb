package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/outbox"
	"github.com/hitl-dev/hitl/internal/outbound"
)

// Deliveries: what the event log asks to deliver, which the outbox (engine/internal/outbox)
// stores page by page as it reads the log: one delivery per event and URL (webhooks whose
// events include its type, the inquiry's callback_url, its session's), one per broker for the
// events brokers carry, and the notifications to people, groups and chat rooms
// (engine/notify.go).

// planDeliveries reads the webhooks and chat rooms for one reading of the log, and returns
// what lists the deliveries of each of its pages.
func (e *Engine) planDeliveries(ctx context.Context) (outbox.PlanPage, error) {
	webhooks, err := e.store.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	chats, err := e.store.ChatWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, evs []*hitl.Event) ([]*hitl.Delivery, error) {
		return e.deliveriesFor(ctx, evs, webhooks, chats)
	}, nil
}

// DeliveriesReady receives when deliveries were added or retried by hand on this node, for the
// dispatcher to look for work at once rather than at its next poll.
func (e *Engine) DeliveriesReady() <-chan struct{} { return e.outbox.Ready() }

// resumeData is what a resume callback carries: the inquiry after the change (null for a
// session's own events) and the session with its saved state (null outside a session), so
// that an agent that did not stay alive can pick up from the callback alone.
type resumeData struct {
	Inquiry json.RawMessage `json:"inquiry"`
	Session json.RawMessage `json:"session"`
}

// deliveriesFor lists the deliveries that the events ask for.
func (e *Engine) deliveriesFor(ctx context.Context, evs []*hitl.Event, webhooks []*hitl.Webhook, chats []*hitl.ChatWebhook) ([]*hitl.Delivery, error) {
	sessions, err := e.sessionsOf(ctx, evs)
	if err != nil {
		return nil, err
	}
	now := e.clock()
	var out, notifications []*hitl.Delivery
	var routes *routing // read when the first event that may notify comes
	notifying := len(e.notify.Channels) > 0 || len(chats) > 0
	add := func(kind hitl.DeliveryKind, ev *hitl.Event, to, target, webhookID string, data json.RawMessage) error {
		_, err := e.addDelivery(&out, now, kind, ev, to, target, webhookID, data)
		return err
	}
	for _, ev := range evs {
		if len(e.brokers) > 0 && slices.Contains(brokerEventTypes, ev.Type) {
			for _, b := range e.brokers {
				d, err := e.addDelivery(&out, now, hitl.DeliveryBroker, ev, "", b, "", ev.Data)
				if err != nil {
					return nil, err
				}
				d.Channel = b
			}
		}
		if notifying && ev.InquiryID != nil && slices.Contains(notifyEventTypes, ev.Type) {
			if routes == nil {
				if routes, err = e.loadRouting(ctx, chats); err != nil {
					return nil, err
				}
			}
			ns, err := e.notificationsFor(ctx, routes, ev, notifications)
			if err != nil {
				return nil, err
			}
			notifications = append(notifications, ns...)
		}
		if !slices.Contains(webhookEventTypes, ev.Type) {
			continue
		}
		alias := hitl.IntentAlias(ev) // OpenIntent's name for it, delivered beside it to who asks
		for _, w := range webhooks {
			// A webhook receives the events from its creation on.
			if ev.Time.Before(w.CreatedAt) {
				continue
			}
			for _, ev := range []*hitl.Event{ev, alias} {
				if ev != nil && slices.Contains(w.Events, ev.Type) {
					if err := add(hitl.DeliveryWebhook, ev, w.URL, w.ID, w.ID, ev.Data); err != nil {
						return nil, err
					}
				}
			}
		}
		if slices.Contains(hitl.PendingChanges, ev.Type) {
			continue // reminders, votes and claims are for people: a resume callback wakes its agent for the inquiry's changes of state
		}
		if ev.Type == hitl.EventInquiryResumed {
			continue // the agent's own receipt: a callback about it would make another
		}
		if err := e.agentQuestionCallbacks(&out, now, ev, sessions[ev.Session]); err != nil {
			e.log.Error("an event cannot be read for its agent question callbacks", "seq", ev.Seq, "err", err)
		}
		inquiryURL, sessionURL, data, err := callbacksOf(ev, sessions[ev.Session])
		if err != nil {
			e.log.Error("an event cannot be read for its callbacks", "seq", ev.Seq, "err", err)
			continue
		}
		if inquiryURL != "" {
			if err := add(hitl.DeliveryInquiryCallback, ev, inquiryURL, hostOf(inquiryURL), "", data); err != nil {
				return nil, err
			}
		}
		if sessionURL != "" && sessionURL != inquiryURL {
			if err := add(hitl.DeliverySessionCallback, ev, sessionURL, hostOf(sessionURL), "", data); err != nil {
				return nil, err
			}
		}
	}
	if err := e.pushDeliveries(ctx, &out, now, evs); err != nil {
		return nil, err
	}
	return append(out, notifications...), nil
}

// addDelivery appends to out a delivery of ev, whose body is the CloudEvent of data.
func (e *Engine) addDelivery(out *[]*hitl.Delivery, now time.Time, kind hitl.DeliveryKind, ev *hitl.Event, to, target, webhookID string, data json.RawMessage) (*hitl.Delivery, error) {
	ce := outbound.NewCloudEvent(e.source, ev.ID, ev.Type, ev.Time, outbound.Subject(ev.InquiryID, ev.Session), data)
	body, err := json.Marshal(ce)
	if err != nil {
		return nil, err
	}
	return addPayload(out, now, kind, ev, to, target, webhookID, body), nil
}

// addPayload adds a delivery of ev to out that posts body as it is: a protocol's own shape
// (an A2A push), where addDelivery posts the event as a CloudEvent.
func addPayload(out *[]*hitl.Delivery, now time.Time, kind hitl.DeliveryKind, ev *hitl.Event, to, target, webhookID string, body json.RawMessage) *hitl.Delivery {
	d := &hitl.Delivery{
		ID: "msg_" + strings.ReplaceAll(uuid.NewString(), "-", ""), Kind: kind, WebhookID: webhookID, URL: to,
		Target: target, EventSeq: ev.Seq, EventID: ev.ID, EventType: ev.Type, InquiryID: ev.InquiryID,
		Session: ev.Session, Payload: body, Status: hitl.DeliveryPending, NextAttemptAt: &now, CreatedAt: now, RetryFrom: now,
	}
	d.Traceparent, d.Tracestate = traceOf(ev)
	*out = append(*out, d)
	return d
}

// traceOf is the trace context kept with an event's inquiry, as the event's data shows it
// (the inquiry after the change, or a shape that embeds it); "" for a session's own events and
// for inquiries created outside any trace.
func traceOf(ev *hitl.Event) (traceparent, tracestate string) {
	if ev.InquiryID == nil || !bytes.Contains(ev.Data, []byte(`"traceparent"`)) {
		return "", "" // most inquiries carry none: skip decoding those
	}
	var t struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
	}
	if json.Unmarshal(ev.Data, &t) != nil {
		return "", ""
	}
	return t.Traceparent, t.Tracestate
}

// sessionsOf reads the sessions of the inquiry events among evs (session events carry their
// session), by key.
func (e *Engine) sessionsOf(ctx context.Context, evs []*hitl.Event) (map[string]*hitl.Session, error) {
	var keys []string
	for _, ev := range evs {
		if ev.InquiryID != nil && ev.Session != "" && !slices.Contains(keys, ev.Session) {
			keys = append(keys, ev.Session)
		}
	}
	ss, err := e.store.SessionsByKey(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*hitl.Session, len(ss))
	for _, s := range ss {
		out[s.Key] = s
	}
	return out, nil
}

// callbacksOf returns the callback URLs an event goes to and the resume data they receive.
// session is the event's session, for inquiry events; it is encoded only for a callback. A
// session whose callback takes the agent questions format gets those only (agentQuestionCallbacks).
func callbacksOf(ev *hitl.Event, session *hitl.Session) (inquiryURL, sessionURL string, data json.RawMessage, err error) {
	var withURL struct {
		CallbackURL    *string `json:"callback_url"`
		CallbackFormat string  `json:"callback_format"`
	}
	resume := resumeData{Inquiry: json.RawMessage("null"), Session: json.RawMessage("null")}
	if ev.InquiryID == nil {
		resume.Session = ev.Data
		if err := json.Unmarshal(ev.Data, &withURL); err != nil {
			return "", "", nil, err
		}
		if withURL.CallbackFormat != hitl.CallbackAgentQuestions {
			sessionURL = deref(withURL.CallbackURL)
		}
	} else {
		resume.Inquiry = ev.Data
		// Most inquiries have no callback: skip decoding those.
		if bytes.Contains(ev.Data, []byte(`"callback_url"`)) {
			if err := json.Unmarshal(ev.Data, &withURL); err != nil {
				return "", "", nil, err
			}
			inquiryURL = deref(withURL.CallbackURL)
		}
		if session != nil && session.CallbackFormat != hitl.CallbackAgentQuestions {
			sessionURL = deref(session.CallbackURL)
		}
	}
	if inquiryURL == "" && sessionURL == "" {
		return "", "", nil, nil
	}
	if ev.InquiryID != nil && session != nil {
		if resume.Session, err = json.Marshal(session); err != nil {
			return "", "", nil, err
		}
	}
	data, err = json.Marshal(resume)
	return inquiryURL, sessionURL, data, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// hostOf is the target of a callback: deliveries to one host share its limit of attempts in flight.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host
}
