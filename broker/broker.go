// Package broker holds what the message broker adapters (broker/amqp, broker/nats) share: the
// choice of the messages' shape (the webhook's CloudEvent, or Attune's payloads, which
// protocol/attune/executor maps) and the reading of the action results they take in. Which events go
// out, and what an action result does, is the engine's decision; this package only maps shapes.
package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
	"github.com/hitl-dev/hitl/protocol/attune/executor"
)

// Message formats.
const (
	// FormatCloudEvents publishes the webhook's body: a CloudEvents 1.0 event in structured JSON.
	FormatCloudEvents = "cloudevents"
	// FormatAttune publishes the Attune executor's payloads (inquiry_id, execution_id, ...).
	FormatAttune = "attune"
)

// CheckFormat says in words what is wrong with a format's name.
func CheckFormat(format string) error {
	if format != FormatCloudEvents && format != FormatAttune {
		return fmt.Errorf("%q is not a message format; use %s or %s", format, FormatCloudEvents, FormatAttune)
	}
	return nil
}

// Identities looks up the integer identities of principals by name (the engine's IdentityIDs),
// which Attune's payloads name people by.
type Identities = executor.Identities

// Render returns the body of m in format and its content type; ids gives Attune's payloads
// their integer assignee. A body that cannot be read is a PermanentError: no attempt can
// publish it.
func Render(ctx context.Context, format string, m *notify.Message, ids Identities) (body []byte, contentType string, err error) {
	if format != FormatAttune {
		return m.Body, "application/cloudevents+json", nil
	}
	var ce struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(m.Body, &ce); err != nil {
		return nil, "", &notify.PermanentError{Err: fmt.Errorf("%w: %w", executor.ErrUnreadable, err)}
	}
	body, err = executor.Payload(ctx, m.Type, ce.Data, ids)
	if errors.Is(err, executor.ErrUnreadable) {
		return nil, "", &notify.PermanentError{Err: err}
	}
	if err != nil {
		return nil, "", err
	}
	return body, "application/json", nil
}

// Engine is what the intake asks of the engine: to take an action result exactly as
// POST /api/v1/executions/{id}/result does, and to record one it refused.
type Engine interface {
	Identities
	IntakeActionResult(ctx context.Context, p *hitl.Principal, executionID string, result json.RawMessage) (inq *hitl.Inquiry, created bool, err error)
	RejectIntake(ctx context.Context, r hitl.IntakeRejection) error
}

// Outcome is what an adapter does with a message it took.
type Outcome int

const (
	// Ack: the result is committed (or needed nothing).
	Ack Outcome = iota
	// Reject: the message can never be taken; refused without requeue, and recorded.
	Reject
	// Retry: taking it failed for now (the database is down); deliver it again later.
	Retry
)

// Intake takes action results from one source ("amqp:QUEUE", "nats:SUBJECT") as Principal.
type Intake struct {
	Engine    Engine
	Principal *hitl.Principal
	Source    string
}

// NewIntake returns the intake of one source, whose results are taken as the principal
// NAME-intake (amqp-intake, nats-intake): an agent, as a worker posting results by REST is.
func NewIntake(eng Engine, name, source string) *Intake {
	return &Intake{Engine: eng, Source: source, Principal: &hitl.Principal{Name: name + "-intake", Roles: []string{hitl.RoleAgent}}}
}

// Handle takes one message and settles it with the broker: ack after the commit, reject (never
// to be delivered again) when it can never be taken, retry when taking it failed for now.
func (in *Intake) Handle(ctx context.Context, log *slog.Logger, messageID string, body []byte, ack, reject, retry func() error) {
	outcome, err := in.Take(ctx, messageID, body)
	switch outcome {
	case Ack:
		err = ack()
	case Reject:
		log.Warn("rejected an intake message", "message_id", messageID, "reason", err)
		err = reject()
	case Retry:
		log.Warn("an intake message could not be taken now; it will be delivered again", "message_id", messageID, "err", err)
		err = retry()
	}
	if err != nil && ctx.Err() == nil {
		log.Warn("settling an intake message failed; the broker will deliver it again", "message_id", messageID, "err", err)
	}
}

// actionResult is an intake message's body: {"execution_id", "result"}, or the same in "payload".
type actionResult struct {
	ExecutionID json.RawMessage `json:"execution_id"`
	Result      json.RawMessage `json:"result"`
	Payload     *actionResult   `json:"payload"`
}

// Take applies one message: the action result it carries goes to the engine; a message that
// cannot be read, or whose __inquiry the engine refuses, is recorded as intake.rejected. The
// error says why when the outcome is Reject or Retry.
func (in *Intake) Take(ctx context.Context, messageID string, body []byte) (Outcome, error) {
	execution, result, err := readActionResult(body)
	if err == nil {
		_, _, err = in.Engine.IntakeActionResult(ctx, in.Principal, execution, result)
		switch hitl.ErrorCode(err) {
		case "":
			return Ack, nil
		case hitl.EInternal, hitl.EUnavailable, hitl.ERateLimited:
			return Retry, err
		}
		err = errors.New(inWords(err))
	}
	if rerr := in.Engine.RejectIntake(ctx, hitl.IntakeRejection{Source: in.Source, MessageID: messageID, ExecutionID: execution, Reason: err.Error()}); rerr != nil {
		return Retry, fmt.Errorf("recording the rejection failed: %w", rerr)
	}
	return Reject, err
}

// readActionResult reads an intake body: the execution's ID (a string or an integer) and its result.
func readActionResult(body []byte) (execution string, result json.RawMessage, err error) {
	var m actionResult
	if err := json.Unmarshal(body, &m); err != nil {
		return "", nil, fmt.Errorf(`the body is not a JSON object {"execution_id", "result"}: %w`, err)
	}
	if m.Payload != nil {
		m = *m.Payload
	}
	if hitl.IsNull(m.ExecutionID) {
		return "", nil, errors.New(`the body has no execution_id: send {"execution_id": ..., "result": {...}}`)
	}
	var n json.Number
	if err := json.Unmarshal(m.ExecutionID, &execution); err != nil {
		if err := json.Unmarshal(m.ExecutionID, &n); err != nil {
			return "", nil, errors.New("execution_id must be a string or an integer")
		}
		execution = n.String()
	}
	if strings.TrimSpace(execution) == "" {
		return "", nil, errors.New("execution_id is empty")
	}
	if hitl.IsNull(m.Result) {
		return execution, nil, errors.New(`the body has no result: send {"execution_id": ..., "result": {...}}`)
	}
	return execution, m.Result, nil
}

// inWords is a domain error with every problem it lists: "invalid inquiry: /prompt: is required".
func inWords(err error) string {
	var e *hitl.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return hitl.ErrorMessage(err)
	}
	return e.Detailed("; ")
}
