package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitl-dev/hitl"
)

// CreateWebhook subscribes a URL to events (admin); the answer holds the signing secret, shown once.
func (c *Client) CreateWebhook(ctx context.Context, req *hitl.WebhookRequest) (*hitl.Webhook, error) {
	w := new(hitl.Webhook)
	return w, c.post(ctx, "/v1/webhooks", req, w)
}

// Webhooks lists the webhooks, without secrets.
func (c *Client) Webhooks(ctx context.Context) ([]*hitl.Webhook, error) {
	p := new(Page[*hitl.Webhook])
	err := c.get(ctx, "/v1/webhooks", p)
	return p.Data, err
}

// DeleteWebhook deletes a webhook and its deliveries.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/webhooks/"+url.PathEscape(id), nil, nil, nil, c.RequestTimeout)
	return err
}

// DeliveryOptions filter a list of deliveries; zero values do not filter.
type DeliveryOptions struct {
	WebhookID, Status, Session string
	InquiryID                  int64
	Cursor                     string
	Limit                      int
}

// Deliveries lists webhook deliveries and resume callbacks, newest first.
func (c *Client) Deliveries(ctx context.Context, o DeliveryOptions) (*Page[*hitl.Delivery], error) {
	q := url.Values{}
	for k, v := range map[string]string{"webhook_id": o.WebhookID, "status": o.Status, "session": o.Session, "cursor": o.Cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if o.InquiryID != 0 {
		q.Set("inquiry_id", strconv.FormatInt(o.InquiryID, 10))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	p := new(Page[*hitl.Delivery])
	return p, c.get(ctx, "/v1/deliveries?"+q.Encode(), p)
}

// RetryDelivery sends a delivered or failed delivery again, now.
func (c *Client) RetryDelivery(ctx context.Context, id string) (*hitl.Delivery, error) {
	d := new(hitl.Delivery)
	return d, c.post(ctx, "/v1/deliveries/"+url.PathEscape(id)+"/retry", nil, d)
}

// CallbackSecret returns the secret resume callbacks are signed with.
func (c *Client) CallbackSecret(ctx context.Context) (string, error) {
	var out struct {
		Secret string `json:"secret"`
	}
	err := c.get(ctx, "/v1/callback-secret", &out)
	return out.Secret, err
}
