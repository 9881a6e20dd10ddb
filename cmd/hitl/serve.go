package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/notify"
	"github.com/hitl-dev/hitl/protocol/mcp"
	"github.com/hitl-dev/hitl/store/postgres"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envFlags reads flag defaults from HITL_* variables and remembers the ones it could not read.
type envFlags struct{ errs []error }

func (e *envFlags) err() error { return errors.Join(e.errs...) }

func (e *envFlags) parse(name string, parse func(string) error) {
	if v := os.Getenv(name); v != "" {
		if err := parse(v); err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s=%q: %w", name, v, err))
		}
	}
}

func (e *envFlags) bool(name string) (b bool) {
	e.parse(name, func(v string) (err error) { b, err = strconv.ParseBool(v); return err })
	return b
}

func (e *envFlags) int(name string, def int) int {
	e.parse(name, func(v string) (err error) { def, err = strconv.Atoi(v); return err })
	return def
}

func (e *envFlags) duration(name string, def time.Duration) time.Duration {
	e.parse(name, func(v string) (err error) { def, err = parseLongDuration(v); return err })
	return def
}

func serveCmd() *cobra.Command {
	cfg := server.Config{WriteCredentials: true}
	var logLevel, logFormat, pprofAddr string
	var env envFlags
	var fillSlack, fillSSO func()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hitl server",
		Long: `Run the hitl server: on the embedded SQLite database by default, or with --db postgres://...
on a PostgreSQL database that several nodes share.

On first start, when no admin key exists and HITL_ADMIN_TOKEN is not set, it creates an
admin key, prints its token once and writes it with the server URL to the credentials file
(HITL_CREDENTIALS, default in the user's config directory), so that the other hitl commands
on this machine work with no set-up.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := env.err(); err != nil {
				return usageError{err}
			}
			log, err := newLogger(cmd.ErrOrStderr(), logLevel, logFormat)
			if err != nil {
				return usageError{err}
			}
			cfg.AdminToken = os.Getenv("HITL_ADMIN_TOKEN")
			cfg.Webhooks.CallbackSecret = os.Getenv("HITL_CALLBACK_SECRET")
			cfg.AuditKey = os.Getenv("HITL_AUDIT_KEY")
			cfg.SecretKey = os.Getenv("HITL_SECRET_KEY")
			fillSlack()
			fillSSO()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if pprofAddr != "" { // first: an address it cannot have stops the start before anything is opened
				if err := servePprof(ctx, pprofAddr, cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			srv, err := server.Open(ctx, cfg, log)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "hitl listening on %s (API %s/v1, database %s)\n", srv.URL(), srv.URL(), cfg.DBName())
			fmt.Fprintf(out, "Open %s in a browser to see and answer inquiries.\n", srv.URL())
			if srv.AdminToken != "" {
				fmt.Fprintf(out, "Created the first admin key. Its token is shown only now (sign in to the inbox with it):\n\n    %s\n\n", srv.AdminToken)
				if srv.CredentialsPath != "" {
					fmt.Fprintf(out, "It is saved with the URL in %s for the hitl commands on this machine.\n", srv.CredentialsPath)
					if srv.ReplacedCredentialsOf != "" {
						fmt.Fprintf(out, "It replaces the token saved there for the server at %s; to keep both, give each server its own file with HITL_CREDENTIALS.\n", srv.ReplacedCredentialsOf)
					}
				}
			}
			if addr := srv.ReplyAddr(); addr != "" {
				fmt.Fprintf(out, "Taking email replies (reply+...@%s) on %s.\n", cfg.Email.Domain, addr)
			}

			return srv.Serve(ctx)
		},
	}
	maxBody, _ := strconv.ParseInt(envOr("HITL_MAX_BODY_BYTES", strconv.Itoa(httpwire.DefaultMaxBodyBytes)), 10, 64)
	f := cmd.Flags()
	w := &cfg.Webhooks
	durationVar(f, &cfg.MCPWaitBound, "mcp-wait-bound", env.duration("HITL_MCP_WAIT_BOUND", mcp.DefaultWaitBound), "how long an MCP tool call at /mcp waits for the human before it returns pending (HITL_MCP_WAIT_BOUND)")
	f.StringVar(&cfg.PublicURL, "public-url", os.Getenv("HITL_PUBLIC_URL"), "how others reach this server; the source of webhook events (HITL_PUBLIC_URL)")
	f.StringVar(&cfg.PushContact, "push-contact", os.Getenv("HITL_PUSH_CONTACT"), "whom push services may write to about this server's web pushes (the VAPID sub): mailto:someone@example.com or an https:// URL; unset: --public-url when it is https://, else an address at localhost, which Apple's push service refuses (HITL_PUSH_CONTACT)")
	f.IntVar(&cfg.NovaMaxAnswerBytes, "nova-max-answer-bytes", env.int("HITL_NOVA_MAX_ANSWER_BYTES", engine.DefaultNovaAnswerBytes), "largest answer Nova's POST /api/interactions/{id}/answer takes, in bytes of JSON; a larger one gets 413 (HITL_NOVA_MAX_ANSWER_BYTES)")
	f.IntVar(&cfg.ReadingWordsPerMinute, "reading-words-per-minute", env.int("HITL_READING_WORDS_PER_MINUTE", engine.DefaultReadingWordsPerMinute), "the reading speed decision analytics assume: a decision made in less time than reading the prompt and context takes counts as decided faster than it could be read (HITL_READING_WORDS_PER_MINUTE)")
	f.StringVar(&cfg.AgentQuestionCallbackURL, "agent-question-callback-url", os.Getenv("HITL_AGENT_QUESTION_CALLBACK_URL"), "where every new question of a session, and its answer, is posted as the async agent questions protocol's question_pending and question_answered (HITL_AGENT_QUESTION_CALLBACK_URL)")
	f.BoolVar(&w.AllowPrivate, "webhook-allow-private", env.bool("HITL_WEBHOOK_ALLOW_PRIVATE"), "let webhooks, callbacks and web push endpoints reach any address, not only public ones (HITL_WEBHOOK_ALLOW_PRIVATE)")
	f.IntVar(&w.Concurrency, "webhook-concurrency", env.int("HITL_WEBHOOK_CONCURRENCY", notify.DefaultConcurrency), "webhook and callback attempts in flight (HITL_WEBHOOK_CONCURRENCY)")
	f.IntVar(&w.PerTarget, "webhook-per-target", env.int("HITL_WEBHOOK_PER_TARGET", notify.DefaultPerTarget), "attempts in flight to one webhook or callback host, so a slow one holds no more (HITL_WEBHOOK_PER_TARGET)")
	durationVar(f, &w.AttemptTimeout, "webhook-timeout", env.duration("HITL_WEBHOOK_TIMEOUT", notify.DefaultAttemptTimeout), "how long one delivery attempt may take (HITL_WEBHOOK_TIMEOUT)")
	durationVar(f, &w.RetryBase, "webhook-retry-base", env.duration("HITL_WEBHOOK_RETRY_BASE", notify.DefaultRetryBase), "wait after a delivery's first failed attempt, doubled after each (HITL_WEBHOOK_RETRY_BASE)")
	durationVar(f, &w.RetryMax, "webhook-retry-max", env.duration("HITL_WEBHOOK_RETRY_MAX", notify.DefaultRetryMax), "longest wait between two attempts (HITL_WEBHOOK_RETRY_MAX)")
	durationVar(f, &w.RetryFor, "webhook-retry-for", env.duration("HITL_WEBHOOK_RETRY_FOR", notify.DefaultRetryFor), "how long a delivery is retried before it is marked failed (HITL_WEBHOOK_RETRY_FOR)")
	durationVar(f, &cfg.RuleMaxValidity, "rule-max-validity", env.duration("HITL_RULE_MAX_VALIDITY", 7*24*time.Hour), "the longest a standing approval rule may last (docs/rules.md) (HITL_RULE_MAX_VALIDITY)")
	f.IntVar(&cfg.RuleSuggestAfter, "rule-suggest-after", env.int("HITL_RULE_SUGGEST_AFTER", 5), "after this many identical approvals in a row, the inbox offers to make them a standing approval (docs/rules.md); 0: never (HITL_RULE_SUGGEST_AFTER)")
	durationVar(f, &cfg.IdempotencyTTL, "idempotency-ttl", env.duration("HITL_IDEMPOTENCY_TTL", 24*time.Hour), "how long an Idempotency-Key replays the inquiry it created; older keys are removed (HITL_IDEMPOTENCY_TTL)")
	env.parse("HITL_RECEIPT_VALIDITY", func(v string) (err error) { cfg.ReceiptValidity, err = parseLongDuration(v); return err })
	f.Var(longDuration{&cfg.ReceiptValidity}, "receipt-validity", "how long a decision receipt holds when the inquiry gives no receipt_valid_for, like 2h; default 1h (HITL_RECEIPT_VALIDITY)")
	env.parse("HITL_RECEIPT_MAX_VALIDITY", func(v string) (err error) { cfg.ReceiptMaxValidity, err = parseLongDuration(v); return err })
	f.Var(longDuration{&cfg.ReceiptMaxValidity}, "receipt-max-validity", "the most an inquiry's receipt_valid_for may ask for, like 7d; default 30d (HITL_RECEIPT_MAX_VALIDITY)")
	env.parse("HITL_RETAIN_RESOLVED", func(v string) (err error) { cfg.RetainResolved, err = parseLongDuration(v); return err })
	f.Var(longDuration{&cfg.RetainResolved}, "retain-resolved", "how long ended inquiries and finished sessions are kept, with their events, like 90d; 0: for good (HITL_RETAIN_RESOLVED)")
	durationVar(f, &cfg.DefaultTimeout, "default-timeout", env.duration("HITL_DEFAULT_TIMEOUT", 0), "deadline of inquiries that give none, like 30m or 24h; 0: none (HITL_DEFAULT_TIMEOUT)")
	f.StringVar((*string)(&cfg.DefaultFallbackPolicy), "default-fallback-policy", envOr("HITL_DEFAULT_FALLBACK_POLICY", "fail"), "fallback policy of inquiries that name none: fail (no answer at the deadline, and the session asked in fails), or complete_with_fallback / use_default_and_continue for those that give a fallback_value (HITL_DEFAULT_FALLBACK_POLICY)")
	f.StringVar(&cfg.Notify.Default, "notify-default", os.Getenv("HITL_NOTIFY_DEFAULT"), "where notifications of unassigned inquiries go, like slack:C012AB3CD,email:ops@example.com (HITL_NOTIFY_DEFAULT)")
	emailFlags(cmd, &cfg.Email)
	f.StringVar(&cfg.Addr, "addr", envOr("HITL_ADDR", "127.0.0.1:7447"), "address to listen on (HITL_ADDR)")
	f.StringVar(&cfg.DB, "db", envOr("HITL_DB", server.DefaultDB()), "SQLite database file, or postgres:// URL for several nodes (HITL_DB)")
	f.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", maxBody, "largest request body accepted (HITL_MAX_BODY_BYTES)")
	durationVar(f, &cfg.BodyReadTimeout, "body-read-timeout", env.duration("HITL_BODY_READ_TIMEOUT", 30*time.Second), "how long a request body may take to arrive; 0: no limit (HITL_BODY_READ_TIMEOUT)")
	durationVar(f, &cfg.ShutdownTimeout, "shutdown-timeout", env.duration("HITL_SHUTDOWN_TIMEOUT", server.DefaultShutdownTimeout), "how long a stop (SIGTERM, Ctrl-C) waits for requests, email conversations and deliveries in progress before it ends them (HITL_SHUTDOWN_TIMEOUT)")
	f.IntVar(&cfg.MaxConns, "max-conns", env.int("HITL_MAX_CONNS", 10000), "connections open at once; more wait until one closes; 0: no cap (HITL_MAX_CONNS)")
	f.IntVar(&cfg.AuthFailuresPerMinute, "auth-failures-per-minute", env.int("HITL_AUTH_FAILURES_PER_MINUTE", 20), "failed authentications one client address may have per minute before it gets 429; 0: no limit (HITL_AUTH_FAILURES_PER_MINUTE)")
	rateFlags(f, &env, &cfg.RateLimit)
	brokerFlags(f, &cfg.Brokers)
	fillSlack = slackFlags(cmd, &cfg.Slack)
	fillSSO = ssoFlags(f, &env, &cfg)
	f.StringVar(&pprofAddr, "pprof", os.Getenv("HITL_PPROF"), "serve Go's CPU, heap and goroutine profiles at http://ADDR/debug/pprof/, like 127.0.0.1:6060; off when empty (HITL_PPROF)")
	f.StringVar(&logLevel, "log-level", envOr("HITL_LOG_LEVEL", "info"), "debug, info, warn or error (HITL_LOG_LEVEL)")
	f.StringVar(&logFormat, "log-format", envOr("HITL_LOG_FORMAT", "auto"), "text, json, or auto: text on a terminal, JSON otherwise (HITL_LOG_FORMAT)")
	return cmd
}

// brokerFlags are the message brokers' settings: where events are published, in which shape,
// and where action results come from.
func brokerFlags(f *pflag.FlagSet, b *server.BrokerConfig) {
	f.StringVar(&b.AMQP.URL, "amqp-url", os.Getenv("HITL_AMQP_URL"), "RabbitMQ to publish events to, like amqp://guest:guest@127.0.0.1:5672/ (HITL_AMQP_URL)")
	f.StringVar(&b.AMQP.Exchange, "amqp-exchange", envOr("HITL_AMQP_EXCHANGE", "hitl"), "durable topic exchange events are published to, routing key = event type; declared if missing (HITL_AMQP_EXCHANGE)")
	f.StringVar(&b.AMQP.Format, "amqp-format", envOr("HITL_AMQP_FORMAT", "cloudevents"), "message body: cloudevents (the webhook body) or attune (Attune's payloads) (HITL_AMQP_FORMAT)")
	f.StringVar(&b.AMQP.IntakeQueue, "amqp-intake-queue", os.Getenv("HITL_AMQP_INTAKE_QUEUE"), "durable queue of action results {execution_id, result} to take in (HITL_AMQP_INTAKE_QUEUE)")
	f.StringVar(&b.AMQP.IntakeExchange, "amqp-intake-exchange", os.Getenv("HITL_AMQP_INTAKE_EXCHANGE"), "topic exchange the intake queue is bound to; default: --amqp-exchange (HITL_AMQP_INTAKE_EXCHANGE)")
	f.StringVar(&b.AMQP.IntakeKey, "amqp-intake-key", envOr("HITL_AMQP_INTAKE_KEY", "execution.completed"), "routing key the intake queue is bound with (HITL_AMQP_INTAKE_KEY)")
	f.StringVar(&b.NATS.URL, "nats-url", os.Getenv("HITL_NATS_URL"), "NATS with JetStream to publish events to, like nats://127.0.0.1:4222 (HITL_NATS_URL)")
	f.StringVar(&b.NATS.Prefix, "nats-prefix", envOr("HITL_NATS_PREFIX", "hitl"), "subject prefix: events go to PREFIX.<event type> (HITL_NATS_PREFIX)")
	f.StringVar(&b.NATS.Stream, "nats-stream", envOr("HITL_NATS_STREAM", "HITL"), "JetStream stream of the event subjects; created if missing (HITL_NATS_STREAM)")
	f.StringVar(&b.NATS.Format, "nats-format", envOr("HITL_NATS_FORMAT", "cloudevents"), "message body: cloudevents or attune (HITL_NATS_FORMAT)")
	f.StringVar(&b.NATS.IntakeSubject, "nats-intake-subject", os.Getenv("HITL_NATS_INTAKE_SUBJECT"), "subject of action results {execution_id, result} to take in with a durable consumer (HITL_NATS_INTAKE_SUBJECT)")
	f.StringVar(&b.NATS.IntakeDurable, "nats-intake-durable", envOr("HITL_NATS_INTAKE_DURABLE", "hitl-intake"), "name of the intake's durable consumer (HITL_NATS_INTAKE_DURABLE)")
}

func migrateCmd() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring a PostgreSQL database's schema up to date, without serving",
		Long: `Apply the schema migrations to a PostgreSQL database and exit. 'hitl serve' applies them
too at start-up, under an advisory lock, so running this first is optional: it lets a
deployment migrate once before it starts (or restarts) its nodes.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !server.IsPostgres(db) {
				return usagef("--db must be a postgres:// URL (SQLite files migrate when served)")
			}
			if err := postgres.MigrateURL(cmd.Context(), db); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "The database schema is up to date.")
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", os.Getenv("HITL_DB"), "postgres:// URL (HITL_DB)")
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
		if isTerminal(w) {
			format = "text"
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

// emailFlags are the settings of the email channel.
func emailFlags(cmd *cobra.Command, c *server.EmailConfig) {
	f := cmd.Flags()
	f.StringVar(&c.SMTPURL, "smtp-url", os.Getenv("HITL_SMTP_URL"), "relay to send email through: smtp://user:password@host:587 (STARTTLS), smtps://... (TLS) or smtp://host:25?tls=none; unset sends no email (HITL_SMTP_URL)")
	f.StringVar(&c.From, "mail-from", os.Getenv("HITL_MAIL_FROM"), `who email comes from, like "hitl <hitl@example.com>" (HITL_MAIL_FROM)`)
	f.StringVar(&c.Domain, "mail-domain", os.Getenv("HITL_MAIL_DOMAIN"), "domain of the reply addresses (reply+TOKEN@domain) whose mail reaches --smtp-listen; unset: email invites no answer by reply (HITL_MAIL_DOMAIN)")
	f.StringVar(&c.Listen, "smtp-listen", os.Getenv("HITL_SMTP_LISTEN"), "host:port to take email replies on by SMTP, like 127.0.0.1:2525; unset: none (HITL_SMTP_LISTEN)")
	f.StringVar(&c.AuthservID, "mail-authserv-id", os.Getenv("HITL_MAIL_AUTHSERV_ID"), "the name your receiving mail server writes first in its Authentication-Results header, like mx.example.com: replies are judged by that server's header only; unset: by the topmost header (HITL_MAIL_AUTHSERV_ID)")
}
