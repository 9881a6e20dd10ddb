package client

import (
	"context"
	"strconv"

	"github.com/hitl-dev/hitl"
)

// RespondMany gives one answer to several inquiries: those req.IDs lists, or those
// req.Filter matches (one session's pending inquiries). Each is answered or refused on its
// own; the results say which, in the order of the ids. An error means nothing was answered
// (a mistake in the request, such as more than 500 inquiries).
func (c *Client) RespondMany(ctx context.Context, req *hitl.BulkResponseRequest) ([]hitl.BulkResult, error) {
	var out hitl.BulkResults
	return out.Results, c.post(ctx, "/v1/inquiries/respond", req, &out)
}

// Decline refuses to answer an inquiry, unless its agent forbade it (cancellable_by_responder
// false): the inquiry is cancelled with the reason, and the agent's wait ends with the
// cancellation.
func (c *Client) Decline(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	return inq, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/decline", map[string]string{"reason": reason}, inq)
}
