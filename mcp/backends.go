package mcp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
)

// ClientBackend acts through a hitl server's REST API, as the client's token (`hitl mcp`).
type ClientBackend struct{ Client *client.Client }

func (b ClientBackend) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error) {
	inq, _, err := b.Client.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: idempotencyKey})
	return inq, err
}

func (b ClientBackend) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	return b.Client.Wait(ctx, id, timeout)
}

func (b ClientBackend) Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error) {
	p, err := b.Client.Inquiries(ctx, client.ListOptions{Status: string(hitl.StatusPending), Limit: limit})
	if err != nil {
		return nil, err
	}
	return p.Data, nil
}

func (b ClientBackend) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	return b.Client.Respond(ctx, id, response, comment)
}

// EngineBackend acts on the engine as a principal (/mcp on `hitl serve`).
type EngineBackend struct {
	Engine    *engine.Engine
	Principal *hitl.Principal
}

func (b EngineBackend) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error) {
	inq, _, err := b.Engine.CreateInquiry(ctx, b.Principal, req, idempotencyKey)
	return inq, err
}

func (b EngineBackend) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	return b.Engine.Wait(ctx, b.Principal, id, timeout)
}

func (b EngineBackend) Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error) {
	inqs, _, err := b.Engine.Inquiries(ctx, b.Principal, hitl.InquiryFilter{Status: hitl.StatusPending, Page: hitl.Page{Limit: limit}})
	return inqs, err
}

func (b EngineBackend) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	return b.Engine.Respond(ctx, b.Principal, id, &hitl.ResponseRequest{Response: response, Comment: comment})
}

// Answers reports whether a principal may answer, and so gets the responder's tools.
func Answers(p *hitl.Principal) bool { return p.IsAdmin() || p.Has(hitl.RoleResponder) }
