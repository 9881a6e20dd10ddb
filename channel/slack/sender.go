package slack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
)

// Send sends one of the engine's notifications by Slack (Client is the notify.Sender of the
// slack channel): a new inquiry, a reminder or an escalation is posted; a reminder or an
// escalation to someone who already has a message about the inquiry goes into its thread; an
// answered, timed out or cancelled inquiry has its messages updated, their buttons removed.
//
// The thread it returns names every message it posted about the inquiry to that address, so
// that the update reaches them all: "CHANNEL TS" for the first, and the thread replies'
// timestamps after it ("D0ADA 1700000000.000001 1700000000.000007").
func (c *Client) Send(ctx context.Context, n *notify.Notification) (notify.SendResult, error) {
	thread := parseThread(n.Thread)
	if n.Reason == hitl.ReasonResolved {
		return c.updateAll(ctx, thread, n.Inquiry)
	}
	m := Message{Inquiry: n.Inquiry, To: n.Address, Reason: Reason(n.Reason), InboxURL: n.InboxURL, OnBehalfOf: n.OnBehalfOf, TimeZone: n.TimeZone}
	if len(thread.messages) > 0 {
		m.Thread = thread.messages[0]
	}
	ref, err := c.Post(ctx, m)
	if err != nil {
		return notify.SendResult{}, forDispatcher(err)
	}
	return notify.SendResult{Thread: thread.with(ref).String(), Response: "posted " + ref.Channel + " " + ref.TS}, nil
}

// updateAll rewrites every message of the thread to show the inquiry's outcome. Updating a
// message twice shows the same, so a retry updates them all again.
func (c *Client) updateAll(ctx context.Context, thread messageThread, inq *hitl.Inquiry) (notify.SendResult, error) {
	if len(thread.messages) == 0 {
		// The first message was never delivered: there is nothing in Slack to update.
		return notify.SendResult{Response: "no Slack message to update"}, nil
	}
	var retryable, permanent error
	updated := 0
	for _, ref := range thread.messages {
		err := c.Update(ctx, ref, inq)
		var de *DeliveryError
		switch {
		case err == nil:
			updated++
		case errors.As(err, &de) && de.Permanent:
			if permanent == nil {
				permanent = err
			}
		case retryable == nil:
			retryable = err
		}
	}
	res := notify.SendResult{Response: fmt.Sprintf("updated %d of %d messages", updated, len(thread.messages))}
	switch {
	case retryable != nil:
		return res, forDispatcher(retryable) // try them all again: what failed may pass later
	case permanent != nil:
		return res, forDispatcher(permanent)
	}
	return res, nil
}

// forDispatcher says a failed call in the dispatcher's terms: wait as long as Slack asked,
// stop when trying again cannot help, else retry with backoff.
func forDispatcher(err error) error {
	var de *DeliveryError
	switch {
	case !errors.As(err, &de):
		return err
	case de.RetryAfter > 0:
		return &notify.RetryAfter{Wait: de.RetryAfter, Err: de}
	case de.Permanent:
		return &notify.PermanentError{Err: de}
	}
	return de
}

// maxThreadMessages bounds how many messages a thread remembers to update: the first and the
// newest replies. A reminder every few minutes for days would otherwise grow it without end.
const maxThreadMessages = 50

// messageThread is the messages about one inquiry to one address: the first, then its replies.
type messageThread struct{ messages []Ref }

// parseThread reads a thread as String wrote it; anything else is no thread.
func parseThread(s string) messageThread {
	f := strings.Fields(s)
	if len(f) < 2 {
		return messageThread{}
	}
	t := messageThread{}
	for _, ts := range f[1:] {
		t.messages = append(t.messages, Ref{Channel: f[0], TS: ts})
	}
	return t
}

// with adds a posted message: the first of a new thread, or a reply in this one.
func (t messageThread) with(ref Ref) messageThread {
	if len(t.messages) == 0 || t.messages[0].Channel != ref.Channel {
		return messageThread{messages: []Ref{ref}}
	}
	msgs := append(t.messages[:len(t.messages):len(t.messages)], ref)
	if len(msgs) > maxThreadMessages {
		msgs = append(msgs[:1:1], msgs[len(msgs)-maxThreadMessages+1:]...)
	}
	return messageThread{messages: msgs}
}

func (t messageThread) String() string {
	if len(t.messages) == 0 {
		return ""
	}
	parts := []string{t.messages[0].Channel}
	for _, m := range t.messages {
		parts = append(parts, m.TS)
	}
	return strings.Join(parts, " ")
}
