// Package webpush sends notifications to people's devices by Web Push: the message says what
// the device shows (a hitl.PushMessage), encrypted for the device (RFC 8291) and signed with
// the server's VAPID key (RFC 8292), posted to the device's push service (RFC 8030) through the
// dispatcher's guarded client. A push service that no longer knows the device (404, 410) gets
// the device removed. Who gets which message is the engine's decision; this package renders
// and sends.
package webpush

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	webpushlib "github.com/SherClockHolmes/webpush-go"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
	"github.com/hitl-dev/hitl/notify"
)

// Devices is what the sender needs of the engine: the VAPID keys, the device of an endpoint
// (ENotFound once it turned notifications off), and the removal of a device that is gone.
type Devices interface {
	VAPIDKeys() (private, public string)
	PushDevice(ctx context.Context, endpoint string) (*hitl.PushSubscription, error)
	PushDeviceGone(ctx context.Context, endpoint string) error
}

// Sender sends web pushes through client, which must be the dispatcher's guarded one
// (notify.NewClient): a push endpoint gets the same address checks as a webhook's URL.
type Sender struct {
	client     *http.Client
	devices    Devices
	subscriber string
}

// New returns a Sender. subscriber is the contact the VAPID claims name (an https:// URL or
// an email address): a push service writes there when the server misbehaves.
func New(client *http.Client, devices Devices, subscriber string) *Sender {
	return &Sender{client: client, devices: devices, subscriber: subscriber}
}

// ttl is how long a push service keeps a message for a device that is offline: a question
// is worth a day; after that, the inbox and the reminders carry it.
const ttl = 24 * time.Hour

// maxBody bounds the prompt in a message: a push message is at most about 4 KB, and a lock
// screen shows a few lines.
const maxBody = 240

// Send encrypts and posts one message to the device at n.Address.
func (s *Sender) Send(ctx context.Context, n *notify.Notification) (notify.SendResult, error) {
	dev, err := s.devices.PushDevice(ctx, n.Address)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return notify.SendResult{}, &notify.PermanentError{Err: fmt.Errorf("the device turned notifications off")}
	case err != nil:
		return notify.SendResult{}, fmt.Errorf("the device's keys cannot be read, so nothing was sent: %w", err)
	}
	body, err := payload(Message(&n.Notification))
	if err != nil {
		return notify.SendResult{}, &notify.PermanentError{Err: err}
	}
	private, public := s.devices.VAPIDKeys()
	urgency := webpushlib.UrgencyHigh
	if n.Reason == hitl.ReasonResolved {
		urgency = webpushlib.UrgencyNormal
	}
	resp, err := webpushlib.SendNotificationWithContext(ctx, body, &webpushlib.Subscription{
		Endpoint: dev.Endpoint, Keys: webpushlib.Keys{P256dh: dev.P256DH, Auth: dev.Auth},
	}, &webpushlib.Options{
		HTTPClient: s.client, Subscriber: s.subscriber, VAPIDPublicKey: public, VAPIDPrivateKey: private,
		TTL: int(ttl.Seconds()), Urgency: urgency,
		// The push service keeps one pending message per inquiry: the newest replaces it.
		Topic: "inquiry-" + strconv.FormatInt(n.Inquiry.ID, 10),
	})
	if err != nil {
		return notify.SendResult{}, err
	}
	defer resp.Body.Close()
	said := fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(notify.ReadLimited(resp.Body)))
	res := notify.SendResult{Response: said}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return res, nil
	case code == http.StatusNotFound || code == http.StatusGone:
		if err := s.devices.PushDeviceGone(ctx, dev.Endpoint); err != nil {
			return res, fmt.Errorf("the push service no longer knows the device (%d), and removing it failed: %w", code, err)
		}
		return res, &notify.PermanentError{Err: fmt.Errorf("the push service no longer knows the device (%d): it was removed", code)}
	case code == http.StatusTooManyRequests:
		wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return res, &notify.RetryAfter{Wait: time.Duration(wait) * time.Second, Err: fmt.Errorf("the push service asked to slow down (429)")}
	case code >= 400 && code < 500:
		return res, &notify.PermanentError{Err: fmt.Errorf("the push service refused the message (%d)", code)}
	}
	return res, fmt.Errorf("the push service failed (%d)", resp.StatusCode)
}

// maxPayload bounds a message before encryption: a push service takes 4096 bytes at most
// (RFC 8030 section 7.2), of which encryption takes 103 (RFC 8291's header and tag, and the
// padding delimiter).
const maxPayload = 4096 - 103

// payload encodes a message within maxPayload, shortening its text when a long prompt (in
// letters of several bytes each) and long tokens would not fit together.
func payload(m hitl.PushMessage) ([]byte, error) {
	for {
		b, err := json.Marshal(m)
		if err != nil || len(b) <= maxPayload {
			return b, err
		}
		r := []rune(m.Body)
		if len(r) < 20 {
			return nil, fmt.Errorf("the message takes %d bytes, more than a push service takes (%d), even without its text", len(b), maxPayload)
		}
		m.Body = string(r[:len(r)/2]) + "…"
	}
}

// Message is what a device shows for a notification: a question with its buttons, or, once
// the inquiry ended, the same notification (its tag) replaced by how it ended.
func Message(n *hitl.Notification) hitl.PushMessage {
	inq := n.Inquiry
	m := hitl.PushMessage{
		Tag: "hitl-inquiry-" + strconv.FormatInt(inq.ID, 10), URL: n.InboxURL, InquiryID: inq.ID, Reason: string(n.Reason),
		Body: short(inq.Prompt),
	}
	if n.AnswerURL != "" {
		m.URL = n.AnswerURL // opens the form without signing in, for this person on this device
	}
	asker := inq.Origin
	if asker == "" {
		asker = inq.CreatedBy
	}
	what := "Question"
	if inq.RequestType == hitl.RequestApproval {
		what = "Approval"
	}
	switch n.Reason {
	case hitl.ReasonResolved:
		m.Title = wording.Capitalised(wording.Outcome(inq))
	case hitl.ReasonReminder:
		m.Title = fmt.Sprintf("Reminder: %s from %s", strings.ToLower(what), asker)
	case hitl.ReasonEscalation:
		m.Title = fmt.Sprintf("Escalated to you: %s from %s", strings.ToLower(what), asker)
	default:
		m.Title = fmt.Sprintf("%s from %s", what, asker)
	}
	if n.OnBehalfOf != "" && n.Reason != hitl.ReasonResolved {
		m.Title += " for " + n.OnBehalfOf + ", who is away" // the recipient stands in
	}
	if n.ActionToken != "" && inq.Status == hitl.StatusPending {
		m.Actions = []hitl.PushAction{{Action: hitl.PushActionApprove, Title: "Approve"}, {Action: hitl.PushActionReject, Title: "Reject"}}
		m.ActionURL, m.ActionToken = n.PublicURL+"/push/action", n.ActionToken
	}
	return m
}

func short(s string) string {
	if utf8.RuneCountInString(s) <= maxBody {
		return s
	}
	r := []rune(s)
	return string(r[:maxBody-1]) + "…"
}
