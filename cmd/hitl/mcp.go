package main

import (
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/mcp"
)

func mcpCmd() *cobra.Command {
	var waitBound time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the hitl tools to an MCP client over stdio",
		Long: `Run a Model Context Protocol server on stdin and stdout, for MCP clients that start
their servers as commands. Its tools act on the hitl server at HITL_URL as HITL_TOKEN (or the
credentials file): request_user_input and get_user_input, and with a responder's or an admin's
token list_pending_inquiries and respond_to_inquiry. 'hitl serve' offers the same tools over
streamable HTTP at /mcp.`,
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
			s := mcp.NewServer(mcp.ClientBackend{Client: c}, mcp.Options{WaitBound: waitBound, Responder: mcp.Answers(me)})
			return s.Run(cmd.Context(), &sdk.StdioTransport{})
		},
	}
	cmd.Flags().DurationVar(&waitBound, "wait-bound", mcp.DefaultWaitBound, "how long a tool call waits for the human before it returns pending")
	return cmd
}
