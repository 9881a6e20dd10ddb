package hitl

import "time"

// People and groups are how hitl reaches the humans it asks: a person is the principal of the
// same name (the name of its keys), with the addresses where messages find them; a group
// (group:NAME in assignments) may have shared contact points of its own. Their changes are
// events, visible to admins only, like key events.
const (
	EventPersonUpdated = "person.updated"
	EventPersonDeleted = "person.deleted"
	EventGroupUpdated  = "group.updated"
	EventGroupDeleted  = "group.deleted"
)

// Channels a notification may go by. Email and Slack reach people and groups; chat webhooks
// post to a room that an admin subscribed (see ChatWebhook).
const (
	ChannelEmail       = "email"
	ChannelSlack       = "slack"
	ChannelChatWebhook = "chat_webhook"
)

// PersonChannels are the channels a person (or a group, or a default destination) may be
// reached by, in the order a person's messages are made.
var PersonChannels = []string{ChannelEmail, ChannelSlack}

// NotifyChannels are the channels an inquiry's notify may narrow its notifications to: a
// person's, and their devices (ChannelWebPush).
var NotifyChannels = []string{ChannelEmail, ChannelSlack, ChannelWebPush}

// Person is where one principal is reached.
type Person struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Email       string `json:"email"`
	SlackUserID string `json:"slack_user_id"`
	// Channels are the channels the person wants messages by; empty: every channel the
	// person has an address for.
	Channels []string `json:"channels"`
	// TimeZone is the person's IANA time zone ("Europe/Berlin"): the zone of their working
	// hours and of the times their messages and pages show; "" is UTC.
	TimeZone string `json:"time_zone"`
	// WorkingHours are the hours the person works, by day (see WorkingHours); none: always.
	WorkingHours WorkingHours `json:"working_hours,omitempty"`
	UpdatedAt    time.Time    `json:"updated_at"`
	// Absence is the person's absence that has not ended yet, when there is one (GET only: it
	// is set by PUT /v1/people/{name}/absence).
	Absence *Absence `json:"absence,omitempty"`
}

// Location is the zone of an IANA name as people there read times: UTC for "" or for a zone
// this server has no data for (a name is checked when a person is put).
func Location(zone string) *time.Location {
	if zone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// WorkingHours maps days ("mon" … "sun") to one working window each, [start, end) as
// "HH:MM" in the person's time zone: {"mon": ["09:00", "17:00"]}. A day left out is off.
type WorkingHours map[string][]string

// Weekdays are the days of WorkingHours, indexed by time.Weekday.
var Weekdays = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// Address is where the person is reached by the channel: their email address or Slack user id.
func (p *Person) Address(channel string) string {
	if channel == ChannelSlack {
		return p.SlackUserID
	}
	return p.Email
}

// PersonRequest is the body of PUT /v1/people/{name}: it replaces the person whole; every
// field is optional.
type PersonRequest struct {
	DisplayName string   `json:"display_name,omitempty"`
	Email       string   `json:"email,omitempty"`
	SlackUserID string   `json:"slack_user_id,omitempty"`
	Channels    []string `json:"channels,omitempty"`
	// TimeZone is an IANA zone name; WorkingHours see Person.
	TimeZone     string       `json:"time_zone,omitempty"`
	WorkingHours WorkingHours `json:"working_hours,omitempty"`
}

// Group holds the shared contact points of a group: a message to the group goes there, once,
// rather than to each of its members.
type Group struct {
	Name         string    `json:"name"`
	Email        string    `json:"email"`
	SlackChannel string    `json:"slack_channel"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// GroupRequest is the body of PUT /v1/groups/{name}; it replaces the group whole.
type GroupRequest struct {
	Email        string `json:"email,omitempty"`
	SlackChannel string `json:"slack_channel,omitempty"`
}
