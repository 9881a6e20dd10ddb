package hitl

import "time"

// PushConfig is where an inquiry's changes are posted for the agent that asked it: A2A's push
// notification config of the inquiry's task. Its deliveries go through the outbox as the
// inquiry's callbacks do (retried, behind the same address guard), with Token in the header
// X-A2A-Notification-Token so that the receiver knows they are its own.
type PushConfig struct {
	InquiryID int64  `json:"inquiry_id"`
	ID        string `json:"id"`
	URL       string `json:"url"`
	Token     string `json:"token,omitempty"`
	// Version is the A2A version of the request that set the config ("1.0"; "" for 0.3), whose
	// shapes its body takes, as A2A's own servers do.
	Version   string    `json:"version,omitempty"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// ChannelA2APush is the Channel of a delivery of a PushConfig (an inquiry callback): its body
// is A2A's Task, and its Thread holds the config's token.
const ChannelA2APush = "a2a-push"
