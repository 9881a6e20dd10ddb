package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// HTTP serves MCP over streamable HTTP at /mcp, on the engine. It is stateless: every request
// carries its bearer token, is authenticated like any other, and gets a server whose tools
// act as its principal (a session id could not be trusted to stand for a token).
type HTTP struct {
	handler http.Handler
}

// principalKey carries the request's principal to the server the go-sdk asks for.
type principalKey struct{}

// NewHTTP returns the /mcp front end on e; waitBound is Options.WaitBound.
func NewHTTP(e *engine.Engine, waitBound time.Duration) *HTTP {
	return &HTTP{handler: sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		p, _ := r.Context().Value(principalKey{}).(*hitl.Principal)
		return NewServer(engineBackend{engine: e, p: p}, Options{Responder: engine.CanAnswer(p), WaitBound: waitBound})
	}, &sdk.StreamableHTTPOptions{Stateless: true})}
}

// Mount adds POST /mcp to r.
func (h *HTTP) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "POST", Path: "/mcp", Handle: h.serve})
}

func (h *HTTP) serve(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	h.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	return nil
}

// engineBackend is the tools' backend at /mcp: the engine, as the request's principal.
type engineBackend struct {
	engine *engine.Engine
	p      *hitl.Principal
}

func (b engineBackend) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error) {
	inq, _, err := b.engine.CreateInquiry(ctx, b.p, req, idempotencyKey)
	return inq, err
}

func (b engineBackend) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	return b.engine.Wait(ctx, b.p, id, timeout)
}

func (b engineBackend) Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error) {
	inqs, _, err := b.engine.Inquiries(ctx, b.p, hitl.InquiryFilter{Status: hitl.StatusPending, Page: hitl.Page{Limit: limit}})
	return inqs, err
}

func (b engineBackend) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	return b.engine.Respond(ctx, b.p, id, &hitl.ResponseRequest{Response: response, Comment: comment})
}

func (b engineBackend) Cancel(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	return b.engine.Cancel(ctx, b.p, id, reason)
}

func (b engineBackend) Name() string { return b.p.Name }

func (b engineBackend) Asked(ctx context.Context, match map[string]string, page hitl.Page) ([]*hitl.Inquiry, string, error) {
	return b.engine.Inquiries(ctx, b.p, hitl.InquiryFilter{CreatedBy: b.p.Name, Metadata: match, Page: page})
}
