package hitl

import "time"

// Web Push reaches a person's devices (a phone's lock screen, a desktop browser) through the
// push service of their browser (RFC 8030), with messages encrypted for the device (RFC 8291)
// and signed by the server's VAPID key (RFC 8292). Not to be confused with A2A's push
// notification configs (PushConfig), which post an inquiry's end to the agent that asked.

// ChannelWebPush is the channel of the notifications to a person's devices: a notification's
// Address is the device's push subscription endpoint.
const ChannelWebPush = "webpush"

// PushSubscription is one device of a person that turned on notifications in the inbox: where
// its browser's push service takes messages for it (Endpoint), and the keys that encrypt them
// for the device alone (P256DH, the device's public key, and Auth, its authentication secret,
// both base64url as the browser gives them).
type PushSubscription struct {
	Endpoint string `json:"endpoint"`
	Person   string `json:"person"`
	P256DH   string `json:"p256dh"`
	Auth     string `json:"auth"`
	// ExpiresAt is when the push service said the subscription ends (nil: it did not say).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// PushSubscriptionRequest is the body of POST /v1/me/push-subscriptions: the browser's
// PushSubscription as its toJSON() gives it.
type PushSubscriptionRequest struct {
	Endpoint string `json:"endpoint"`
	// ExpirationTime is in milliseconds since the epoch, or null.
	ExpirationTime *float64             `json:"expirationTime"`
	Keys           PushSubscriptionKeys `json:"keys"`
}

// PushSubscriptionKeys are a PushSubscription's keys, base64url as the browser gives them.
type PushSubscriptionKeys struct {
	P256DH string `json:"p256dh"`
	Auth   string `json:"auth"`
}

// PushMessage is what a device receives, decrypted: what its service worker shows. A message
// of one inquiry replaces the earlier one on the device (the same Tag).
type PushMessage struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	Tag   string `json:"tag"`
	// URL opens the inquiry's page when the notification is clicked.
	URL       string `json:"url"`
	InquiryID int64  `json:"inquiry_id"`
	Reason    string `json:"reason"`
	// Actions are the buttons of an approval ("approve", "reject"); ActionURL is where the
	// service worker posts the chosen one with ActionToken, which answers once, for this
	// person, on this device. None once the inquiry is resolved.
	Actions     []PushAction `json:"actions,omitempty"`
	ActionURL   string       `json:"action_url,omitempty"`
	ActionToken string       `json:"action_token,omitempty"`
}

// The actions of an approval's notification.
const (
	PushActionApprove = "approve"
	PushActionReject  = "reject"
)

// PushAction is one button of a notification.
type PushAction struct {
	Action string `json:"action"`
	Title  string `json:"title"`
}

// PushActionRequest is what a service worker posts to answer from a notification.
type PushActionRequest struct {
	Token  string `json:"token"`
	Action string `json:"action"`
}
