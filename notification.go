package hitl

import "time"

// Chat webhook events are the audit trail of chat webhook subscriptions, visible to admins only.
const (
	EventChatWebhookCreated = "chat_webhook.created"
	EventChatWebhookDeleted = "chat_webhook.deleted"
)

// DeliveryNotification is a message to a person, a group or a room, by one channel: an
// outbox delivery whose payload is a Notification.
const DeliveryNotification DeliveryKind = "notification"

// Notified is one the notifications of an inquiry went to, by one channel to one address.
type Notified struct {
	Recipient, Channel, Address string
}

// NotifyReason says why a notification is sent.
type NotifyReason string

const (
	ReasonCreated    NotifyReason = "created"
	ReasonReminder   NotifyReason = "reminder"
	ReasonEscalation NotifyReason = "escalation"
	// ReasonResolved follows up on an earlier message once the inquiry is answered, timed
	// out or cancelled, so that the channel can update it or reply in its thread.
	ReasonResolved NotifyReason = "resolved"
)

// Recipients that are not a person: "group:NAME" is a group's own contact point, and these.
const (
	// RecipientDefault is the server's default destinations, for unassigned inquiries.
	RecipientDefault = "default"
)

// Notification is what a channel is asked to say: the payload of a notification delivery,
// made by the engine when it reads the event that asks for it.
type Notification struct {
	Channel string       `json:"channel"`
	Reason  NotifyReason `json:"reason"`
	// Reminder is the reminder's number (1, 2, ...) for ReasonReminder.
	Reminder int `json:"reminder,omitempty"`
	// Recipient is who the message is for: a person's name, "group:NAME", "default", or a
	// chat webhook's ID.
	Recipient string `json:"recipient"`
	// DisplayName is how the recipient is greeted (the person's display name, else its name).
	DisplayName string `json:"display_name,omitempty"`
	// OnBehalfOf is the absent person whose message this is: the recipient is their delegate.
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	// TimeZone is the recipient person's IANA zone, in which the message shows times; "" is
	// UTC (groups, rooms, default destinations, people without one).
	TimeZone string `json:"time_zone,omitempty"`
	// Address is where it goes by Channel: an email address, a Slack user or channel ID, a
	// chat webhook's ID (its URL is a credential: the sender looks it up when it posts).
	Address string `json:"address"`
	// ChatKind is the chat webhook's kind (slack, teams, google_chat, discord).
	ChatKind string `json:"chat_kind,omitempty"`
	// Event is the type of the event that asked for this notification.
	Event string `json:"event"`
	// Inquiry is the inquiry as that event left it.
	Inquiry *Inquiry `json:"inquiry"`
	// Added are the assignees an escalation added (ReasonEscalation).
	Added []string `json:"added,omitempty"`
	// PublicURL is the server's address; InboxURL the inquiry's page in the web inbox, where
	// anyone may answer after signing in (InboxURL + "?answer=VALUE" preselects an option).
	PublicURL string `json:"public_url"`
	InboxURL  string `json:"inbox_url"`
	// AnswerToken is a signed answer link for a person (not for groups, default destinations or
	// rooms), valid until AnswerExpires; AnswerURL opens it (+ "?option=VALUE" ticks an option).
	AnswerToken   string     `json:"answer_token,omitempty"`
	AnswerURL     string     `json:"answer_url,omitempty"`
	AnswerExpires *time.Time `json:"answer_expires,omitempty"`
	// ActionToken answers a plain approval from a web push notification's Approve and Reject
	// buttons, once, for this person on this device (web push to a person only); the device's
	// service worker posts it to PublicURL + "/push/action".
	ActionToken string `json:"action_token,omitempty"`
	// ReplyToken lets a person answer an email by replying to reply+TOKEN@ the mail domain
	// (email to a person only); the reply server opens it with the engine's OpenReply.
	ReplyToken string `json:"reply_token,omitempty"`
}

// Destination is one place a message goes without a person: a channel and an address
// (the server's default destinations, "slack:C012AB3CD").
type Destination struct {
	Channel string `json:"channel"`
	Address string `json:"address"`
}

// Chat webhook kinds: the incoming-webhook shapes hitl can post.
const (
	ChatSlack      = "slack"
	ChatTeams      = "teams"
	ChatGoogleChat = "google_chat"
	ChatDiscord    = "discord"
)

// ChatKinds lists the chat webhook kinds.
var ChatKinds = []string{ChatSlack, ChatTeams, ChatGoogleChat, ChatDiscord}

// ChatWebhook posts a message about inquiries to a chat room's incoming webhook, on the listed
// events, with links to answer in the browser.
type ChatWebhook struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// ChatWebhookRequest is the body of POST /v1/chat-webhooks; Events defaults to inquiry.created.
type ChatWebhookRequest struct {
	Kind   string   `json:"kind"`
	URL    string   `json:"url"`
	Events []string `json:"events,omitempty"`
}
