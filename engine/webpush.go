package engine

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Web Push: a person turns on notifications in the inbox, and their browser gives a push
// subscription (an endpoint at its push service and the keys that encrypt messages for the
// device). Each device is a recipient of its person's notifications (engine/notify.go): one
// delivery per device through the outbox, sent by channel/webpush with the server's VAPID key,
// which every node reads from the store (a secret, encrypted at rest like the others).
//
// A notification of a plain approval carries Approve and Reject buttons. They answer through
// an action token: an answer link's claims (engine/links.go) bound to the person, the device
// (the subscription's endpoint) and the inquiry, with the notification's ID as a nonce that
// the store records on first use, so the token answers once. Like an answer link, it lends no
// power of its own: it stops working when the person's keys are revoked, and when the device
// turns notifications off. Opening anything never answers; only the service worker's POST of
// the token does.

const (
	// vapidSetting holds the server's VAPID private key (base64url of the P-256 scalar).
	vapidSetting = "vapid_private_key"
	// actionPrefix is the version of action tokens; their signature covers it, so neither
	// an answer link nor anything else signed with the link secret passes for one.
	actionPrefix = "wpa1."
	// maxDevices bounds the devices of one person.
	maxDevices = 20
)

// newVAPIDKey makes a VAPID private key.
func newVAPIDKey() string {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return base64.RawURLEncoding.EncodeToString(k.Bytes())
}

// vapidPublic derives the public key (base64url of the uncompressed point) of a VAPID
// private key.
func vapidPublic(private string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(private)
	if err != nil {
		return "", fmt.Errorf("the stored VAPID key is not base64url: %w", err)
	}
	k, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		return "", fmt.Errorf("the stored VAPID key is not a P-256 key: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()), nil
}

// VAPIDPublicKey is the server's VAPID public key (base64url), which a browser subscribes
// with (applicationServerKey); any signed-in principal may read it.
func (e *Engine) VAPIDPublicKey() string { return e.vapid.public }

// VAPIDKeys are the server's VAPID private and public keys, for the sender of web pushes.
func (e *Engine) VAPIDKeys() (private, public string) { return e.vapid.private, e.vapid.public }

// SubscribePush stores a device of the caller, from the browser's PushSubscription: its
// endpoint goes through the same address guard as webhooks; its keys must be what browsers
// make (a P-256 public key and a 16-byte secret, base64url). The same endpoint again replaces
// the device (created is false when nothing changed but its time). Only those who answer
// have devices: notifications are for them.
func (e *Engine) SubscribePush(ctx context.Context, p *hitl.Principal, req *hitl.PushSubscriptionRequest) (sub *hitl.PushSubscription, created bool, err error) {
	if !CanAnswer(p) || p.Via != "" {
		return nil, false, forbidden("notifications are for those who answer: %s holds no responder role", p.Name)
	}
	now := e.clock()
	var bad problems
	if req.Endpoint == "" {
		bad.add("/endpoint", "is required: the push service's URL for this device, as the browser gives it")
	} else if !strings.HasPrefix(req.Endpoint, "https://") && !(e.allowPrivate && strings.HasPrefix(req.Endpoint, "http://")) {
		bad.add("/endpoint", "must be an https:// URL (a push service)")
	} else {
		e.checkURL(ctx, &bad, "/endpoint", req.Endpoint)
	}
	if key, err := pushKey(req.Keys.P256DH); err != nil {
		bad.add("/keys/p256dh", "%s", err)
	} else if _, err := ecdh.P256().NewPublicKey(key); err != nil {
		bad.add("/keys/p256dh", "must be an uncompressed P-256 public key (65 bytes, starting with 4), as the browser's getKey(\"p256dh\") gives it")
	}
	if auth, err := pushKey(req.Keys.Auth); err != nil {
		bad.add("/keys/auth", "%s", err)
	} else if len(auth) != 16 {
		bad.add("/keys/auth", "must be 16 bytes (base64url), as the browser's getKey(\"auth\") gives it; it is %d", len(auth))
	}
	var expires *time.Time
	if t := req.ExpirationTime; t != nil {
		switch at := time.UnixMilli(int64(*t)).UTC(); {
		case *t < 0 || math.IsNaN(*t) || *t > 1e15:
			bad.add("/expirationTime", "must be null or milliseconds since 1970")
		case !at.After(now):
			bad.add("/expirationTime", "is in the past: the subscription has expired; subscribe again")
		default:
			expires = &at
		}
	}
	if err := bad.err("invalid push subscription"); err != nil {
		return nil, false, err // invalid fields, as any other input's: 400 with every problem at its path
	}
	sub = &hitl.PushSubscription{Endpoint: req.Endpoint, Person: p.Name, P256DH: req.Keys.P256DH, Auth: req.Keys.Auth, ExpiresAt: expires, CreatedAt: now}
	mine, err := e.store.WebPushSubscriptions(ctx, []string{p.Name})
	if err != nil {
		return nil, false, err
	}
	created = true
	for _, m := range mine {
		if m.Endpoint == sub.Endpoint {
			created = m.P256DH != sub.P256DH || m.Auth != sub.Auth
			break // endpoints are unique
		}
	}
	if created && len(mine) >= maxDevices {
		return nil, false, hitl.Errorf(hitl.EConflict, "%s has %d devices with notifications on, the most one may have; turn them off on one first", p.Name, maxDevices)
	}
	if err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.PutWebPushSubscription(sub) }); err != nil {
		return nil, false, err
	}
	return sub, created, nil
}

// pushKey decodes a subscription key: base64url, with or without padding, as browsers vary.
func pushKey(s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("is required")
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("must be base64url (A-Z a-z 0-9 - _), as the browser gives it")
	}
	return b, nil
}

// UnsubscribePush removes a device of the caller (ENotFound when the caller has none at
// that endpoint).
func (e *Engine) UnsubscribePush(ctx context.Context, p *hitl.Principal, endpoint string) error {
	if endpoint == "" {
		return hitl.Errorf(hitl.EInvalid, "endpoint is required: the push subscription's endpoint to forget")
	}
	sub, err := e.store.WebPushSubscription(ctx, endpoint)
	if err == nil && sub.Person != p.Name || hitl.ErrorCode(err) == hitl.ENotFound {
		return hitl.Errorf(hitl.ENotFound, "%s has no device with notifications on at that endpoint", p.Name)
	}
	if err != nil {
		return err
	}
	return e.store.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteWebPushSubscription(endpoint) })
}

// PushDevice is the device of an endpoint, for the sender (ENotFound once it turned
// notifications off).
func (e *Engine) PushDevice(ctx context.Context, endpoint string) (*hitl.PushSubscription, error) {
	return e.store.WebPushSubscription(ctx, endpoint)
}

// PushDeviceGone removes a device its push service no longer knows (404 or 410): its browser
// unsubscribed, or the subscription expired.
func (e *Engine) PushDeviceGone(ctx context.Context, endpoint string) error {
	err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteWebPushSubscription(endpoint) })
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil
	}
	if err == nil {
		e.log.Info("a device's push subscription is gone; it no longer gets notifications", "endpoint", endpoint)
	}
	return err
}

// actionClaims are an answer link's claims with the nonce that makes the token single-use.
type actionClaims struct {
	linkClaims
	Nonce string `json:"n"`
}

// pushActionToken signs the action token of one notification to one device.
func (e *Engine) pushActionToken(c actionClaims) string { return e.signedToken(actionPrefix, c) }

// readAction checks an action token's signature and reads its claims.
func (e *Engine) readAction(token string) (*actionClaims, error) {
	var c actionClaims
	if !e.openToken(actionPrefix, token, &c) || c.Inquiry <= 0 || c.For == "" || c.Nonce == "" ||
		c.Channel != hitl.ChannelWebPush || c.Address == "" {
		return nil, hitl.Errorf(hitl.EUnauthorized, "this notification's action is not valid")
	}
	return &c, nil
}

// AnswerPushAction answers an approval from its notification's button: action is approve or
// reject, token the notification's action token. The token must be valid and unexpired, its
// person still one who may answer, its device still subscribed to that person; then it is
// spent (a second use is EConflict, whatever the first one's outcome), and the answer is the
// person's, checked as any other.
func (e *Engine) AnswerPushAction(ctx context.Context, token, action string) (*hitl.Inquiry, error) {
	var approved bool
	switch action {
	case hitl.PushActionApprove:
		approved = true
	case hitl.PushActionReject:
	default:
		return nil, hitl.Errorf(hitl.EInvalid, "action must be %q or %q", hitl.PushActionApprove, hitl.PushActionReject)
	}
	c, err := e.readAction(token)
	if err != nil {
		return nil, err
	}
	if e.expired(&c.linkClaims) {
		return nil, hitl.Errorf(hitl.EUnauthorized, "this notification's action has expired; open the inquiry to answer it")
	}
	who, inq, err := e.openLink(ctx, &c.linkClaims, "this notification's action")
	if err != nil {
		return nil, err
	}
	if !inq.IsPlainApproval() {
		return nil, hitl.Errorf(hitl.EInvalid, "inquiry %d is not an approval: open it to answer", inq.ID)
	}
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		return tx.UseWebPushAction(c.Nonce, time.Unix(c.Expires, 0).UTC()) // forgotten by the housekeeping once expired
	})
	if err != nil {
		return nil, err
	}
	return e.Respond(ctx, who, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(fmt.Sprintf(`{"approved":%t}`, approved))})
}

// devicesHolder reports why a link sent to a device no longer answers: the device turned
// notifications off, or is now another person's.
func (e *Engine) devicesHolder(ctx context.Context, c *linkClaims) error {
	sub, err := e.store.WebPushSubscription(ctx, c.Address)
	if hitl.ErrorCode(err) == hitl.ENotFound || err == nil && sub.Person != c.For {
		return forbidden("it was sent to a device on which %s no longer gets notifications", c.For)
	}
	return err
}
