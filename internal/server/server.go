// Package server assembles one hitl server from its configuration: the store, the engine,
// the HTTP API and the metrics; and runs it until its context ends, shutting down gracefully.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/net/netutil"

	"github.com/hitl-dev/hitl"
	amqpbroker "github.com/hitl-dev/hitl/broker/amqp"
	natsbroker "github.com/hitl-dev/hitl/broker/nats"
	"github.com/hitl-dev/hitl/channel/chatwebhook"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/channel/webpush"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/httpapi"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/internal/authlimit"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/credentials"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/metrics"
	"github.com/hitl-dev/hitl/internal/outbound"
	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/hitl-dev/hitl/internal/secretbox"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/notify"
	"github.com/hitl-dev/hitl/protocol/a2a"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/sqlite"
	"github.com/hitl-dev/hitl/web"
)

// Config is everything `hitl serve` can be told, by flag or HITL_* variable.
type Config struct {
	Addr         string // HITL_ADDR, default 127.0.0.1:7447
	DB           string // HITL_DB: a SQLite file path (default under the user's data directory) or a postgres:// URL
	AdminToken   string // HITL_ADMIN_TOKEN
	MaxBodyBytes int64  // HITL_MAX_BODY_BYTES, default 1 MiB
	// WriteCredentials: write the first admin token and the URL to the credentials file.
	WriteCredentials bool
	// ShutdownTimeout bounds a stop: requests, email conversations and deliveries in
	// progress get this long to end (HITL_SHUTDOWN_TIMEOUT; 0: DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// PublicURL is how others reach this server (HITL_PUBLIC_URL): the source of the
	// CloudEvents that webhooks carry.
	PublicURL string
	// PushContact is the contact the VAPID claims of web pushes name (HITL_PUSH_CONTACT):
	// mailto:someone@example.com or an https:// URL, where a push service writes when this
	// server misbehaves. Unset: the public URL when it is https://, else a local address that
	// some push services (Apple's) refuse.
	PushContact string
	// SSO signs people in to the inbox with an OpenID Connect provider (--oidc-*; docs/sso.md).
	SSO web.SSOConfig
	// NoTokenLogin turns off signing in to the inbox with an API token (--inbox-token-login=false).
	NoTokenLogin bool
	// AgentQuestionCallbackURL receives every new question of every session, and its answer,
	// as the async agent questions protocol's question_pending and question_answered
	// (HITL_AGENT_QUESTION_CALLBACK_URL).
	AgentQuestionCallbackURL string
	// NovaMaxAnswerBytes bounds an answer through Nova's POST /api/interactions/{id}/answer
	// (HITL_NOVA_MAX_ANSWER_BYTES; 0: engine.DefaultNovaAnswerBytes, 32 KB).
	NovaMaxAnswerBytes int
	// ReadingWordsPerMinute is the reading speed of decision analytics' "decided faster than
	// it could be read" (HITL_READING_WORDS_PER_MINUTE; 0: engine.DefaultReadingWordsPerMinute).
	ReadingWordsPerMinute int
	Webhooks              WebhookConfig
	// MCPWaitBound is how long a tool call at /mcp waits for the human before it returns
	// "pending" (HITL_MCP_WAIT_BOUND, default 45 s).
	MCPWaitBound time.Duration
	// MaxConns caps the connections open at once (HITL_MAX_CONNS; 0: no cap). Beyond it, a
	// new connection waits, unaccepted, until one closes.
	MaxConns int
	// BodyReadTimeout is how long a request may take to arrive, its headers (at most 10 s)
	// and its body together (HITL_BODY_READ_TIMEOUT; 0: no limit).
	BodyReadTimeout time.Duration
	// AuthFailuresPerMinute is how many failed authentications one client address may have in
	// a minute, on the API, the sign-in form and answer links together, before it gets 429
	// (HITL_AUTH_FAILURES_PER_MINUTE; 0: no limit).
	AuthFailuresPerMinute int
	// RateLimit is the token bucket of each principal (--rate-limit, --rate-burst,
	// --rate-limit-role; default: no limit). It holds per node.
	RateLimit ratelimit.Options
	// LimiterClock is the clock of these limits (tests; default time.Now).
	LimiterClock func() time.Time
	// DefaultTimeout is the deadline of inquiries that give none (HITL_DEFAULT_TIMEOUT; 0:
	// none), and DefaultFallbackPolicy the policy of inquiries that name none
	// (HITL_DEFAULT_FALLBACK_POLICY, default fail).
	DefaultTimeout        time.Duration
	DefaultFallbackPolicy hitl.FallbackPolicy
	// IdempotencyTTL is how long an Idempotency-Key replays its inquiry
	// (HITL_IDEMPOTENCY_TTL; 0: 24 h).
	IdempotencyTTL time.Duration
	// ReceiptValidity is how long a decision receipt holds when its inquiry says nothing
	// (0: engine.DefaultReceiptValidity); ReceiptMaxValidity the most an inquiry may ask for
	// (0: engine.DefaultReceiptMaxValidity).
	ReceiptValidity, ReceiptMaxValidity time.Duration
	// RuleMaxValidity is the longest a standing approval rule may last (0: 7 days).
	RuleMaxValidity time.Duration
	// RuleSuggestAfter is how many identical approvals in a row make the inbox offer a
	// standing approval (0: never).
	RuleSuggestAfter int
	// RetainResolved is how long ended inquiries and finished sessions are kept
	// (HITL_RETAIN_RESOLVED; 0: for good).
	RetainResolved time.Duration
	Notify         NotifyConfig
	Email          EmailConfig
	// Slack is the Slack app this server posts as and takes clicks from (HITL_SLACK_*);
	// without a bot token, Slack is off.
	Slack slack.Config
	// Clock is the engine's clock: deadlines, reminders, escalations (tests move a
	// clock.Manual; default clock.Real).
	Clock clock.Clock
	// Brokers are the message brokers events are published to and action results come from.
	Brokers BrokerConfig
	// AuditKey signs the heads of the audit chain: an Ed25519 key's 32-byte seed in base64
	// (HITL_AUDIT_KEY); by default one is generated at the first start and kept in the database.
	AuditKey string
	// SecretKey encrypts the secrets kept in the database (HITL_SECRET_KEY): the path of a key
	// file or 32 bytes in base64 (internal/secretbox). Unset: they are stored in plaintext.
	SecretKey string
}

// DefaultShutdownTimeout is how long a stop waits for the work in progress by default.
const DefaultShutdownTimeout = 10 * time.Second

// BrokerConfig is the message brokers' settings (HITL_AMQP_*, HITL_NATS_*); an empty URL
// leaves that broker out.
type BrokerConfig struct {
	AMQP amqpbroker.Config
	NATS natsbroker.Config
}

// NotifyConfig says how this server reaches people.
type NotifyConfig struct {
	// Default lists where the notifications of unassigned inquiries go (HITL_NOTIFY_DEFAULT):
	// "slack:C012AB3CD,email:ops@example.com".
	Default string
	// Senders send notifications by channel (hitl.ChannelEmail, hitl.ChannelSlack), built by
	// the channels' packages from their own settings; a channel without one gets no
	// notifications. Chat webhooks always have theirs.
	Senders map[string]notify.Sender
}

// WebhookConfig tunes the delivery of webhooks and resume callbacks. Zero values take the defaults.
type WebhookConfig struct {
	// AllowPrivate lets webhooks and callbacks reach loopback and private addresses
	// (HITL_WEBHOOK_ALLOW_PRIVATE; tests and local use).
	AllowPrivate bool
	// CallbackSecret signs resume callbacks (HITL_CALLBACK_SECRET, whsec_...); by default one
	// is generated at the first start and kept in the database.
	CallbackSecret string
	// Concurrency bounds the attempts in flight (default 64); PerTarget those to one webhook
	// or callback host (default 16).
	Concurrency, PerTarget int
	// AttemptTimeout bounds one attempt (default 10 s).
	AttemptTimeout time.Duration
	// Retries: RetryBase after the first failure, doubling up to RetryMax, for RetryFor.
	RetryBase, RetryMax, RetryFor time.Duration
}

// DefaultDB is the database file when none is given: $XDG_DATA_HOME/hitl/hitl.db, else ~/.local/share/hitl/hitl.db.
func DefaultDB() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "hitl", "hitl.db")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "hitl.db"
	}
	return filepath.Join(home, ".local", "share", "hitl", "hitl.db")
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr %q: want host:port, like 127.0.0.1:7447", c.Addr))
	}
	switch {
	case c.DB == "":
		errs = append(errs, errors.New("db: empty; give a file path"))
	case IsPostgres(c.DB):
	case strings.Contains(c.DB, "://"):
		errs = append(errs, fmt.Errorf("db %q: give a SQLite file path or a postgres:// URL", redact(c.DB)))
	}
	if c.AdminToken != "" && len(c.AdminToken) < 16 {
		errs = append(errs, errors.New("admin token (HITL_ADMIN_TOKEN): at least 16 characters"))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, errors.New("max body bytes: at least 1024"))
	}
	for _, given := range []struct{ name, raw string }{{"public URL", c.PublicURL}, {"agent question callback URL", c.AgentQuestionCallbackURL}} {
		if u, err := url.Parse(given.raw); given.raw != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			errs = append(errs, fmt.Errorf("%s %q: want an absolute http:// or https:// URL", given.name, given.raw))
		}
	}
	if err := checkPushContact(c.PushContact); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.checkSSO()...)
	if c.NovaMaxAnswerBytes < 0 {
		errs = append(errs, errors.New("the largest Nova answer (--nova-max-answer-bytes, HITL_NOVA_MAX_ANSWER_BYTES): must not be negative, like 32768 (0: that default)"))
	}
	if c.ReadingWordsPerMinute < 0 || c.ReadingWordsPerMinute > 10000 {
		errs = append(errs, errors.New("the reading speed (--reading-words-per-minute, HITL_READING_WORDS_PER_MINUTE): from 1 to 10000 words a minute, like 240"))
	}
	if c.ShutdownTimeout < 0 {
		errs = append(errs, errors.New("shutdown timeout (--shutdown-timeout, HITL_SHUTDOWN_TIMEOUT): must not be negative, like 10s"))
	}
	if c.MaxConns < 0 {
		errs = append(errs, errors.New("max conns (--max-conns): must not be negative (0: no cap)"))
	}
	if c.BodyReadTimeout < 0 {
		errs = append(errs, errors.New("body read timeout (--body-read-timeout): must not be negative (0: no limit)"))
	}
	if c.RateLimit.Default.Burst < 0 {
		errs = append(errs, errors.New("rate burst (--rate-burst): must not be negative (0: as many as the rate per unit)"))
	}
	if c.RateLimit.Default.Burst > 0 && c.RateLimit.Default.Off() {
		errs = append(errs, errors.New("rate burst (--rate-burst, HITL_RATE_BURST) without a rate limit (--rate-limit): the burst is of a rate, like --rate-limit 50/s --rate-burst 100"))
	}
	for _, role := range slices.Sorted(maps.Keys(c.RateLimit.Roles)) {
		if !hitl.ValidRole(role) {
			errs = append(errs, fmt.Errorf("role rate limit (--rate-limit-role) %q: not a role; the roles are admin, agent, responder and relay", role))
		}
	}
	if c.AuthFailuresPerMinute < 0 {
		errs = append(errs, errors.New("auth failures per minute (--auth-failures-per-minute): must not be negative (0: no limit)"))
	}
	if c.MCPWaitBound < 0 || c.MCPWaitBound > 5*time.Minute {
		errs = append(errs, errors.New("MCP wait bound: from 0 (the default) to 5m"))
	}
	if c.DefaultTimeout < 0 || c.DefaultTimeout > 365*24*time.Hour {
		errs = append(errs, errors.New("default timeout (--default-timeout, HITL_DEFAULT_TIMEOUT): from 0 (none) to 8760h, like 30m or 24h"))
	}
	if c.IdempotencyTTL != 0 && (c.IdempotencyTTL < time.Minute || c.IdempotencyTTL > 365*24*time.Hour) {
		errs = append(errs, errors.New("idempotency key lifetime (--idempotency-ttl, HITL_IDEMPOTENCY_TTL): from 1m to 8760h, like 24h"))
	}
	if c.ReceiptValidity < 0 || c.ReceiptMaxValidity < 0 || (c.ReceiptValidity > 0 && c.ReceiptValidity > cmp.Or(c.ReceiptMaxValidity, engine.DefaultReceiptMaxValidity)) ||
		(c.ReceiptValidity == 0 && c.ReceiptMaxValidity > 0 && c.ReceiptMaxValidity < engine.DefaultReceiptValidity) {
		errs = append(errs, errors.New("receipt validity (--receipt-validity, HITL_RECEIPT_VALIDITY) must be more than 0 and at most --receipt-max-validity (HITL_RECEIPT_MAX_VALIDITY)"))
	}
	if c.RuleMaxValidity < 0 || c.RuleMaxValidity > 365*24*time.Hour {
		errs = append(errs, errors.New("longest rule (--rule-max-validity, HITL_RULE_MAX_VALIDITY): from 1m to 8760h, like 168h; 0 for the default, 7 days"))
	}
	if c.RuleSuggestAfter < 0 || c.RuleSuggestAfter > 100 {
		errs = append(errs, errors.New("rule suggestions (--rule-suggest-after, HITL_RULE_SUGGEST_AFTER): from 1 to 100 identical approvals in a row, like 5; 0 for none"))
	}
	if c.RetainResolved != 0 && (c.RetainResolved < time.Hour || c.RetainResolved > 100*365*24*time.Hour) {
		errs = append(errs, errors.New("retention (--retain-resolved, HITL_RETAIN_RESOLVED): 0 (keep everything, the default), or from 1h to 36500d, like 90d"))
	}
	if c.DefaultFallbackPolicy != "" && !c.DefaultFallbackPolicy.Valid() {
		errs = append(errs, fmt.Errorf("default fallback policy (--default-fallback-policy, HITL_DEFAULT_FALLBACK_POLICY) %q: use fail, complete_with_fallback or use_default_and_continue", c.DefaultFallbackPolicy))
	}
	if _, err := engine.ParseDestinations(c.Notify.Default); err != nil {
		errs = append(errs, fmt.Errorf("default notification destinations (--notify-default, HITL_NOTIFY_DEFAULT): %w", err))
	}
	if _, err := c.Email.channelConfig(""); err != nil {
		errs = append(errs, err)
	}
	if c.Email.SMTPURL != "" && c.Notify.Senders[hitl.ChannelEmail] != nil {
		errs = append(errs, errors.New("email: give an SMTP URL or an email sender, not both"))
	}
	for channel := range c.Notify.Senders {
		if !slices.Contains(hitl.PersonChannels, channel) {
			errs = append(errs, fmt.Errorf("a notification sender for %q: channels are %v", channel, hitl.PersonChannels))
		}
	}
	errs = append(errs, c.Brokers.AMQP.Validate(), c.Brokers.NATS.Validate())
	if slackConfigured(c.Slack) {
		if err := c.Slack.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.AuditKey != "" {
		if _, err := audit.ParseKey(c.AuditKey); err != nil {
			errs = append(errs, fmt.Errorf("HITL_AUDIT_KEY: %w", err))
		}
	}
	if _, err := secretbox.ParseKey(c.SecretKey); err != nil {
		errs = append(errs, fmt.Errorf("HITL_SECRET_KEY: %w", err))
	}
	w := c.Webhooks
	if w.CallbackSecret != "" {
		if err := outbound.CheckSecret(w.CallbackSecret); err != nil {
			errs = append(errs, fmt.Errorf("callback secret (HITL_CALLBACK_SECRET): %w", err))
		}
	}
	if w.Concurrency < 0 || w.PerTarget < 0 || w.AttemptTimeout < 0 || w.RetryBase < 0 || w.RetryMax < 0 || w.RetryFor < 0 {
		errs = append(errs, errors.New("webhook concurrency and retry durations: must not be negative"))
	}
	if w.RetryBase > 0 && w.RetryMax > 0 && w.RetryMax < w.RetryBase {
		errs = append(errs, errors.New("webhook retry max: must be at least the retry base"))
	}
	return errors.Join(errs...)
}

// IsPostgres reports whether db names a PostgreSQL database rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// redact hides a password in a database URL, for messages and logs.
func redact(db string) string {
	u, err := url.Parse(db)
	if err != nil || u.User == nil {
		return db
	}
	return u.Redacted()
}

// OpenStore opens the store db names: a PostgreSQL URL or a SQLite file.
func OpenStore(ctx context.Context, db string, log *slog.Logger) (hitl.Store, error) {
	if IsPostgres(db) {
		return postgres.Open(ctx, db, log)
	}
	return sqlite.Open(ctx, db)
}

// CheckSchema makes sure, without changing anything, that db holds hitl's schema at the
// version this hitl migrates to: the commands that read or rewrite a database in place (hitl
// audit, hitl secrets) must not turn any database they are given into hitl's.
func CheckSchema(ctx context.Context, db string) error {
	version := sqlite.SchemaVersion
	if IsPostgres(db) {
		version = postgres.SchemaVersion
	}
	have, want, err := version(ctx, db)
	switch {
	case err != nil:
		return err
	case have < 0:
		return hitl.Errorf(hitl.EInvalid, "%s is not a hitl database: it has no hitl schema", redact(db))
	case have < want:
		return hitl.Errorf(hitl.EInvalid, "%s is at schema version %d and this hitl needs %d: run this version's hitl serve (or hitl migrate) on it first", redact(db), have, want)
	case have > want:
		return hitl.Errorf(hitl.EInvalid, "%s is at schema version %d, newer than this hitl knows (%d): use the hitl that wrote it", redact(db), have, want)
	}
	return nil
}

// Server is one running hitl.
type Server struct {
	cfg      Config
	log      *slog.Logger
	store    hitl.Store
	engine   *engine.Engine
	http     *http.Server
	mail     *mailer
	listener net.Listener
	// shuttingDown is closed as the shutdown begins: the engine's waits return at once.
	shuttingDown chan struct{}
	// tracer records spans (a no-op one unless OTEL_EXPORTER_OTLP_*ENDPOINT is set);
	// stopTracing exports what it still holds.
	tracer      trace.TracerProvider
	stopTracing func(context.Context) error
	// AdminToken is set when this start created the first admin key.
	AdminToken string
	// CredentialsPath is the CLI's credentials file when this start wrote it ("" when not);
	// ReplacedCredentialsOf, the URL of another server whose token it replaced there.
	CredentialsPath       string
	ReplacedCredentialsOf string
}

// DBName is the database for messages: the file, or the URL without its password.
func (c *Config) DBName() string { return redact(c.DB) }

// Open validates the configuration, binds the address, opens the store and starts the engine.
// It binds first, so that a second server on a busy address stops before it touches the
// database or starts any timer.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (_ *Server, err error) {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = httpwire.DefaultMaxBodyBytes
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := listen(cfg.Addr)
	if err != nil {
		return nil, err
	}
	var undo undoStack
	defer func() {
		if err != nil {
			undo.unwind()
		}
	}()
	undo.push(func() { ln.Close() })
	publicURL := cfg.PublicURL
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	mail, senders, err := openEmail(cfg.Email, publicURL, cfg.Notify.Senders)
	if err != nil {
		return nil, err
	}
	undo.push(mail.close)
	cfg.Notify.Senders = senders
	slackClient, senders, err := openSlack(cfg.Slack, publicURL, cfg.Notify.Senders, log)
	if err != nil {
		return nil, err
	}
	cfg.Notify.Senders = senders
	st, err := OpenStore(ctx, cfg.DB, log)
	if err != nil {
		return nil, err
	}
	undo.push(func() { st.Close() })
	tp, stopTracing, err := tracing.Setup(ctx, buildinfo.Get().Version, log)
	if err != nil {
		return nil, err
	}
	undo.push(func() { stopTracing(ctx) })
	if tracing.Enabled() {
		log.Info("exporting traces by OTLP over HTTP", "endpoint", cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")))
	}
	s := &Server{cfg: cfg, log: log, store: st, listener: ln, mail: mail, tracer: tp, stopTracing: stopTracing, shuttingDown: make(chan struct{})}
	var eng *engine.Engine
	m := metrics.New(metrics.Gauges{
		Pending: func() float64 { return float64(eng.Pending()) },
		OldestPending: func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			age, err := eng.OldestPendingAge(ctx)
			if err != nil {
				log.Warn("reading the oldest pending inquiry for the metrics failed", "err", err)
			}
			return age.Seconds()
		},
		Waiting: func() float64 { return float64(eng.Waiting()) },
		Streams: func() float64 { return float64(eng.Streams()) },
		BrokerBacklog: func() map[string]int {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			n, err := st.PendingDeliveries(ctx, hitl.DeliveryBroker)
			if err != nil {
				return nil
			}
			for _, b := range cfg.Brokers.names() {
				n[b] += 0 // a broker with no backlog shows 0
			}
			return n
		},
		WriterCounts: writerCounts(st),
	})
	defaults, _ := engine.ParseDestinations(cfg.Notify.Default) // checked by Validate
	channels := []string{}
	for _, c := range hitl.PersonChannels {
		if cfg.Notify.Senders[c] != nil {
			channels = append(channels, c)
		}
	}
	logChannels(log, channels)
	for _, d := range defaults {
		if !slices.Contains(channels, d.Channel) {
			log.Warn("a default notification destination goes unused: this server has no "+d.Channel+" configuration", "destination", d.Channel+":"+d.Address)
		}
	}
	// Every server reaches people's devices by web push: a person turns it on in the inbox.
	channels = append(channels, hitl.ChannelWebPush)
	auditKey, _ := audit.ParseKey(cfg.AuditKey)       // checked by Validate; none given: nil, the key kept in the store
	secretKey, _ := secretbox.ParseKey(cfg.SecretKey) // checked by Validate; none given: nil
	eng = engine.New(st, engine.Options{Clock: cfg.Clock, Logger: log, Metrics: m, AllowPrivateURLs: cfg.Webhooks.AllowPrivate,
		Limits:         engine.Limits{NovaAnswerBytes: cfg.NovaMaxAnswerBytes},
		CallbackSecret: cfg.Webhooks.CallbackSecret, Source: cfg.PublicURL,
		Notify:         engine.NotifyOptions{Channels: channels, Defaults: defaults, PublicURL: publicURL},
		DefaultTimeout: cfg.DefaultTimeout, DefaultFallbackPolicy: cfg.DefaultFallbackPolicy, Brokers: cfg.Brokers.names(),
		IdempotencyTTL: cfg.IdempotencyTTL, ReadingWordsPerMinute: cfg.ReadingWordsPerMinute,
		RetainResolved: cfg.RetainResolved,
		ReceiptIssuer:  publicURL, ReceiptValidity: cfg.ReceiptValidity, ReceiptMaxValidity: cfg.ReceiptMaxValidity,
		RuleMaxValidity: cfg.RuleMaxValidity, RuleSuggestAfter: cfg.RuleSuggestAfter,
		AgentQuestionCallbackURL: cfg.AgentQuestionCallbackURL, PushBody: a2a.PushBody, AuditKey: auditKey, SecretKey: secretKey, Tracer: tp, ShuttingDown: s.shuttingDown})
	s.engine = eng
	// Before anything else writes: a database whose secrets this server cannot read is left as it is.
	err = eng.LoadSecrets(ctx)
	if err == nil {
		// A restored backup moves its sequences before anything gives out a number from them.
		_, err = eng.FinishRestore(ctx)
	}
	if err == nil {
		s.AdminToken, err = eng.Bootstrap(ctx, cfg.AdminToken)
	}
	if err == nil {
		err = eng.Start(ctx)
	}
	if err != nil {
		return nil, err
	}
	if secretKey == nil {
		log.Info("secrets are stored in plaintext in the database; set HITL_SECRET_KEY to encrypt them")
	}
	if cfg.MaxConns > 0 {
		s.listener = netutil.LimitListener(s.listener, cfg.MaxConns)
	}
	limiter := authlimit.New(authlimit.Options{PerMinute: cfg.AuthFailuresPerMinute, Now: cfg.LimiterClock})
	rateOpts := cfg.RateLimit
	rateOpts.Now = cfg.LimiterClock
	s.http = &http.Server{
		Handler: routes(
			httpapi.New(eng, m, log, httpapi.Config{MaxBodyBytes: cfg.MaxBodyBytes, MCPWaitBound: cfg.MCPWaitBound, PublicURL: cfg.PublicURL, AuthLimiter: limiter, RateLimiter: ratelimit.New(rateOpts),
				Tracer: tp}),
			web.New(eng, web.Config{PublicURL: cfg.PublicURL, MaxFormBytes: cfg.MaxBodyBytes, Log: log, AuthLimiter: limiter,
				SSO: cfg.SSO, NoTokenLogin: cfg.NoTokenLogin})),
		ReadHeaderTimeout: 10 * time.Second,
		// The deadline of a request's headers and body. The server lifts it when the body has
		// been read to its end (at once when there is none), so that long polls, streams and
		// WebSockets are not cut short; the API reads the body before its handlers run.
		ReadTimeout: cfg.BodyReadTimeout,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if slackClient != nil {
		s.http.Handler = slackRoutes(s.http.Handler, eng, slackClient, cfg.Slack.SigningSecret, limiter, cfg.MaxBodyBytes)
	}
	if cfg.WriteCredentials {
		if err := s.saveCredentials(ctx); err != nil {
			log.Warn("could not write the credentials file", "err", err)
		}
	}
	return s, nil
}

// logChannels says at start how this server reaches people, and how to turn on a channel that
// is off.
func logChannels(log *slog.Logger, on []string) {
	reach := []string{"the inbox", "chat webhooks", "phones (web push, once a person turns it on)"}
	var off []string
	for _, c := range []struct{ channel, name, flag string }{
		{hitl.ChannelEmail, "email", "--smtp-url"},
		{hitl.ChannelSlack, "Slack", "--slack-bot-token"},
	} {
		if slices.Contains(on, c.channel) {
			reach = append(reach, c.name)
		} else {
			off = append(off, c.name+" (set "+c.flag+")")
		}
	}
	msg := "reaching people by " + strings.Join(reach, ", ")
	if len(off) > 0 {
		msg += "; off: " + strings.Join(off, ", ")
	}
	log.Info(msg, "channels", on)
}

// listen binds the address. An address another process holds (most likely another hitl
// serve) is one line that says so.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is in use — is another hitl serve running? (--addr)", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (--addr): %w", addr, err)
	}
	return ln, nil
}

// routes sends the API's paths to the API and every other path to the web inbox. Every path
// under /v1/, /api/, /mcp/, /agent/, /a2a/ and /.well-known/ is the API's, so that one it does
// not know gets its problem+json 404 rather than the inbox's page.
func routes(api, inbox http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAPI(r.URL.Path) {
			api.ServeHTTP(w, r)
			return
		}
		inbox.ServeHTTP(w, r)
	})
}

func isAPI(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	for _, prefix := range []string{"/v1", "/api", "/mcp", "/agent", "/a2a", "/.well-known"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

// saveCredentials records the URL, and the admin token when this start created one. The file
// is the CLI's for one server: a start that created no token moves the URL on only when the
// token saved there is a key of this server (the same server, on another address), so that a
// second server on the machine does not point the CLI at itself with the first one's token.
func (s *Server) saveCredentials(ctx context.Context) error {
	f, err := credentials.Load()
	if err != nil && s.AdminToken == "" {
		return err
	}
	switch {
	case s.AdminToken != "":
		if f.Token != "" && f.URL != "" && f.URL != s.URL() {
			s.ReplacedCredentialsOf = f.URL
		}
		f.Token = s.AdminToken
	case f.Token != "":
		if _, err := s.engine.Authenticate(ctx, f.Token); hitl.ErrorCode(err) == hitl.EUnauthorized {
			return nil // another server's token: its file stays as it is
		} else if err != nil {
			return err
		}
	}
	f.URL = s.URL()
	s.CredentialsPath, err = credentials.Save(f)
	return err
}

// URL is where the API listens.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Engine is the server's engine: tests watch its gauges (waiters parked, streams open) to
// know when a request has reached the server.
func (s *Server) Engine() *engine.Engine { return s.engine }

// Serve answers requests until ctx ends or a part of the server fails, then shuts down
// within the configured shutdown timeout: it stops accepting, makes long polls and streams
// return at once, lets in-flight requests and email conversations finish, stops the
// deliveries and brokers (an attempt cut short stays in the outbox for the next start), then
// the engine, and closes the store. A part that has not stopped when the time is up is named
// in the error.
func (s *Server) Serve(ctx context.Context) error {
	running := newParts()
	// The dispatcher and brokers run until the shutdown stops them, not as soon as ctx ends:
	// the requests still finishing may publish what they deliver.
	runCtx, stopRunning := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRunning()
	running.run("the HTTP server", func() error {
		if err := s.http.Serve(s.listener); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	if serveReplies := s.mail.serve(s.engine, s.log); serveReplies != nil {
		running.run("the email reply listener", serveReplies)
	}
	publishers := s.startBrokers(runCtx, running)
	dispatcher := s.dispatcher(publishers)
	running.run("the delivery dispatcher", func() error { dispatcher.Run(runCtx); return nil })

	select {
	case <-ctx.Done():
	case <-running.Failed():
	}
	s.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	// Long polls and streams return at once, so that the requests in flight can finish; the
	// engine's timers, outbox and receipts keep going for them until the engine stops, last.
	close(s.shuttingDown)
	var shutdown sync.WaitGroup
	var httpErr, mailErr error
	shutdown.Go(func() { httpErr = s.http.Shutdown(sctx) })
	shutdown.Go(func() { mailErr = s.mail.shutdown(sctx) })
	shutdown.Wait() // each is bounded by sctx
	stopRunning()
	runErr := running.wait(sctx)
	engineErr := s.engine.Stop(sctx)
	closeErr := s.store.Close()
	// The last spans go out within what is left of the shutdown's time; an exporter that
	// cannot reach its collector loses them, and the log says so, but the stop is clean.
	if err := s.stopTracing(sctx); err != nil {
		s.log.Warn("the last spans could not be exported", "err", err)
	}
	return errors.Join(runErr, httpErr, mailErr, engineErr, closeErr)
}

// dispatcher makes the deliveries of the outbox: webhooks, callbacks, notifications by every
// channel (chat webhooks post through its guard, like webhooks) and broker messages.
func (s *Server) dispatcher(publishers map[string]notify.Publisher) *notify.Dispatcher {
	w := s.cfg.Webhooks
	senders := maps.Clone(s.cfg.Notify.Senders)
	if senders == nil {
		senders = map[string]notify.Sender{}
	}
	senders[hitl.ChannelChatWebhook] = chatwebhook.New(notify.NewClient(w.AllowPrivate, cmp.Or(w.AttemptTimeout, notify.DefaultAttemptTimeout)),
		s.engine.ChatWebhookURL)
	senders[hitl.ChannelWebPush] = webpush.New(notify.NewClient(w.AllowPrivate, cmp.Or(w.AttemptTimeout, notify.DefaultAttemptTimeout)),
		s.engine, s.vapidSubscriber())
	return notify.NewDispatcher(s.store, s.engine.DeliveriesReady(), notify.DispatchOptions{
		Concurrency: w.Concurrency, PerTarget: w.PerTarget, AttemptTimeout: w.AttemptTimeout, RetryBase: w.RetryBase, RetryMax: w.RetryMax, RetryFor: w.RetryFor,
		AllowPrivate: w.AllowPrivate, CallbackSecret: s.engine.CallbackSigningSecret(), WebhookSecret: s.engine.WebhookSigningSecret, Logger: s.log, Senders: senders, Publishers: publishers,
		Delivered: s.engine.CallbackDelivered, Now: s.cfg.Clock.Now, // the engine's clock: deliveries it makes are due by that clock
		Tracer: s.tracer})
}

// vapidSubscriber is the contact the VAPID claims of web pushes name, for a push service to
// write to: --push-contact, else the server's public https:// URL, else a local address.
// The sender's library takes an email address without its mailto: (it adds one).
func (s *Server) vapidSubscriber() string {
	if address, ok := strings.CutPrefix(s.cfg.PushContact, "mailto:"); ok {
		return address
	}
	if s.cfg.PushContact != "" {
		return s.cfg.PushContact
	}
	if strings.HasPrefix(s.cfg.PublicURL, "https://") {
		return s.cfg.PublicURL
	}
	return "hitl@localhost"
}

// checkPushContact checks --push-contact: a mailto: URI of one plain email address, or an
// https:// URL (RFC 8292 section 2.1). A push service may refuse the server's messages
// otherwise.
func checkPushContact(contact string) error {
	if contact == "" {
		return nil
	}
	wrong := func(why string) error {
		return fmt.Errorf("push contact (--push-contact, HITL_PUSH_CONTACT) %q: %s; give mailto:someone@example.com or an https:// URL, where a push service can reach whoever runs this server", contact, why)
	}
	if address, ok := strings.CutPrefix(contact, "mailto:"); ok {
		parsed, err := mail.ParseAddress(address)
		if err != nil || parsed.Name != "" || parsed.Address != address {
			return wrong("not one plain email address after mailto:")
		}
		return nil
	}
	u, err := url.Parse(contact)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return wrong("neither a mailto: address nor an https:// URL")
	}
	return nil
}

// names are the brokers configured, for the engine to make their deliveries.
func (b BrokerConfig) names() []string {
	var out []string
	if b.AMQP.URL != "" {
		out = append(out, hitl.BrokerAMQP)
	}
	if b.NATS.URL != "" {
		out = append(out, hitl.BrokerNATS)
	}
	return out
}

// startBrokers connects the configured brokers in the background, so that serving never
// waits for one (events wait in the outbox meanwhile), and returns their publishers.
func (s *Server) startBrokers(ctx context.Context, running *parts) map[string]notify.Publisher {
	pubs := map[string]notify.Publisher{}
	b := s.cfg.Brokers
	if b.AMQP.URL != "" {
		c := amqpbroker.New(b.AMQP, s.engine, s.log)
		pubs[hitl.BrokerAMQP] = c
		running.run("RabbitMQ", func() error { c.Run(ctx); return nil })
	}
	if b.NATS.URL != "" {
		c := natsbroker.New(b.NATS, s.engine, s.log)
		pubs[hitl.BrokerNATS] = c
		running.run("NATS", func() error { c.Run(ctx); return nil })
	}
	return pubs
}

// writerCounts is the store's count of changes and transactions, nil when it keeps none.
func writerCounts(st hitl.Store) func() (int64, int64) {
	if w, ok := st.(hitl.WriterCounter); ok {
		return w.WriterCounts
	}
	return nil
}

// checkSSO reports what is wrong with the single sign-on settings, in the flags' words.
func (c *Config) checkSSO() []error {
	var errs []error
	s := c.SSO
	if s.Issuer == "" {
		if s.ClientID != "" || s.ClientSecret != "" || s.AdminGroup != "" {
			errs = append(errs, errors.New("single sign-on: --oidc-client-id, --oidc-client-secret and --oidc-admin-group need --oidc-issuer (HITL_OIDC_ISSUER), the provider's URL"))
		}
		if c.NoTokenLogin {
			errs = append(errs, errors.New("--inbox-token-login=false leaves nobody a way into the inbox without --oidc-issuer: give the provider, or let tokens sign in"))
		}
		return errs
	}
	if u, err := url.Parse(s.Issuer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--oidc-issuer %q: want the provider's issuer URL, like https://login.example.com/realms/acme", s.Issuer))
	}
	if s.ClientID == "" {
		errs = append(errs, errors.New("--oidc-issuer needs --oidc-client-id (HITL_OIDC_CLIENT_ID): hitl's client at the provider"))
	}
	if s.AdminGroup != "" && !engine.IsGroupName(s.AdminGroup) {
		// Sign-in leaves out groups that are no group names, so nobody would ever be its member.
		errs = append(errs, fmt.Errorf("--oidc-admin-group %q is no hitl group name (letters, digits, . _ @ -), so nobody signing in could be an admin; give the group's name without a path (Keycloak: turn off \"Full group path\")", s.AdminGroup))
	}
	return errs
}
