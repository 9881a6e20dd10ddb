package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitl-dev/hitl"
)

// PutPerson sets where a person is reached (admin), replacing what was there.
func (c *Client) PutPerson(ctx context.Context, name string, req *hitl.PersonRequest) (*hitl.Person, error) {
	p := new(hitl.Person)
	_, err := c.do(ctx, http.MethodPut, "/v1/people/"+url.PathEscape(name), nil, req, p, c.RequestTimeout)
	return p, err
}

// Person returns one person (admin).
func (c *Client) Person(ctx context.Context, name string) (*hitl.Person, error) {
	p := new(hitl.Person)
	return p, c.get(ctx, "/v1/people/"+url.PathEscape(name), p)
}

// People lists every person (admin), by name.
func (c *Client) People(ctx context.Context) ([]*hitl.Person, error) {
	p := new(Page[*hitl.Person])
	err := c.get(ctx, "/v1/people", p)
	return p.Data, err
}

// DeletePerson forgets where a person is reached (admin).
func (c *Client) DeletePerson(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/people/"+url.PathEscape(name), nil, nil, nil, c.RequestTimeout)
	return err
}

// SetAbsence sets a person's absence (the person themself, or an admin): from req.From until
// req.Until, req.Delegate answers in their place. It replaces the one they had.
func (c *Client) SetAbsence(ctx context.Context, name string, req *hitl.AbsenceRequest) (*hitl.Absence, error) {
	a := new(hitl.Absence)
	_, err := c.do(ctx, http.MethodPut, absencePath(name), nil, req, a, c.RequestTimeout)
	return a, err
}

// Absence returns a person's absence unless it has ended (the person themself, or an admin).
func (c *Client) Absence(ctx context.Context, name string) (*hitl.Absence, error) {
	a := new(hitl.Absence)
	return a, c.get(ctx, absencePath(name), a)
}

// EndAbsence ends a person's absence now (the person themself, or an admin).
func (c *Client) EndAbsence(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, absencePath(name), nil, nil, nil, c.RequestTimeout)
	return err
}

func absencePath(name string) string { return "/v1/people/" + url.PathEscape(name) + "/absence" }

// PutGroup sets a group's shared contact points (admin), replacing what was there.
func (c *Client) PutGroup(ctx context.Context, name string, req *hitl.GroupRequest) (*hitl.Group, error) {
	g := new(hitl.Group)
	_, err := c.do(ctx, http.MethodPut, "/v1/groups/"+url.PathEscape(name), nil, req, g, c.RequestTimeout)
	return g, err
}

// Groups lists every group's contact points (admin), by name.
func (c *Client) Groups(ctx context.Context) ([]*hitl.Group, error) {
	p := new(Page[*hitl.Group])
	err := c.get(ctx, "/v1/groups", p)
	return p.Data, err
}

// DeleteGroup removes a group's contact points (admin).
func (c *Client) DeleteGroup(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/groups/"+url.PathEscape(name), nil, nil, nil, c.RequestTimeout)
	return err
}

// CreateChatWebhook subscribes a chat room's incoming webhook to inquiry events (admin).
func (c *Client) CreateChatWebhook(ctx context.Context, req *hitl.ChatWebhookRequest) (*hitl.ChatWebhook, error) {
	w := new(hitl.ChatWebhook)
	return w, c.post(ctx, "/v1/chat-webhooks", req, w)
}

// ChatWebhooks lists the chat webhooks (admin).
func (c *Client) ChatWebhooks(ctx context.Context) ([]*hitl.ChatWebhook, error) {
	p := new(Page[*hitl.ChatWebhook])
	err := c.get(ctx, "/v1/chat-webhooks", p)
	return p.Data, err
}

// DeleteChatWebhook removes a chat webhook (admin).
func (c *Client) DeleteChatWebhook(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/chat-webhooks/"+url.PathEscape(id), nil, nil, nil, c.RequestTimeout)
	return err
}

// Notifications lists the messages sent about an inquiry, oldest first, with their status.
func (c *Client) Notifications(ctx context.Context, inquiryID int64) ([]*hitl.Delivery, error) {
	p := new(Page[*hitl.Delivery])
	err := c.get(ctx, "/v1/inquiries/"+strconv.FormatInt(inquiryID, 10)+"/notifications", p)
	return p.Data, err
}
