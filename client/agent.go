package client

import (
	"context"
	"encoding/json"

	"github.com/hitl-dev/hitl"
)

// Signals are what an agent knows about an action, each from 0 to 1: how sure it is of acting
// alone (Confidence), how bad a wrong action would be (Risk), and how easily it is undone
// (Reversibility). The server's engagement decision turns them into a mode.
type Signals struct {
	Confidence, Risk, Reversibility float64
}

// ShouldRequestInput asks the server whether to involve a human: Decision.ShouldAsk, with the
// mode (autonomous, request_input, require_input, defer) and why.
func (c *Client) ShouldRequestInput(ctx context.Context, s Signals) (*Decision, error) {
	return c.Decide(ctx, s.Confidence, s.Risk, s.Reversibility)
}

// Hooks are called at the steps of an agent's questions (the OpenIntent lifecycle). Any may be nil.
type Hooks struct {
	// OnEngagementDecision sees each decision ShouldRequestInput returns, and may change it
	// (to audit, or to override).
	OnEngagementDecision func(ctx context.Context, s Signals, d *Decision)
	// OnInputRequested is called once the question is stored, before the wait: the place to
	// tell a human where to answer.
	OnInputRequested func(ctx context.Context, inq *hitl.Inquiry)
	// OnInputReceived is called when a human answered, before RequestInput returns.
	OnInputReceived func(ctx context.Context, inq *hitl.Inquiry)
	// OnSuspensionExpired is called when the deadline passed with no answer, whatever the
	// fallback policy, before RequestInput returns the fallback or the timeout.
	OnSuspensionExpired func(ctx context.Context, inq *hitl.Inquiry)
}

// Agent asks as one named agent, optionally within a session, with lifecycle hooks.
type Agent struct {
	Client *Client
	// Name is the origin of the agent's questions, shown to the humans who answer.
	Name string
	// Session, when set, is the run the questions belong to (unless a request names another).
	Session string
	Hooks   Hooks
}

// ShouldRequestInput is Client.ShouldRequestInput, passed through OnEngagementDecision.
func (a *Agent) ShouldRequestInput(ctx context.Context, s Signals) (*Decision, error) {
	d, err := a.Client.ShouldRequestInput(ctx, s)
	if err != nil {
		return nil, err
	}
	if a.Hooks.OnEngagementDecision != nil {
		a.Hooks.OnEngagementDecision(ctx, s, d)
	}
	return d, nil
}

// RequestInput asks a human and waits, and returns the answer: the human's, or the fallback
// value when the deadline passed under complete_with_fallback or use_default_and_continue.
// Under fallback policy fail a deadline with no answer is a *TimeoutError; a cancellation is a
// *CancelledError. The question is created once however often the connection drops (an
// idempotency key), and a server that stays unreachable is an error after
// Client.GiveUpAfter, not a hang.
func (a *Agent) RequestInput(ctx context.Context, req hitl.InquiryRequest) (json.RawMessage, error) {
	if req.Origin == "" {
		req.Origin = a.Name
	}
	if req.Session == "" {
		req.Session = a.Session
	}
	inq, err := a.Client.askBounded(ctx, &req, NewIdempotencyKey(), func(inq *hitl.Inquiry) {
		if a.Hooks.OnInputRequested != nil {
			a.Hooks.OnInputRequested(ctx, inq)
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case inq.Status == hitl.StatusResponded && a.Hooks.OnInputReceived != nil:
		a.Hooks.OnInputReceived(ctx, inq)
	case inq.Status == hitl.StatusTimeout && a.Hooks.OnSuspensionExpired != nil:
		a.Hooks.OnSuspensionExpired(ctx, inq)
	}
	if err := Outcome(inq); err != nil {
		return nil, err
	}
	return inq.Response, nil
}

// askBounded asks, trying for at most GiveUpAfter while the server does not answer, and
// waits until the inquiry is final, riding out restarts.
func (c *Client) askBounded(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string, created func(*hitl.Inquiry)) (*hitl.Inquiry, error) {
	inq, err := c.Ask(ctx, req, AskOptions{IdempotencyKey: idempotencyKey, OnCreated: created, GiveUpAfter: c.GiveUpAfter})
	if inq == nil {
		return nil, err
	}
	return inq, nil // the outcome (timed out, cancelled) is the caller's to read
}
