package engine

import (
	"context"
	"slices"

	"github.com/hitl-dev/hitl"
)

// Message brokers. Every event a webhook may receive, and intake.rejected, becomes one broker
// delivery per configured broker when the outbox reads it (engine/deliveries.go): published at
// least once, by whichever node claims it, with the event's ID as the message's ID so that
// consumers (and JetStream) drop a repeat. What the message looks like is the adapter's
// concern (broker/amqp, broker/nats); which events go out is decided here.

// brokerEventTypes are the events published to the brokers.
var brokerEventTypes = append(slices.Clone(webhookEventTypes), hitl.EventIntakeRejected)

// maxRejectionReason bounds the reason an intake.rejected event keeps.
const maxRejectionReason = 2000

// RejectIntake records that an action result which came in by a broker was refused: an
// intake.rejected event with the reason, which the brokers publish and admins see in the log.
// The adapter has already refused the message (rejected, not requeued); this only tells.
func (e *Engine) RejectIntake(ctx context.Context, r hitl.IntakeRejection) error {
	if len(r.Reason) > maxRejectionReason {
		r.Reason = r.Reason[:maxRejectionReason] + "…"
	}
	now := e.clock()
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		ev, err = appendAuditEvent(tx, hitl.EventIntakeRejected, r, r.Source, now)
		return err
	})
	if err != nil {
		return err
	}
	e.published([]*hitl.Event{ev})
	e.log.Warn("an action result was rejected", "source", r.Source, "message_id", r.MessageID, "reason", r.Reason)
	return nil
}
