package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
)

// PutTemplate stores a template (admin), replacing the one of the same name; created says
// whether none was there. Ask with it: InquiryRequest{Template: name, Vars: ...}.
func (c *Client) PutTemplate(ctx context.Context, name string, req *hitl.TemplateRequest) (t *hitl.Template, created bool, err error) {
	t = new(hitl.Template)
	status, err := c.do(ctx, http.MethodPut, "/v1/templates/"+url.PathEscape(name), nil, req, t, c.RequestTimeout)
	return t, status == http.StatusCreated, err
}

// Template returns one template (agent or admin).
func (c *Client) Template(ctx context.Context, name string) (*hitl.Template, error) {
	t := new(hitl.Template)
	return t, c.get(ctx, "/v1/templates/"+url.PathEscape(name), t)
}

// Templates lists every template by name (agent or admin).
func (c *Client) Templates(ctx context.Context) ([]*hitl.Template, error) {
	p := new(Page[*hitl.Template])
	err := c.get(ctx, "/v1/templates", p)
	return p.Data, err
}

// DeleteTemplate removes a template (admin).
func (c *Client) DeleteTemplate(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/templates/"+url.PathEscape(name), nil, nil, nil, c.RequestTimeout)
	return err
}
