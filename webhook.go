package hitl

import (
	"encoding/json"
	"time"
)

// Webhook events are the audit trail of webhook subscriptions, visible to admins only.
const (
	EventWebhookCreated = "webhook.created"
	EventWebhookDeleted = "webhook.deleted"
)

// Webhook is a subscription: the events of the listed types are delivered to URL, signed
// with the webhook's secret.
type Webhook struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	// Secret is shown once, in the answer to the creation; stores never return it in lists.
	Secret    string    `json:"secret,omitempty"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// WebhookRequest is the body of POST /v1/webhooks.
type WebhookRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

// DeliveryStatus is where a delivery is: pending until a receiver accepts it (delivered) or
// its retries run out (failed, retryable by hand).
type DeliveryStatus string

const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Valid reports whether s is one of the three statuses.
func (s DeliveryStatus) Valid() bool {
	return s == DeliveryPending || s == DeliveryDelivered || s == DeliveryFailed
}

// DeliveryKind says why a delivery was made.
type DeliveryKind string

const (
	DeliveryWebhook DeliveryKind = "webhook"
	// Resume callbacks: an inquiry's callback_url, or its session's.
	DeliveryInquiryCallback DeliveryKind = "inquiry_callback"
	DeliverySessionCallback DeliveryKind = "session_callback"
	// DeliveryBroker publishes an event to a message broker; its Channel names the broker
	// (BrokerAMQP, BrokerNATS) and its payload is the event's CloudEvent, as for a webhook.
	DeliveryBroker DeliveryKind = "broker"
)

// The message brokers events are published to.
const (
	BrokerAMQP = "amqp"
	BrokerNATS = "nats"
)

// Delivery is one event on its way to one URL: an outbox row. Its ID is the webhook-id header
// of every attempt, so receivers can recognise a message they already have.
type Delivery struct {
	ID        string       `json:"id"`
	Kind      DeliveryKind `json:"kind"`
	WebhookID string       `json:"webhook_id,omitempty"`
	URL       string       `json:"url"`
	// Target groups the deliveries that go to the same receiver, to bound what one slow
	// receiver may hold of the dispatcher: the webhook's ID, or the callback URL's host.
	Target    string `json:"-"`
	EventSeq  int64  `json:"event_seq"`
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	InquiryID *int64 `json:"inquiry_id"`
	Session   string `json:"session,omitempty"`
	// For notifications: the channel, who it is for (see Notification.Recipient), where it
	// goes, and why (with the reminder's number).
	Channel       string          `json:"channel,omitempty"`
	Recipient     string          `json:"recipient,omitempty"`
	Address       string          `json:"address,omitempty"`
	Reason        NotifyReason    `json:"reason,omitempty"`
	Status        DeliveryStatus  `json:"status"`
	Attempts      int             `json:"attempts"`
	NextAttemptAt *time.Time      `json:"next_attempt_at"`
	LastAttemptAt *time.Time      `json:"last_attempt_at"`
	LastStatus    int             `json:"last_status,omitempty"`
	LastError     string          `json:"last_error,omitempty"`
	LastResponse  string          `json:"last_response,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	DeliveredAt   *time.Time      `json:"delivered_at"`
	Payload       json.RawMessage `json:"-"` // the body every attempt sends
	// RetryFrom is when the current round of retries began: creation, or a retry by hand.
	RetryFrom time.Time `json:"-"`
	// Secret signs the attempts; filled only when a dispatcher claims the delivery.
	Secret string `json:"-"`
	// Thread is what a channel returned to reply to or update its message (an email
	// Message-ID, a Slack channel and ts), kept for the later notifications to the same
	// recipient by the same channel. For an A2A push (ChannelA2APush): the config's token,
	// which every attempt sends.
	Thread string `json:"-"`
	// Traceparent and Tracestate are the trace context of the event's inquiry (Inquiry's), which
	// every attempt carries on as its own child; "" for an event of no traced inquiry.
	Traceparent string `json:"-"`
	Tracestate  string `json:"-"`
}

// DeliveryFilter selects deliveries for a list, newest first.
type DeliveryFilter struct {
	Kind      DeliveryKind
	WebhookID string
	Status    DeliveryStatus
	InquiryID int64
	Session   string
	Page      Page
}

// Claim asks for the deliveries due at Now, oldest due first, at most Limit, and of each
// target at most PerTarget less its InFlight. The claimed ones are leased until LeaseUntil,
// after which another dispatcher may take them over (at-least-once when a node dies
// mid-delivery).
type Claim struct {
	Now        time.Time
	LeaseUntil time.Time
	Limit      int
	PerTarget  int
	InFlight   map[string]int
}

// Full lists the targets with no room left.
func (c Claim) Full() []string {
	full := []string{}
	for target, n := range c.InFlight {
		if n >= c.PerTarget {
			full = append(full, target)
		}
	}
	return full
}

// ClaimWindow is how many of the oldest due deliveries of targets with room a claim ranks
// per delivery it may take: enough to fill the limit across targets, while a long backlog
// costs each claim no more than that.
const ClaimWindow = 4
