package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/server"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func serveCmd() *cobra.Command {
	cfg := server.Config{WriteCredentials: true}
	var logLevel, logFormat string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hitl server",
		Long: `Run the hitl server on the embedded SQLite database.

On first start, when no admin key exists and HITL_ADMIN_TOKEN is not set, it creates an
admin key, prints its token once and writes it with the server URL to the credentials file
(HITL_CREDENTIALS, default in the user's config directory), so that the other hitl commands
on this machine work with no set-up.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := newLogger(cmd.ErrOrStderr(), logLevel, logFormat)
			if err != nil {
				return usageError{err}
			}
			cfg.AdminToken = os.Getenv("HITL_ADMIN_TOKEN")
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			srv, err := server.Open(ctx, cfg, log)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "hitl listening on %s (API %s/v1, database %s)\n", srv.URL(), srv.URL(), cfg.DB)
			if srv.AdminToken != "" {
				fmt.Fprintf(out, "Created the first admin key. Its token is shown only now:\n\n    %s\n\n", srv.AdminToken)
				if srv.CredentialsPath != "" {
					fmt.Fprintf(out, "It is saved with the URL in %s for the hitl commands on this machine.\n", srv.CredentialsPath)
				}
			}
			return srv.Serve(ctx)
		},
	}
	maxBody, _ := strconv.ParseInt(envOr("HITL_MAX_BODY_BYTES", "1048576"), 10, 64)
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", envOr("HITL_ADDR", "127.0.0.1:7447"), "address to listen on (HITL_ADDR)")
	f.StringVar(&cfg.DB, "db", envOr("HITL_DB", server.DefaultDB()), "SQLite database file (HITL_DB)")
	f.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", maxBody, "largest request body accepted (HITL_MAX_BODY_BYTES)")
	f.StringVar(&logLevel, "log-level", envOr("HITL_LOG_LEVEL", "info"), "debug, info, warn or error (HITL_LOG_LEVEL)")
	f.StringVar(&logFormat, "log-format", envOr("HITL_LOG_FORMAT", "auto"), "text, json, or auto: text on a terminal, JSON otherwise (HITL_LOG_FORMAT)")
	return cmd
}

func newLogger(w interface{ Write([]byte) (int, error) }, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text, json or auto", format)
}
