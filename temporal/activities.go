package hitltemporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// Activities are AskHuman's activities: they reach hitl with the Go client.
type Activities struct {
	// Hitl is a client of the hitl server, with an agent's token.
	Hitl *client.Client
	// CallbackURL is where hitl delivers the inquiries' events: the address at which the
	// application serves CallbackHandler, as hitl reaches it.
	CallbackURL string
}

// Register registers AskHuman's activities on a worker. hc is a client of the hitl server
// (an agent's token); callbackURL is the address at which the application serves
// CallbackHandler, as hitl reaches it.
func Register(w worker.ActivityRegistry, hc *client.Client, callbackURL string) error {
	a := &Activities{Hitl: hc, CallbackURL: callbackURL}
	if err := a.check(); err != nil {
		return err
	}
	w.RegisterActivityWithOptions(a.CreateInquiry, activity.RegisterOptions{Name: ActivityCreateInquiry})
	w.RegisterActivityWithOptions(a.FetchInquiry, activity.RegisterOptions{Name: ActivityFetchInquiry})
	w.RegisterActivityWithOptions(a.CancelInquiry, activity.RegisterOptions{Name: ActivityCancelInquiry})
	return nil
}

func (a *Activities) check() error {
	if a.Hitl == nil {
		return errors.New("hitltemporal: no hitl client: pass client.New(url, token, nil)")
	}
	u, err := url.Parse(a.CallbackURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("hitltemporal: the callback URL %q is not an absolute http(s) URL: give the address at which hitl reaches CallbackHandler, such as https://worker.example.com/hitl/callback", a.CallbackURL)
	}
	return nil
}

// CreateInquiry creates the inquiry of one AskHuman, with the callback URL and the metadata
// naming the workflow, under an Idempotency-Key of the workflow run and the activity.
func (a *Activities) CreateInquiry(ctx context.Context, req hitl.InquiryRequest) (*hitl.Inquiry, error) {
	if err := a.check(); err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "hitl.misconfigured", nil)
	}
	info := activity.GetInfo(ctx)
	req.CallbackURL = a.CallbackURL
	req.Metadata = maps.Clone(req.Metadata)
	if req.Metadata == nil {
		req.Metadata = map[string]string{}
	}
	req.Metadata[MetaWorkflowID] = info.WorkflowExecution.ID
	req.Metadata[MetaRunID] = info.WorkflowExecution.RunID
	req.Metadata[MetaNamespace] = info.Namespace
	key := IdempotencyKey(info.Namespace, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.ActivityID)
	inq, _, err := a.Hitl.CreateInquiry(ctx, &req, client.CreateOptions{IdempotencyKey: key})
	return inq, classify(err)
}

// FetchInquiry reads the inquiry, when its signal is late.
func (a *Activities) FetchInquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	inq, err := a.Hitl.Inquiry(ctx, id)
	return inq, classify(err)
}

// CancelInquiry cancels the inquiry of a cancelled workflow; one that has ended stays as it is.
func (a *Activities) CancelInquiry(ctx context.Context, id int64) error {
	_, err := a.Hitl.Cancel(ctx, id, "the Temporal workflow that asked was cancelled")
	var e *client.Error
	if errors.As(err, &e) && e.StatusCode == http.StatusConflict {
		return nil // it has ended already
	}
	return classify(err)
}

// classify makes hitl's refusals (4xx but 408 and 429) final: retrying a request hitl found
// wrong cannot help. Everything else (unreachable, 5xx) is retried by Temporal.
func classify(err error) error {
	var e *client.Error
	if errors.As(err, &e) && e.StatusCode >= 400 && e.StatusCode < 500 &&
		e.StatusCode != http.StatusRequestTimeout && e.StatusCode != http.StatusTooManyRequests {
		return temporal.NewNonRetryableApplicationError(e.Error(), "hitl."+e.Code, err, e.Errors)
	}
	return err
}
