package email

import (
	"context"
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
)

// Channel is email as the notification dispatcher sees it (a notify.Sender): it makes the
// Message of a notification the engine routed, and sends it.
type Channel struct {
	sender  *Sender
	replies bool
}

// NewChannel sends notifications through sender. With replies, messages to a person invite an
// answer by reply (Reply-To: reply+TOKEN@Domain): set it only when a ReplyServer takes the
// domain's mail, or replies would go nowhere.
func NewChannel(sender *Sender, replies bool) *Channel {
	return &Channel{sender: sender, replies: replies}
}

// Send sends one notification. Its Message-ID is made from the delivery's ID, so that a retry
// after a lost acknowledgement is the same message; the first message of a thread returns it
// as the thread that reminders and the resolved notice answer.
func (c *Channel) Send(ctx context.Context, n *notify.Notification) (notify.SendResult, error) {
	if n.Inquiry == nil {
		return notify.SendResult{}, &notify.PermanentError{Err: errors.New("the notification has no inquiry to tell of")}
	}
	m := Message{
		Inquiry:    n.Inquiry,
		To:         Recipient{Address: n.Address, Name: n.DisplayName},
		Reason:     Reason(n.Reason),
		ThreadRoot: n.Thread,
		InboxURL:   n.InboxURL,
		OnBehalfOf: n.OnBehalfOf,
		TimeZone:   n.TimeZone,
	}
	if n.ID != "" {
		m.ID = n.ID + "@" + c.sender.cfg.Domain
	}
	switch {
	case n.Reason == hitl.ReasonResolved:
	case n.AnswerURL != "":
		// A person's own link, which answers as that person after a confirmation.
		m.To.Principal = n.Recipient
		m.Buttons = OptionButtons(n.Inquiry, n.AnswerURL)
		if c.replies {
			m.ReplyToken = n.ReplyToken
		}
	case n.InboxURL != "":
		// A list or a shared address: whoever follows a button signs in to answer as themselves.
		m.Buttons = InboxButtons(n.Inquiry, n.InboxURL)
	}
	id, err := c.sender.Send(ctx, m)
	if err != nil {
		if IsPermanent(err) {
			return notify.SendResult{}, &notify.PermanentError{Err: err}
		}
		return notify.SendResult{}, err
	}
	res := notify.SendResult{Response: "sent as <" + id + ">"}
	if n.Thread == "" {
		res.Thread = id // this message starts the thread; the others keep it
	}
	return res, nil
}
