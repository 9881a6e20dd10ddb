// Package slack reaches people in Slack for hitl: it posts an inquiry as a Block Kit message
// (the prompt, its context, one button per option or Approve / Reject, an "Answer…" button
// that opens a form for schema answers, a link to the inbox), updates that message once the
// inquiry is final, and takes the clicks and form submissions back (POST /slack/interactions,
// POST /slack/commands for /hitl).
//
// It is an adapter: it maps Slack's shapes to engine calls and back and decides nothing. Who
// a Slack user is comes from the Engine (the people's slack_user_id); whether that person may
// answer, and whether the answer fits, is the engine's Respond. What to post, to whom and
// when is the outbox's decision: this package sends one message when told to, and classifies
// Slack's failures (DeliveryError) so that the dispatcher retries what may pass later and
// stops on what never will.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	slackapi "github.com/slack-go/slack"
)

// Environment variables that configure the Slack channel (read by the server's wiring).
const (
	EnvBotToken      = "HITL_SLACK_BOT_TOKEN"
	EnvSigningSecret = "HITL_SLACK_SIGNING_SECRET"
	EnvAPIURL        = "HITL_SLACK_API_URL"
)

// DefaultAPIURL is Slack's Web API; tests point APIURL at a local server instead.
const DefaultAPIURL = slackapi.APIURL

// Config is how hitl talks to one Slack app.
type Config struct {
	// BotToken is the app's bot token (xoxb-…), for the Web API.
	BotToken string
	// SigningSecret verifies that interactions and slash commands come from Slack.
	SigningSecret string
	// APIURL is the Web API's base URL, ending in "/"; "" is Slack's.
	APIURL string
	// PublicURL is how people reach hitl (https://hitl.example.com), for the links to an
	// inquiry's page in the inbox that messages carry; "" leaves the link out where a
	// Message does not name one.
	PublicURL string
}

// ConfigFromEnv reads the HITL_SLACK_* variables through getenv (os.Getenv in the server).
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		BotToken:      getenv(EnvBotToken),
		SigningSecret: getenv(EnvSigningSecret),
		APIURL:        getenv(EnvAPIURL),
	}
}

// Enabled reports whether Slack is configured at all: without a bot token the channel is off.
func (c Config) Enabled() bool { return c.BotToken != "" || c.SigningSecret != "" }

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var problems []string
	if c.BotToken == "" {
		problems = append(problems, "the bot token (--slack-bot-token, "+EnvBotToken+") is required to post to Slack: the app's xoxb-… token")
	}
	if c.SigningSecret == "" {
		problems = append(problems, "the signing secret (--slack-signing-secret, "+EnvSigningSecret+") is required to accept Slack's clicks: the app's Basic Information, App Credentials")
	}
	if c.APIURL != "" {
		u, err := url.Parse(c.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, "the API URL (--slack-api-url, "+EnvAPIURL+") must be an http or https URL, such as https://slack.com/api/")
		}
	}
	if len(problems) > 0 {
		return errors.New("slack: " + strings.Join(problems, "; "))
	}
	return nil
}

// Client posts and updates inquiry messages through Slack's Web API.
type Client struct {
	api       *slackapi.Client
	publicURL string
	log       *slog.Logger
}

// requestTimeout bounds one call to Slack: a click's handler makes one or two within Slack's
// three seconds, and the dispatcher retries a post that took too long.
const requestTimeout = 10 * time.Second

// New makes a client. httpClient may be nil: one with a timeout is made (never
// http.DefaultClient, which waits forever). Retrying is left to the caller (the outbox
// dispatcher), so slack-go's own retries stay off.
func New(cfg Config, httpClient *http.Client, log *slog.Logger) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: requestTimeout}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	apiURL := cfg.APIURL
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/" // slack-go appends the method's name
	}
	api := slackapi.New(cfg.BotToken, slackapi.OptionAPIURL(apiURL), slackapi.OptionHTTPClient(httpClient))
	return &Client{api: api, publicURL: strings.TrimSuffix(cfg.PublicURL, "/"), log: log}, nil
}

// inboxURL is the link to an inquiry's page in the inbox, "" when hitl's public URL is unknown.
func (c *Client) inboxURL(id int64) string {
	if c.publicURL == "" {
		return ""
	}
	return fmt.Sprintf("%s/inquiries/%d", c.publicURL, id)
}

// pendingURL is the inbox's list of pending inquiries, soonest deadline first, as /hitl
// lists them; "" when hitl's public URL is unknown.
func (c *Client) pendingURL() string {
	if c.publicURL == "" {
		return ""
	}
	return c.publicURL + "/?tab=pending&sort=deadline"
}

// Reason is why a message is sent; it changes the message's first line, and a reminder goes
// into the thread of the message before it.
type Reason string

const (
	ReasonCreated    Reason = "created"
	ReasonReminder   Reason = "reminder"
	ReasonEscalation Reason = "escalation"
)

// Ref is where a posted message is: its conversation and timestamp, what chat.update and a
// thread reply need. The outbox keeps it with the delivery.
type Ref struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// IsZero reports whether the ref names no message.
func (r Ref) IsZero() bool { return r.Channel == "" || r.TS == "" }

// Message is one notification about an inquiry to one Slack destination.
type Message struct {
	Inquiry *hitl.Inquiry
	// To is a user id (U…/W…, the message goes to the app's direct messages with that person)
	// or a conversation id (C…/G…).
	To     string
	Reason Reason
	// Thread is the earlier message about the inquiry: a reminder or escalation replies in its
	// thread. The zero Ref posts a new message.
	Thread Ref
	// InboxURL links to the inquiry's page; "" uses the client's PublicURL.
	InboxURL string
	// OnBehalfOf is the away person whose message this was: To is their delegate.
	OnBehalfOf string
	// TimeZone is the person's IANA zone, in which the message shows times ("": UTC, for
	// channels and people without one).
	TimeZone string
}

// Post sends the message and returns where it is, for Update and thread replies.
func (c *Client) Post(ctx context.Context, m Message) (Ref, error) {
	if m.Inquiry == nil {
		return Ref{}, &DeliveryError{Method: "chat.postMessage", Permanent: true, Err: errors.New("no inquiry to post")}
	}
	channel := m.To
	d := full
	d.zone = hitl.Location(m.TimeZone)
	blocks := inquiryBlocks(m.Inquiry, m.Reason, c.linkFor(m.Inquiry.ID, m.InboxURL), d)
	if line := delegateLine(m.OnBehalfOf); line != "" {
		blocks = append([]slackapi.Block{slackapi.NewContextBlock("", mrkdwn(line))}, blocks...)
	}
	opts := messageOptions(fallbackText(m.Inquiry, m.Reason), blocks)
	if !m.Thread.IsZero() {
		channel = m.Thread.Channel // a thread lives in the conversation of its first message
		opts = append(opts, slackapi.MsgOptionTS(m.Thread.TS))
	}
	if channel == "" {
		return Ref{}, &DeliveryError{Method: "chat.postMessage", Permanent: true, Err: errors.New("no Slack user or channel to post to")}
	}
	gotChannel, ts, err := c.api.PostMessageContext(ctx, channel, opts...)
	if err != nil {
		return Ref{}, classify("chat.postMessage", err)
	}
	return Ref{Channel: gotChannel, TS: ts}, nil
}

// Update rewrites a posted message to show the inquiry's outcome, without buttons: once it is
// final nothing in the message may answer it any more. Updating an inquiry still pending
// redraws its buttons.
func (c *Client) Update(ctx context.Context, ref Ref, inq *hitl.Inquiry) error {
	return c.redraw(ctx, ref, inq, "")
}

// redraw is Update showing times in timeZone ("": UTC), as Post did for the message.
func (c *Client) redraw(ctx context.Context, ref Ref, inq *hitl.Inquiry, timeZone string) error {
	if ref.IsZero() {
		return &DeliveryError{Method: "chat.update", Permanent: true, Err: errors.New("no message to update")}
	}
	d := full
	d.zone = hitl.Location(timeZone)
	_, _, _, err := c.api.UpdateMessageContext(ctx, ref.Channel, ref.TS,
		messageOptions(fallbackText(inq, ""), inquiryBlocks(inq, "", c.inboxURL(inq.ID), d))...)
	if err != nil {
		return classify("chat.update", err)
	}
	return nil
}

// messageOptions are a message's text and blocks, within Slack's limits.
func messageOptions(text string, blocks []slackapi.Block) []slackapi.MsgOption {
	text, blocks = fitMessage(text, blocks)
	return []slackapi.MsgOption{slackapi.MsgOptionText(text, false), slackapi.MsgOptionBlocks(blocks...)}
}

// linkFor is the message's link to the inbox: the one given, else the client's.
func (c *Client) linkFor(id int64, given string) string {
	if given != "" {
		return given
	}
	return c.inboxURL(id)
}

// tell sends user a message only they see, in the conversation they clicked in: refusals and
// confirmations that concern nobody else.
func (c *Client) tell(ctx context.Context, channel, user, text string) {
	if channel == "" {
		c.log.Warn("slack: nowhere to tell the user", "slack_user", user, "text", text)
		return
	}
	_, err := c.api.PostEphemeralContext(ctx, channel, user, slackapi.MsgOptionText(cutMrkdwn(text, maxMessageText), false))
	if err != nil {
		c.log.Warn("slack: telling the user failed", "slack_user", user, "err", classify("chat.postEphemeral", err))
	}
}

// DeliveryError is a failed call to Slack's Web API, classified for the dispatcher: retry
// after RetryAfter when Slack says so (429), retry with backoff when Slack or the network
// failed, and stop when Permanent (a revoked token, a channel that does not exist): the same
// message would fail the same way every time.
type DeliveryError struct {
	Method string // the Web API method, "chat.postMessage"
	// Code is Slack's error code ("channel_not_found"), "" when Slack gave none.
	Code       string
	Permanent  bool
	RetryAfter time.Duration // Slack's Retry-After on 429; 0 otherwise
	Err        error
}

func (e *DeliveryError) Error() string {
	switch {
	case e.RetryAfter > 0:
		return fmt.Sprintf("slack %s: rate limited, retry after %s", e.Method, e.RetryAfter)
	case e.Code != "":
		return fmt.Sprintf("slack %s: %s", e.Method, e.Code)
	}
	return fmt.Sprintf("slack %s: %v", e.Method, e.Err)
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Retryable reports whether sending again may succeed.
func (e *DeliveryError) Retryable() bool { return !e.Permanent }

// transientCodes are Slack's error codes that a later try may not get: Slack's own trouble.
// Any other code (invalid_auth, channel_not_found, not_in_channel, msg_too_long, ...) says
// the request itself is wrong, and is permanent.
var transientCodes = map[string]bool{
	"ratelimited":         true,
	"internal_error":      true,
	"fatal_error":         true,
	"service_unavailable": true,
	"request_timeout":     true,
}

// classify turns slack-go's errors into a DeliveryError.
func classify(method string, err error) error {
	out := &DeliveryError{Method: method, Err: err}
	var limited *slackapi.RateLimitedError
	var status slackapi.StatusCodeError
	var api slackapi.SlackErrorResponse
	var netErr net.Error
	switch {
	case errors.As(err, &limited):
		out.RetryAfter = limited.RetryAfter
	case errors.As(err, &status):
		// 5xx and 429 without Retry-After pass later; any other status will not.
		out.Permanent = status.Code < 500 && status.Code != http.StatusTooManyRequests
		out.Code = strconv.Itoa(status.Code)
	case errors.As(err, &api):
		out.Code = api.Err
		out.Permanent = !transientCodes[api.Err]
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		// the network or a shutdown: try again
	default:
		// A body that is not Slack's JSON: a proxy's error page, a broken answer; try again.
	}
	return out
}
