package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
)

// CreateRule makes a standing approval rule (admin), whose author is the key's name.
func (c *Client) CreateRule(ctx context.Context, req *hitl.RuleRequest) (*hitl.Rule, error) {
	r := new(hitl.Rule)
	_, err := c.do(ctx, http.MethodPost, "/v1/rules", nil, req, r, c.RequestTimeout)
	return r, err
}

// Rules lists the rules: every one to an admin, those the caller authored to a responder.
func (c *Client) Rules(ctx context.Context) ([]*hitl.Rule, error) {
	var out struct {
		Rules []*hitl.Rule `json:"rules"`
	}
	return out.Rules, c.get(ctx, "/v1/rules", &out)
}

// RevokeRule stops a rule at once, on every node, and returns it revoked.
func (c *Client) RevokeRule(ctx context.Context, id string) (*hitl.Rule, error) {
	r := new(hitl.Rule)
	_, err := c.do(ctx, http.MethodDelete, "/v1/rules/"+url.PathEscape(id), nil, nil, r, c.RequestTimeout)
	return r, err
}
