package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
)

// Push configs: where an inquiry's end is posted for the agent that asked it (A2A's push
// notifications of the inquiry's task). The agent that asked, or an admin, keeps them; each is
// a delivery of the inquiry's end through the outbox, as a resume callback is (retried, behind
// the address guard), with the config's token in its own header. Which deliveries there are is
// decided here; what their body says is the protocol's (Options.PushBody).

// maxPushConfigs bounds the configs of one inquiry.
const maxPushConfigs = 10

// maxPushField bounds a config's ID and token.
const maxPushField = 500

// pushEventTypes are the events that push: the inquiry's end.
var pushEventTypes = []string{hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled}

// PushConfigs lists the push configs of inquiry id, to the agent that asked it and admins.
func (e *Engine) PushConfigs(ctx context.Context, p *hitl.Principal, id int64) ([]*hitl.PushConfig, error) {
	if _, err := e.pushInquiry(ctx, p, id); err != nil {
		return nil, err
	}
	return e.store.PushConfigs(ctx, []int64{id})
}

// CheckPushConfig reports what SetPushConfig would refuse in c itself (its URL, behind the
// address guard, and the lengths of its ID and token): for an agent that sets it with its
// question, checked before the question is asked.
func (e *Engine) CheckPushConfig(ctx context.Context, c hitl.PushConfig) error {
	var bad problems
	if c.URL == "" {
		bad.add("/url", "is required: where the inquiry's end is posted")
	} else {
		e.checkURL(ctx, &bad, "/url", c.URL)
	}
	if utf8.RuneCountInString(c.ID) > maxPushField {
		bad.add("/id", "must be at most %d characters", maxPushField)
	}
	if utf8.RuneCountInString(c.Token) > maxPushField {
		bad.add("/token", "must be at most %d characters", maxPushField)
	}
	return bad.err("invalid push notification config")
}

// SetPushConfig stores a push config of inquiry id (a new ID when c has none; the same ID
// again replaces its URL, token and version), while the inquiry is pending: it pushes the
// inquiry's end. The inquiry is read again in the change's transaction, which holds its row
// (PostgreSQL): a config is either stored before the inquiry ends, and pushed, or refused.
func (e *Engine) SetPushConfig(ctx context.Context, p *hitl.Principal, id int64, c hitl.PushConfig) (*hitl.PushConfig, error) {
	if _, err := e.pushInquiry(ctx, p, id); err != nil {
		return nil, err
	}
	if err := e.CheckPushConfig(ctx, c); err != nil {
		return nil, err
	}
	if c.ID == "" {
		c.ID = strings.ReplaceAll(uuid.NewString(), "-", "")
	}
	c.InquiryID, c.CreatedBy, c.CreatedAt = id, p.Name, e.clock()
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		inq, err := tx.Inquiry(id)
		if err != nil {
			return err
		}
		if inq.Status.Final() {
			return hitl.Errorf(hitl.EConflict, "inquiry %d is %s: its end has been told; nothing more will be pushed", id, inq.Status)
		}
		existing, err := tx.InquiryPushConfigs(id)
		if err != nil {
			return err
		}
		replaces := slices.ContainsFunc(existing, func(x *hitl.PushConfig) bool { return x.ID == c.ID })
		if !replaces && len(existing) >= maxPushConfigs {
			return hitl.Errorf(hitl.EConflict, "inquiry %d has %d push configs, the most it may have; delete one first", id, maxPushConfigs)
		}
		return tx.PutPushConfig(&c)
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// DeletePushConfig removes a push config of inquiry id (ENotFound).
func (e *Engine) DeletePushConfig(ctx context.Context, p *hitl.Principal, id int64, configID string) error {
	if _, err := e.pushInquiry(ctx, p, id); err != nil {
		return err
	}
	return e.store.Update(ctx, func(tx hitl.Tx) error { return tx.DeletePushConfig(id, configID) })
}

// pushInquiry reads inquiry id for a change of its push configs: those who may cancel it may.
func (e *Engine) pushInquiry(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Inquiry, error) {
	if e.pushBody == nil {
		return nil, hitl.Errorf(hitl.EUnavailable, "push notifications are not served by this server")
	}
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return inq, mayCancel(p, inq)
}

// pushDeliveries adds the push deliveries of the events that end inquiries with push configs.
func (e *Engine) pushDeliveries(ctx context.Context, out *[]*hitl.Delivery, now time.Time, evs []*hitl.Event) error {
	if e.pushBody == nil {
		return nil
	}
	var ends []*hitl.Event
	var ids []int64
	for _, ev := range evs {
		if ev.InquiryID != nil && slices.Contains(pushEventTypes, ev.Type) {
			ends, ids = append(ends, ev), append(ids, *ev.InquiryID)
		}
	}
	configs, err := e.store.PushConfigs(ctx, ids) // none asked: no query
	if err != nil || len(configs) == 0 {
		return err
	}
	for _, ev := range ends {
		var inq *hitl.Inquiry
		for _, c := range configs {
			if c.InquiryID != *ev.InquiryID {
				continue
			}
			if inq == nil {
				if err := json.Unmarshal(ev.Data, &inq); err != nil {
					e.log.Error("an event cannot be read for its push notifications", "seq", ev.Seq, "err", err)
					break
				}
			}
			body, err := e.pushBody(inq, c.Version)
			if err != nil {
				return err
			}
			d := addPayload(out, now, hitl.DeliveryInquiryCallback, ev, c.URL, hostOf(c.URL), "", body)
			d.Channel, d.Thread = hitl.ChannelA2APush, c.Token
		}
	}
	return nil
}
