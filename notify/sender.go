package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hitl-dev/hitl"
)

// Sender sends notifications by one channel (email, Slack, chat webhooks). The engine decides
// who hears of what and makes each notification once; the dispatcher claims it, hands it to the
// Sender of its channel, and records the outcome, retrying with backoff as for webhooks. A
// Sender only renders and sends: it holds no rule of who may answer or who is told.
//
// Send is called at least once per notification: after a crash mid-send, again with the same
// ID. It returns nil once the channel accepted the message. Its error says why not, in words
// (it is shown to admins in the notification's list): a RetryAfter when the channel asked to
// wait (Slack's 429 with Retry-After), a PermanentError when trying again cannot help (the
// address does not exist, the webhook is gone), any other error to retry with backoff.
// ctx ends when the attempt's time is up or the server shuts down.
type Sender interface {
	Send(ctx context.Context, n *Notification) (SendResult, error)
}

// Notification is one message to send: what the engine made (the inquiry as the event left
// it, the recipient and address, the reason, the links), and what the dispatcher adds.
type Notification struct {
	hitl.Notification
	// ID is the delivery's ID, the same on every attempt: a channel that can carry it (an
	// email's Message-ID, an idempotency key) lets the receiver drop a repeat.
	ID string
	// Attempt is 1 for the first attempt, 2 for the first retry, ...
	Attempt int
	// Thread is what the newest delivered message of the inquiry to the same address by the
	// same channel returned as its SendResult.Thread ("" for none): the email to reply to, the
	// Slack message to update or thread under. A reminder, escalation or follow-up is held
	// back while the first message to that address is pending, so it finds the thread; when
	// the first message failed for good, it comes with none.
	Thread string
}

// SendResult is what a Sender tells of a message it sent.
type SendResult struct {
	// Thread identifies the message for the ones that follow it (an email's Message-ID,
	// Slack's "channel ts"); "" keeps the thread the message was sent in.
	Thread string
	// Response is a short note for the delivery's log (what the channel answered).
	Response string
}

// RetryAfter is a Sender's error when the channel asked to be left alone for a while: the
// next attempt comes no sooner than Wait (and no later than the dispatcher's RetryMax).
type RetryAfter struct {
	Wait time.Duration
	Err  error
}

func (e *RetryAfter) Error() string {
	return fmt.Sprintf("%v (asked to wait %s)", e.Err, e.Wait.Round(time.Second))
}

func (e *RetryAfter) Unwrap() error { return e.Err }

// PermanentError is a Sender's error that another attempt cannot cure: the notification
// fails at once (an admin may still retry it by hand).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// send hands a notification to its channel's Sender. It returns the outcome as post does,
// and whether the failure is for good.
func (d *Dispatcher) send(ctx context.Context, del *hitl.Delivery) (response string, retryAfter time.Duration, permanent bool, err error) {
	sender := d.o.Senders[del.Channel]
	if sender == nil {
		return "", 0, false, fmt.Errorf("this server sends no %s notifications: it has no %s configuration", del.Channel, del.Channel)
	}
	n := &Notification{ID: del.ID, Attempt: del.Attempts + 1}
	if err := json.Unmarshal(del.Payload, &n.Notification); err != nil {
		return "", 0, true, fmt.Errorf("the notification cannot be read: %w", err)
	}
	if del.Reason != hitl.ReasonCreated && del.InquiryID != nil {
		var firstPending bool
		if n.Thread, firstPending, err = d.store.NotificationThread(ctx, *del.InquiryID, del.Channel, del.Address); err != nil {
			return "", 0, false, fmt.Errorf("the thread of earlier messages cannot be read: %w", err)
		}
		// A follow-up waits for the message it follows, to land in its thread (or update it).
		if firstPending {
			return "", 0, false, fmt.Errorf("waiting for the first message to %s by %s to be sent", del.Recipient, del.Channel)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.AttemptTimeout)
	defer cancel()
	res, err := sender.Send(ctx, n)
	if res.Thread != "" {
		del.Thread = res.Thread
	}
	var wait *RetryAfter
	var perm *PermanentError
	switch {
	case err == nil:
	case errors.As(err, &wait):
		retryAfter = wait.Wait
	case errors.As(err, &perm):
		permanent = true
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		err = fmt.Errorf("no answer within %s", d.o.AttemptTimeout)
	}
	return limitResponse(res.Response), retryAfter, permanent, err
}

func limitResponse(s string) string {
	if len(s) > ResponseLimit {
		return s[:ResponseLimit]
	}
	return s
}
