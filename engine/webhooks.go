package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/outbound"
)

// webhookEventTypes are the events a webhook may subscribe to: those about inquiries and
// sessions. Key and webhook events are an admin's audit trail and stay in the log.
var webhookEventTypes = []string{
	hitl.EventInquiryCreated, hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled,
	hitl.EventInquiryReminded, hitl.EventInquiryEscalated, hitl.EventInquiryResumed,
	hitl.EventInquiryVoted, hitl.EventInquiryStepCompleted, hitl.EventInquiryClaimed, hitl.EventInquiryReleased, hitl.EventInquiryAssigned,
	hitl.EventSessionUpdated, hitl.EventSessionCompleted, hitl.EventSessionFailed, hitl.EventSessionCancelled,
	hitl.EventIntentSuspended, hitl.EventIntentResumed,
}

const (
	maxURL         = 2048
	maxDescription = 1000
)

// checkURL adds a problem at path when raw may not receive deliveries (see outbound.CheckURL).
func (e *Engine) checkURL(ctx context.Context, bad *problems, path, raw string) {
	if len(raw) > maxURL {
		bad.add(path, "must be at most %d characters", maxURL)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := outbound.CheckURL(ctx, raw, e.allowPrivate); err != nil {
		bad.add(path, "%s", err.Error())
	}
}

// subscribedEvents reads the events a subscription lists: "*" for every one of allowed, else
// some of them, each once; what else it lists is a problem at its path.
func subscribedEvents(bad *problems, listed, allowed []string, what string) []string {
	events := []string{}
	for i, typ := range listed {
		switch {
		case typ == "*":
			events = slices.Clone(allowed)
		case !slices.Contains(allowed, typ):
			bad.add("/events/"+strconv.Itoa(i), "%q is not an event %s; use \"*\" or any of %s", typ, what, strings.Join(allowed, ", "))
		case !slices.Contains(events, typ):
			events = append(events, typ)
		}
	}
	return events
}

func newWebhookID() string {
	b := make([]byte, 9)
	rand.Read(b)
	return "wh_" + base64.RawURLEncoding.EncodeToString(b)
}

// CreateWebhook subscribes a URL to events (admin). The answer holds the signing secret,
// which is never shown again.
func (e *Engine) CreateWebhook(ctx context.Context, p *hitl.Principal, req *hitl.WebhookRequest) (*hitl.Webhook, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	var bad problems
	e.checkURL(ctx, &bad, "/url", req.URL)
	events := subscribedEvents(&bad, req.Events, webhookEventTypes, "a webhook may receive")
	if len(req.Events) == 0 {
		bad.add("/events", "must list the events to receive: \"*\" or any of %s", strings.Join(webhookEventTypes, ", "))
	}
	if utf8.RuneCountInString(req.Description) > maxDescription {
		bad.add("/description", "must be at most %d characters", maxDescription)
	}
	if err := bad.err("invalid webhook"); err != nil {
		return nil, err
	}
	now := e.clock()
	w := &hitl.Webhook{ID: newWebhookID(), URL: req.URL, Events: events, Description: req.Description,
		Secret: outbound.NewSecret(), CreatedBy: p.Name, CreatedAt: now}
	stored := *w // the secret as the store keeps it (engine/secrets.go)
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if stored.Secret, err = e.seal(tx, w.Secret, webhookSecretPlace(w.ID)); err != nil {
			return err
		}
		if err = tx.InsertWebhook(&stored); err != nil {
			return err
		}
		ev, err = webhookEvent(tx, hitl.EventWebhookCreated, w, p.Name, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.published([]*hitl.Event{ev})
	e.log.Info("webhook created", "webhook_id", w.ID, "url", w.URL, "actor", p.Name)
	return w, nil
}

// webhookEvent records a change of a webhook; its data is the webhook without its secret.
func webhookEvent(tx hitl.Tx, typ string, w *hitl.Webhook, actor string, at time.Time) (*hitl.Event, error) {
	shown := *w
	shown.Secret = ""
	return appendAuditEvent(tx, typ, shown, actor, at)
}

// Webhooks lists the webhooks (admin), without secrets.
func (e *Engine) Webhooks(ctx context.Context, p *hitl.Principal) ([]*hitl.Webhook, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	return e.store.Webhooks(ctx)
}

// Webhook returns one webhook (admin), without its secret.
func (e *Engine) Webhook(ctx context.Context, p *hitl.Principal, id string) (*hitl.Webhook, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	return e.store.Webhook(ctx, id)
}

// DeleteWebhook removes a webhook and its deliveries (admin): nothing more is sent to it.
func (e *Engine) DeleteWebhook(ctx context.Context, p *hitl.Principal, id string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	w, err := e.store.Webhook(ctx, id)
	if err != nil {
		return err
	}
	now := e.clock()
	var ev *hitl.Event
	err = e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if err = tx.DeleteWebhook(id); err != nil {
			return err
		}
		ev, err = webhookEvent(tx, hitl.EventWebhookDeleted, w, p.Name, now)
		return err
	})
	if err != nil {
		return err
	}
	e.published([]*hitl.Event{ev})
	e.log.Info("webhook deleted", "webhook_id", id, "actor", p.Name)
	return nil
}

// Deliveries lists deliveries, newest first (admin). A webhook's list 404s when it is unknown.
func (e *Engine) Deliveries(ctx context.Context, p *hitl.Principal, f hitl.DeliveryFilter) ([]*hitl.Delivery, string, error) {
	if err := mayAdmin(p); err != nil {
		return nil, "", err
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, "", hitl.Errorf(hitl.EInvalid, "status must be pending, delivered or failed")
	}
	if f.WebhookID != "" {
		if _, err := e.store.Webhook(ctx, f.WebhookID); err != nil {
			return nil, "", err
		}
	}
	return e.store.Deliveries(ctx, f)
}

// RetryDelivery sends a delivered or failed delivery again, now, with a new round of retries
// (admin). It keeps its ID, so the receiver can tell it is the same message.
func (e *Engine) RetryDelivery(ctx context.Context, p *hitl.Principal, id string) (*hitl.Delivery, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	now := e.clock()
	var d *hitl.Delivery
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		d, err = tx.RetryDelivery(id, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.outbox.MarkReady()
	e.log.Info("delivery retried by hand", "delivery_id", id, "actor", p.Name)
	return d, nil
}

// CallbackSecret is the secret resume callbacks are signed with, for an admin to hand to the
// agents that receive callbacks.
func (e *Engine) CallbackSecret(p *hitl.Principal) (string, error) {
	if err := mayAdmin(p); err != nil {
		return "", err
	}
	return e.callbackSecret, nil
}

// CallbackSigningSecret is CallbackSecret for the dispatcher, set once Start has run.
func (e *Engine) CallbackSigningSecret() string { return e.callbackSecret }
