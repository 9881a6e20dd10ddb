package client

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
)

// Purge removes the inquiries and sessions that ended before the time, with their events
// (POST /v1/retention/purge; admins only).
func (c *Client) Purge(ctx context.Context, before time.Time) (*hitl.PurgeResult, error) {
	res := new(hitl.PurgeResult)
	return res, c.post(ctx, "/v1/retention/purge", hitl.PurgeRequest{Before: &before}, res)
}
