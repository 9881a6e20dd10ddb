package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/hitl-dev/hitl"
)

// TimeoutError: the deadline passed with no answer and the fallback policy was fail.
type TimeoutError struct{ Inquiry *hitl.Inquiry }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("inquiry %d timed out with no answer", e.Inquiry.ID)
}

// CancelledError: the inquiry was cancelled before anyone answered.
type CancelledError struct{ Inquiry *hitl.Inquiry }

func (e *CancelledError) Error() string {
	if e.Inquiry.CancelReason != nil {
		return fmt.Sprintf("inquiry %d was cancelled: %s", e.Inquiry.ID, *e.Inquiry.CancelReason)
	}
	return fmt.Sprintf("inquiry %d was cancelled", e.Inquiry.ID)
}

// UnreachableError: the server did not answer within the time the caller would wait for it
// (Client.GiveUpAfter, or AskOptions.GiveUpAfter); Last is the last failure seen.
type UnreachableError struct {
	URL    string
	Within time.Duration
	Last   error
}

func (e *UnreachableError) Error() string {
	msg := fmt.Sprintf("the hitl server at %s did not answer within %s", e.URL, e.Within)
	if e.Last != nil {
		msg += ": " + e.Last.Error()
	}
	return msg
}

func (e *UnreachableError) Unwrap() error { return e.Last }

// defaultPollWait is how long each long poll of a wait lasts.
const defaultPollWait = 30 * time.Second

// AskOptions tune Ask.
type AskOptions struct {
	// IdempotencyKey identifies this question across retries and restarts of the asker; a
	// random one is made when empty.
	IdempotencyKey string
	// PollWait is how long each long poll lasts (default 30 s).
	PollWait time.Duration
	// OnCreated is called once the inquiry exists, with its id.
	OnCreated func(*hitl.Inquiry)
	// GiveUpAfter bounds how long creating the inquiry keeps trying while the server does not
	// answer: then Ask returns an *UnreachableError. Zero tries for as long as ctx lasts. Once
	// the inquiry exists, the wait rides out restarts whatever this says.
	GiveUpAfter time.Duration
	// Waiter, when set, waits for the answer on its shared stream rather than with long polls
	// of this Ask's own: what an agent process with many questions open at once should use
	// (see Client.NewWaiter). PollWait does not apply then.
	Waiter *Waiter
}

// Ask creates the inquiry and waits until it is resolved, then returns it: its Response is
// the human's answer, or the fallback value (FallbackApplied) when the deadline passed under
// a fallback policy. A timeout under policy fail is a *TimeoutError, a cancellation a
// *CancelledError. Dropped connections, restarts and 5xx answers are retried with backoff;
// the idempotency key makes sure a retry never creates a second inquiry.
func (c *Client) Ask(ctx context.Context, req *hitl.InquiryRequest, o AskOptions) (*hitl.Inquiry, error) {
	if o.IdempotencyKey == "" {
		o.IdempotencyKey = NewIdempotencyKey()
	}
	if o.PollWait <= 0 {
		o.PollWait = defaultPollWait
	}
	inq, err := c.create(ctx, req, o)
	if err != nil {
		return nil, err
	}
	if o.OnCreated != nil {
		o.OnCreated(inq)
	}
	if o.Waiter != nil && inq.Status == hitl.StatusPending {
		inq, err = o.Waiter.Wait(ctx, inq.ID)
	} else {
		inq, err = c.waitFinal(ctx, inq, o.PollWait)
	}
	if err != nil {
		return nil, err
	}
	return inq, Outcome(inq)
}

// create creates the inquiry, retrying for at most o.GiveUpAfter (when set) while the server
// does not answer.
func (c *Client) create(ctx context.Context, req *hitl.InquiryRequest, o AskOptions) (*hitl.Inquiry, error) {
	reachCtx := ctx
	if o.GiveUpAfter > 0 {
		var cancel context.CancelFunc
		reachCtx, cancel = context.WithTimeout(ctx, o.GiveUpAfter)
		defer cancel()
	}
	var (
		inq  *hitl.Inquiry
		last error
	)
	err := retry(reachCtx, func() (err error) {
		inq, _, err = c.CreateInquiry(reachCtx, req, CreateOptions{IdempotencyKey: o.IdempotencyKey})
		if err != nil && reachCtx.Err() == nil {
			last = err
		}
		return err
	})
	if err != nil && reachCtx.Err() != nil && ctx.Err() == nil {
		return nil, &UnreachableError{URL: c.baseURL, Within: o.GiveUpAfter, Last: last}
	}
	return inq, err
}

// Await waits until inquiry id, asked before by this process or another, is resolved, and
// returns it as Ask does: the answer, or the fallback value, or the typed error of a timeout
// or a cancellation; restarts and dropped connections are ridden out the same way.
func (c *Client) Await(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	inq, err := c.waitFinal(ctx, &hitl.Inquiry{ID: id, Status: hitl.StatusPending}, defaultPollWait)
	if err != nil {
		return nil, err
	}
	return inq, Outcome(inq)
}

// waitFinal long-polls until inq is final, riding out dropped connections and restarts.
func (c *Client) waitFinal(ctx context.Context, inq *hitl.Inquiry, pollWait time.Duration) (*hitl.Inquiry, error) {
	for inq.Status == hitl.StatusPending {
		id := inq.ID
		if err := retry(ctx, func() (err error) { inq, err = c.Wait(ctx, id, pollWait); return err }); err != nil {
			return nil, err
		}
	}
	return inq, nil
}

// Outcome is nil for an answered inquiry (or one a fallback answered), else the typed error.
func Outcome(inq *hitl.Inquiry) error {
	switch {
	case inq.Status == hitl.StatusTimeout && !inq.FallbackApplied:
		return &TimeoutError{Inquiry: inq}
	case inq.Status == hitl.StatusCancelled:
		return &CancelledError{Inquiry: inq}
	}
	return nil
}

// Answer decodes an inquiry's response into v.
func Answer(inq *hitl.Inquiry, v any) error { return json.Unmarshal(inq.Response, v) }

// retry runs fn until it succeeds, fails for good, or ctx ends. Network errors and answers
// that say the server is (re)starting or overloaded are worth another try.
func retry(ctx context.Context, fn func() error) error {
	backoff := 50 * time.Millisecond
	for {
		err := fn()
		if err == nil || !retryable(ctx, err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var (
		e  *Error
		ue *url.Error
		ne net.Error
	)
	switch {
	case errors.As(err, &e):
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests
	case errors.As(err, &ue), errors.As(err, &ne):
		return true // refused while the server restarts, reset, a request that timed out
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
