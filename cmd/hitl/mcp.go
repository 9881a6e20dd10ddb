package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/protocol/mcp"
)

func mcpCmd() *cobra.Command {
	var waitBound time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the hitl tools to an MCP client over stdio",
		Long: `Run a Model Context Protocol server on stdin and stdout, for MCP clients that start
their servers as commands. Its tools act on the hitl server at HITL_URL as HITL_TOKEN (or the
credentials file): request_user_input and get_user_input; approval_prompt, the permission
prompt of Claude Code (claude --permission-prompt-tool mcp__hitl__approval_prompt); and, for
a key with the role responder or admin, list_pending_inquiries and respond_to_inquiry. 'hitl serve' offers the same tools over
streamable HTTP at /mcp. Clients that speak MCP tasks may run request_user_input as a task,
polled for as long as the person takes (docs/mcp-tasks.md). With answer_in_client, and a
client that supports elicitation, request_user_input also asks the client's own user, when
the key may answer the question itself (docs/mcp.md).`,
		Example: `  {"mcpServers": {"hitl": {"command": "hitl", "args": ["mcp"],
                "env": {"HITL_URL": "http://127.0.0.1:7447", "HITL_TOKEN": "hitl_..."}}}}`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if waitBound <= 0 || waitBound > 5*time.Minute {
				return usagef("--wait-bound must be from 1s to 5m")
			}
			c, err := connect()
			if err != nil {
				return err
			}
			me, err := c.Me(cmd.Context())
			if err != nil {
				return fmt.Errorf("the hitl server at HITL_URL: %w", err)
			}
			b := clientBackend{c: c, me: me}
			s := mcp.NewServer(b, mcp.Options{WaitBound: waitBound, Responder: engine.CanAnswer(me)})
			return s.Run(cmd.Context(), mcp.WithTasks(mcp.StdioTransport(os.Stdin, os.Stdout), b))
		},
	}
	durationVar(cmd.Flags(), &waitBound, "wait-bound", mcp.DefaultWaitBound, "how long a tool call waits for the human before it returns pending")
	return cmd
}

// clientBackend is the MCP tools' backend for `hitl mcp`: the hitl server's REST API, as the
// client's token (whose principal is me). The server's problems reach the tools as
// *hitl.Error, with their fields.
type clientBackend struct {
	c  *client.Client
	me *hitl.Principal
}

func (b clientBackend) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error) {
	inq, _, err := b.c.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: idempotencyKey})
	return inq, serverProblem(err)
}

func (b clientBackend) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	inq, err := b.c.Wait(ctx, id, timeout)
	return inq, serverProblem(err)
}

func (b clientBackend) Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error) {
	p, err := b.c.Inquiries(ctx, client.ListOptions{Status: string(hitl.StatusPending), Limit: limit})
	if err != nil {
		return nil, serverProblem(err)
	}
	return p.Data, nil
}

func (b clientBackend) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	inq, err := b.c.Respond(ctx, id, response, comment)
	return inq, serverProblem(err)
}

func (b clientBackend) Decline(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	inq, err := b.c.Decline(ctx, id, reason)
	return inq, serverProblem(err)
}

func (b clientBackend) Cancel(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	inq, err := b.c.Cancel(ctx, id, reason)
	return inq, serverProblem(err)
}

func (b clientBackend) Name() string { return b.me.Name }

func (b clientBackend) Asked(ctx context.Context, match map[string]string, page hitl.Page) ([]*hitl.Inquiry, string, error) {
	p, err := b.c.Inquiries(ctx, client.ListOptions{CreatedBy: b.me.Name, Metadata: match, Cursor: page.Cursor, Limit: page.Limit})
	if err != nil {
		return nil, "", serverProblem(err)
	}
	next := ""
	if p.NextCursor != nil {
		next = *p.NextCursor
	}
	return p.Data, next, nil
}

func (b clientBackend) MayAnswerInClient(inq *hitl.Inquiry) error {
	return engine.MayAnswerInClient(b.me, inq)
}

func (b clientBackend) AnswerLink(ctx context.Context, id int64) (string, error) {
	link, err := b.c.CreateAnswerLink(ctx, id, mcp.OwnLink(b.me))
	if err != nil {
		return "", serverProblem(err)
	}
	return link.URL, nil
}

// serverProblem turns the server's answer to a failed call into the *hitl.Error it stands for.
func serverProblem(err error) error {
	var ce *client.Error
	if errors.As(err, &ce) {
		return &hitl.Error{Code: ce.Code, Message: ce.Error(), Fields: ce.Errors, Inquiry: ce.Inquiry}
	}
	return err
}
