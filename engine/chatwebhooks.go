package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"

	"github.com/hitl-dev/hitl"
)

// chatEventTypes are the events a chat webhook may post about: the life of an inquiry.
var chatEventTypes = []string{
	hitl.EventInquiryCreated, hitl.EventInquiryReminded, hitl.EventInquiryEscalated, hitl.EventInquiryStepCompleted,
	hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled,
}

// CreateChatWebhook subscribes a chat room's incoming webhook to inquiry events (admin). The
// URL gets the same guard as a webhook's: global addresses only, unless the server allows
// private ones.
func (e *Engine) CreateChatWebhook(ctx context.Context, p *hitl.Principal, req *hitl.ChatWebhookRequest) (*hitl.ChatWebhook, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	var bad problems
	if !slices.Contains(hitl.ChatKinds, req.Kind) {
		bad.add("/kind", "must be one of %s", strings.Join(hitl.ChatKinds, ", "))
	}
	e.checkURL(ctx, &bad, "/url", req.URL)
	events := subscribedEvents(&bad, req.Events, chatEventTypes, "a chat webhook may post about")
	if len(req.Events) == 0 {
		events = []string{hitl.EventInquiryCreated}
	}
	if err := bad.err("invalid chat webhook"); err != nil {
		return nil, err
	}
	w := &hitl.ChatWebhook{ID: newChatWebhookID(), Kind: req.Kind, URL: req.URL, Events: events, CreatedBy: p.Name, CreatedAt: e.clock()}
	// The URL is the room's secret: stored encrypted when the server has a key.
	stored := *w
	err := e.audited(ctx, p, hitl.EventChatWebhookCreated, chatWebhookShown(w), func(tx hitl.Tx) (err error) {
		if stored.URL, err = e.seal(tx, w.URL, chatWebhookPlace(w.ID)); err != nil {
			return err
		}
		return tx.InsertChatWebhook(&stored)
	})
	if err != nil {
		return nil, err
	}
	e.log.Info("chat webhook created", "chat_webhook_id", w.ID, "kind", w.Kind, "actor", p.Name)
	return w, nil
}

func newChatWebhookID() string {
	b := make([]byte, 9)
	rand.Read(b)
	return "cwh_" + base64.RawURLEncoding.EncodeToString(b)
}

// chatWebhookShown is a chat webhook for the event log: an incoming webhook's URL is its
// secret (whoever has it may post), so the log keeps its scheme and host only.
func chatWebhookShown(w *hitl.ChatWebhook) *hitl.ChatWebhook {
	shown := *w
	if u, err := url.Parse(w.URL); err == nil {
		shown.URL = u.Scheme + "://" + u.Host + "/…"
	}
	return &shown
}

// ChatWebhooks lists the chat webhooks (admin).
func (e *Engine) ChatWebhooks(ctx context.Context, p *hitl.Principal) ([]*hitl.ChatWebhook, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	ws, err := e.store.ChatWebhooks(ctx)
	for _, w := range ws {
		e.openedChatWebhook(w)
	}
	return ws, err
}

// DeleteChatWebhook removes a chat webhook and what it has yet to post (admin).
func (e *Engine) DeleteChatWebhook(ctx context.Context, p *hitl.Principal, id string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	w, err := e.store.ChatWebhook(ctx, id)
	if err != nil {
		return err
	}
	if err := e.audited(ctx, p, hitl.EventChatWebhookDeleted, chatWebhookShown(e.openedChatWebhook(w)), func(tx hitl.Tx) error { return tx.DeleteChatWebhook(id) }); err != nil {
		return err
	}
	e.log.Info("chat webhook deleted", "chat_webhook_id", id, "actor", p.Name)
	return nil
}
