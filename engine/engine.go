// Package engine holds every business rule of hitl, once: validation of questions and
// answers, who may see and do what, first-answer-wins, idempotency, sessions, deadlines and
// their fallbacks, and waking the agents that wait. Stores persist what it decides; httpapi
// and the other front ends translate to and from it.
package engine

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/deadline"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
	"github.com/hitl-dev/hitl/engine/internal/loops"
	"github.com/hitl-dev/hitl/engine/internal/outbox"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/metrics"
	"github.com/hitl-dev/hitl/internal/secretbox"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/schema"
)

// Limits bound what one request may store.
type Limits struct {
	ContextBytes int // an inquiry's context (default 256 KiB)
	StateBytes   int // a session's state (default 1 MiB)
	// NovaAnswerBytes bounds an answer through Nova's POST /api/interactions/{id}/answer
	// (default DefaultNovaAnswerBytes): Nova's own answers were unbounded, a gap its seed lists.
	NovaAnswerBytes int
}

// DefaultNovaAnswerBytes is the default of Limits.NovaAnswerBytes, the top of the 8-32 KB its
// seed recommends.
const DefaultNovaAnswerBytes = 32 << 10

// Thresholds decide the engagement mode; see Decide.
type Thresholds struct {
	// Defer when risk is at least DeferRisk or reversibility at most DeferReversibility.
	DeferRisk, DeferReversibility float64
	// Require input when confidence is below RequireConfidence or risk at least RequireRisk.
	RequireConfidence, RequireRisk float64
	// Act autonomously when confidence is at least AutonomousConfidence, risk at most
	// AutonomousRisk and reversibility at least AutonomousReversibility.
	AutonomousConfidence, AutonomousRisk, AutonomousReversibility float64
}

// DefaultThresholds are the documented defaults of the engagement decision.
var DefaultThresholds = Thresholds{
	DeferRisk: 0.9, DeferReversibility: 0.1,
	RequireConfidence: 0.5, RequireRisk: 0.6,
	AutonomousConfidence: 0.85, AutonomousRisk: 0.3, AutonomousReversibility: 0.5,
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Clock is the time of the engine's rules and the clock its timers (deadlines, reminders,
	// escalations, claims) keep; nil: clock.Real. Tests move a clock.Manual and the timers fire.
	Clock      clock.Clock
	Logger     *slog.Logger
	Metrics    *metrics.Metrics
	Limits     Limits
	Thresholds *Thresholds
	// AllowPrivateURLs lets webhooks and callbacks reach loopback and private addresses
	// (tests, local use); by default they are refused.
	AllowPrivateURLs bool
	// CallbackSecret signs resume callbacks (whsec_...); empty: one generated at the first
	// start and kept in the store, shared by every node.
	CallbackSecret string
	// Source is the CloudEvents source of deliveries: the server's public URL (default "urn:hitl").
	Source string
	// Notify says how this server reaches people (see engine/notify.go).
	Notify NotifyOptions
	// DefaultTimeout is the deadline of inquiries that give none (0: none), and
	// DefaultFallbackPolicy the policy of inquiries that name none (default fail; a policy
	// that applies a value is the default only of inquiries that give a fallback_value).
	DefaultTimeout        time.Duration
	DefaultFallbackPolicy hitl.FallbackPolicy
	// Brokers are the message brokers events are published to (hitl.BrokerAMQP, hitl.BrokerNATS).
	Brokers []string
	// AgentQuestionCallbackURL receives every new question of every session, and its answer,
	// in the async agent questions protocol's format (engine/agentquestions.go); empty: none.
	AgentQuestionCallbackURL string
	// PushBody is the body of a push notification of an inquiry's end (engine/pushconfigs.go):
	// A2A's Task, which its protocol package shapes; nil: push configs are refused.
	// The version is the config's (hitl.PushConfig.Version).
	PushBody func(inq *hitl.Inquiry, version string) (json.RawMessage, error)
	// ReceiptIssuer is the iss of decision receipts: the server's public URL, without a
	// trailing slash. ReceiptValidity is how long a receipt holds when the inquiry says
	// nothing (0: DefaultReceiptValidity), ReceiptMaxValidity the most an inquiry may ask
	// for (0: DefaultReceiptMaxValidity).
	ReceiptIssuer      string
	ReceiptValidity    time.Duration
	ReceiptMaxValidity time.Duration
	// AuditKey signs the heads of the audit chain (HITL_AUDIT_KEY); nil: one generated at the
	// first start and kept in the store, shared by every node.
	AuditKey ed25519.PrivateKey
	// SecretKey encrypts the secrets kept in the store (HITL_SECRET_KEY, engine/secrets.go);
	// nil: they are stored in plaintext.
	SecretKey *secretbox.Key
	// IdempotencyTTL is how long an idempotency key replays the inquiry it created
	// (0: DefaultIdempotencyTTL); older keys are removed (engine/housekeeping.go).
	IdempotencyTTL time.Duration
	// ReadingWordsPerMinute is the reading speed of decision analytics' "too fast" (0:
	// DefaultReadingWordsPerMinute; engine/analytics.go).
	ReadingWordsPerMinute int
	// RuleMaxValidity is the longest a standing approval rule may last (engine/rules.go;
	// 0: hitl.DefaultRuleMaxValidity).
	RuleMaxValidity time.Duration
	// RuleSuggestAfter is how many identical approvals in a row make the inbox offer a
	// standing approval (engine/suggestions.go); 0: never.
	RuleSuggestAfter int
	// RetainResolved is how long ended inquiries and finished sessions are kept before
	// retention removes them (engine/retention.go); 0 keeps them for good.
	RetainResolved time.Duration
	// Tracer records the spans of creating and answering inquiries (nil: none); the trace
	// context of the request that creates an inquiry is kept with it either way.
	Tracer trace.TracerProvider
	// ShuttingDown, when given, is closed as the server begins to stop: from then on every
	// wait returns the inquiry's current state at once and streams end (as Stop does first),
	// while the timers, the outbox and the receipts of answers keep going until Stop, for the
	// requests that are still finishing.
	ShuttingDown <-chan struct{}
}

// Engine applies hitl's rules on top of a Store.
type Engine struct {
	store      hitl.Store
	clk        clock.Clock
	log        *slog.Logger
	metrics    *metrics.Metrics
	limits     Limits
	thresholds Thresholds
	schemas    *schema.Cache
	keys       keyCache
	absences   absenceCache // engine/absences.go
	rules      ruleCache    // engine/rules.go
	// ruleMaxValid is the longest a standing approval may last (0: the default).
	ruleMaxValid time.Duration
	// ruleSuggestAfter: Options.RuleSuggestAfter.
	ruleSuggestAfter int
	hub              *fanout.Hub
	// follower reads the event log for the streams, and on a shared store for the other
	// nodes' changes; lastLocalSeq is the newest seq committed by this node.
	follower     *fanout.Follower
	lastLocalSeq atomic.Int64
	waiters      *fanout.Waiters
	deadlines    *deadline.Queue
	nudges       *deadline.Queue // reminders and escalations, keyed by inquiry like deadlines
	claims       *deadline.Queue // the expiry of claims
	// idempotencyTTL: see Options.IdempotencyTTL.
	idempotencyTTL time.Duration
	analytics      analytics // engine/analytics.go
	retainResolved time.Duration
	purgeFor       time.Duration // 0: defaultPurgeFor (tests shorten it)
	outbox         *outbox.Outbox
	// resumes are the agents' receipts of answers waiting to be written (engine/resume.go).
	resumes chan resume
	// For deliveries: see Options.
	allowPrivate   bool
	callbackSecret string
	// linkSecret signs answer links; every node reads the same one from the store.
	linkSecret string
	// vapid is the VAPID key pair that signs web pushes (engine/webpush.go); from the store.
	vapid struct{ private, public string }
	// secretKey: see Options.SecretKey.
	secretKey *secretbox.Key
	source    string
	notify    NotifyOptions
	brokers   []string
	// agentQuestionURL: see Options.AgentQuestionCallbackURL.
	agentQuestionURL string
	pushBody         func(*hitl.Inquiry, string) (json.RawMessage, error)
	tracer           trace.Tracer
	audit            auditChain // engine/audit.go
	// signing: the receipt signing keys (engine/receipts.go), from the store.
	signing                             signingKeys
	receiptIssuer                       string
	receiptValidity, receiptMaxValidity time.Duration
	// Defaults of inquiries: see Options.
	defaultTimeout  time.Duration
	defaultFallback hitl.FallbackPolicy
	pending         atomic.Int64
	// groups are the groups the response-time histogram names (engine/stats.go).
	groups atomic.Pointer[knownGroups]
	// following: the store is shared with other nodes, and the event log, read by follow,
	// keeps this node in step with them.
	following bool
	draining  chan struct{}
	drainOnce sync.Once
	// shuttingDown: see Options.ShuttingDown (nil: only Stop drains).
	shuttingDown <-chan struct{}

	// loops are the engine's own: the housekeeping, the inbox streams' check, the receipts.
	loops loops.Group

	// validating, when set (by tests), is called as an answer is validated.
	validating func(*hitl.Inquiry)
	// validators holds a token for each answer being validated (see validationSlot).
	validators chan struct{}
}

// New returns an engine over store. Call Start before serving and Stop when done.
func New(store hitl.Store, o Options) *Engine {
	e := &Engine{store: store, clk: o.Clock, log: o.Logger, metrics: o.Metrics, limits: o.Limits, schemas: schema.NewCache(4096, 4<<20),
		allowPrivate: o.AllowPrivateURLs, callbackSecret: o.CallbackSecret, source: o.Source, notify: o.Notify, brokers: o.Brokers,
		agentQuestionURL: o.AgentQuestionCallbackURL, pushBody: o.PushBody,
		defaultTimeout: o.DefaultTimeout, defaultFallback: o.DefaultFallbackPolicy}
	e.audit.key, e.secretKey = o.AuditKey, o.SecretKey
	e.ruleMaxValid = o.RuleMaxValidity
	e.ruleSuggestAfter = o.RuleSuggestAfter
	e.tracer = tracing.Tracer(o.Tracer)
	if e.source == "" {
		e.source = "urn:hitl"
	}
	if e.clk == nil {
		e.clk = clock.Real
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.limits.ContextBytes == 0 {
		e.limits.ContextBytes = 256 << 10
	}
	if e.limits.StateBytes == 0 {
		e.limits.StateBytes = 1 << 20
	}
	if e.limits.NovaAnswerBytes == 0 {
		e.limits.NovaAnswerBytes = DefaultNovaAnswerBytes
	}
	e.thresholds = DefaultThresholds
	if o.Thresholds != nil {
		e.thresholds = *o.Thresholds
	}
	e.validators = make(chan struct{}, runtime.GOMAXPROCS(0))
	e.draining = make(chan struct{})
	e.shuttingDown = o.ShuttingDown
	e.resumes = make(chan resume, resumeQueue)
	e.outbox = outbox.New(store, e.planDeliveries, e.log)
	e.waiters = fanout.NewWaiters()
	e.hub = fanout.NewHub(eventVisible, e.log)
	e.follower = fanout.NewFollower(store, e.hub, e.lastLocalSeq.Load, e.log)
	e.deadlines = deadline.New(e.clk, e.expire)
	e.nudges = deadline.New(e.clk, e.nudge)
	e.claims = deadline.New(e.clk, e.expireClaims)
	e.idempotencyTTL = cmp.Or(o.IdempotencyTTL, DefaultIdempotencyTTL)
	e.analytics.wordsPerMinute = cmp.Or(o.ReadingWordsPerMinute, DefaultReadingWordsPerMinute)
	e.retainResolved = o.RetainResolved
	e.receiptIssuer = strings.TrimSuffix(cmp.Or(o.ReceiptIssuer, e.source), "/")
	e.receiptValidity = cmp.Or(o.ReceiptValidity, DefaultReceiptValidity)
	e.receiptMaxValidity = cmp.Or(o.ReceiptMaxValidity, DefaultReceiptMaxValidity)
	return e
}

// loadTimers loads every pending deadline, reminder and claim into the timers. The lists read
// are garbage once loaded, several times the timers' own memory (a deadline is 32 bytes in
// the list and grew it by doubling, 50 in the timers): with many, the memory they took is
// given back to the system at once, so that a node holding ten million deadlines does not keep
// half a gigabyte it used only to start.
// It returns how many of each it loaded.
func (e *Engine) loadTimers(ctx context.Context) (deadlines, reminders, claims int, err error) {
	counts := []*int{&deadlines, &reminders, &claims}
	for i, t := range []struct {
		queue *deadline.Queue
		list  func(context.Context) ([]hitl.Deadline, error)
	}{{e.deadlines, e.store.PendingDeadlines}, {e.nudges, e.store.PendingNudges}, {e.claims, e.store.PendingClaims}} {
		ds, err := t.list(ctx)
		if err != nil {
			return 0, 0, 0, err
		}
		t.queue.AddAll(ds)
		*counts[i] = len(ds)
	}
	if deadlines+reminders+claims >= manyTimers {
		debug.FreeOSMemory()
	}
	return deadlines, reminders, claims, nil
}

// manyTimers is how many loaded timers make the memory of their lists worth giving back at
// start-up (a forced collection, tens of milliseconds with millions).
const manyTimers = 100_000

// Start loads the pending deadlines (timing out at once what is overdue), runs the timers, and
// follows the event log (for the streams, and on a shared store for the other nodes' changes).
func (e *Engine) Start(ctx context.Context) error {
	watcher, shared := e.store.(hitl.EventWatcher)
	after, err := e.store.LastEventSeq(ctx)
	if err != nil {
		return err
	}
	n, err := e.store.PendingCount(ctx)
	if err != nil {
		return err
	}
	e.pending.Store(int64(n))
	deadlines, reminders, _, err := e.loadTimers(ctx)
	if err != nil {
		return err
	}
	if err := e.LoadSecrets(ctx); err != nil {
		return err
	}
	if err := e.loadKnownGroups(ctx); err != nil {
		return err
	}
	runCtx := e.loops.Start(ctx)
	e.following = shared // before the timers start: an overdue one fires at once and reads it
	e.deadlines.Start(runCtx)
	e.nudges.Start(runCtx)
	e.claims.Start(runCtx)
	e.follower.Start(runCtx, after, e.followingOf(watcher))
	e.outbox.Start(runCtx)
	e.loops.Go(func() { e.checkInboxStreams(runCtx) })
	e.loops.Go(func() { e.keepHouse(runCtx) })
	e.loops.Go(func() { e.reverifyAuditWhenDue(runCtx) })
	e.loops.Go(func() { e.recordResumes(runCtx) })
	e.loops.Go(func() {
		select {
		case <-e.shuttingDown:
			e.drain()
		case <-runCtx.Done():
		}
	})
	e.log.Info("engine started", "pending", n, "deadlines", deadlines, "reminders", reminders)
	return nil
}

// drain makes every wait in progress, and every later one, return at once.
func (e *Engine) drain() { e.drainOnce.Do(func() { close(e.draining) }) }

// Stop shuts the engine down: first every wait in progress, and every later one, returns the
// inquiry's current state at once (streams end too, see Draining), so that a server shutting
// down holds no long poll open; then the timers, the follower, the outbox and the housekeeping
// stop, and Stop waits for what they are doing, no longer than ctx allows. The error names
// what had not stopped by then.
func (e *Engine) Stop(ctx context.Context) error {
	e.drain()
	parts := []struct {
		name string
		stop func(context.Context) error
	}{
		{"the deadlines", e.deadlines.Stop},
		{"the reminders", e.nudges.Stop},
		{"the claims' expiry", e.claims.Stop},
		{"the outbox", e.outbox.Stop},
		{"the follower", e.follower.Stop},
		{"the housekeeping and the receipts of answers", e.loops.Stop},
	}
	errs := make([]error, len(parts))
	var stopping sync.WaitGroup
	for i, p := range parts {
		stopping.Go(func() {
			if err := p.stop(ctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", p.name, err)
			}
		})
	}
	stopping.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the engine had not stopped when the time to stop ran out (%w)", err)
	}
	return nil
}

// Pending returns the number of pending inquiries, for the metrics gauge.
func (e *Engine) Pending() int64 { return e.pending.Load() }

// Waiting returns the number of agents parked on a wait, for the metrics gauge.
func (e *Engine) Waiting() int64 { return e.waiters.Count() }

// Ready reports whether the store answers.
func (e *Engine) Ready(ctx context.Context) error { return e.store.Ping(ctx) }

func (e *Engine) clock() time.Time { return hitl.UTC(e.clk.Now()) }

// Now is the engine's clock, which decides deadlines and claims: pages that word such a time
// read it here, so that they say what the engine would decide.
func (e *Engine) Now() time.Time { return e.clock() }

func isKeyEvent(ev *hitl.Event) bool { return strings.HasPrefix(ev.Type, "key.") }

// appendInquiryEvent records the change of inq in the transaction's event log; its data is
// the inquiry after the change.
func appendInquiryEvent(tx hitl.Tx, typ string, inq *hitl.Inquiry, actor string, at time.Time) (*hitl.Event, error) {
	return appendInquiryEventWith(tx, typ, inq, inq, actor, at)
}

// appendInquiryEventWith is appendInquiryEvent with other data: the inquiry and what the
// event adds to it.
func appendInquiryEventWith(tx hitl.Tx, typ string, inq *hitl.Inquiry, shown any, actor string, at time.Time) (*hitl.Event, error) {
	data, err := json.Marshal(shown)
	if err != nil {
		return nil, err
	}
	id := inq.ID
	ev := &hitl.Event{ID: uuid.NewString(), Type: typ, Time: at, InquiryID: &id, Session: inq.Session, Actor: actor, Data: data, Inquiry: inq}
	if err := tx.AppendEvent(ev); err != nil {
		return ev, err
	}
	ev.Then, err = followEnding(tx, ev) // the askers that joined an inquiry that ends unanswered (engine/dedup.go)
	return ev, err
}

// appendSessionEvent records the change of a session; its data is the session after it.
func appendSessionEvent(tx hitl.Tx, typ string, s *hitl.Session, actor string, at time.Time) (*hitl.Event, error) {
	return appendSessionEventWith(tx, typ, s, s, actor, at)
}

// appendSessionEventWith is appendSessionEvent with other data: the session and what the
// event adds to it.
func appendSessionEventWith(tx hitl.Tx, typ string, s *hitl.Session, shown any, actor string, at time.Time) (*hitl.Event, error) {
	data, err := json.Marshal(shown)
	if err != nil {
		return nil, err
	}
	ev := &hitl.Event{ID: uuid.NewString(), Type: typ, Time: at, Session: s.Key, Actor: actor, Data: data}
	return ev, tx.AppendEvent(ev)
}

// appendAuditEvent records a change of what only admins see (a key, a webhook): an event about
// no inquiry and no session, whose data is shown (stripped of secrets by the caller).
func appendAuditEvent(tx hitl.Tx, typ string, shown any, actor string, at time.Time) (*hitl.Event, error) {
	data, err := json.Marshal(shown)
	if err != nil {
		return nil, err
	}
	ev := &hitl.Event{ID: uuid.NewString(), Type: typ, Time: at, Actor: actor, Data: data}
	return ev, tx.AppendEvent(ev)
}

// published is called after a commit with the events it held: it wakes waiters at once and
// keeps the timers (and, on a store of its own, the pending count) in step. On a shared store
// follow applies the same events again, and those of the other nodes.
func (e *Engine) published(evs []*hitl.Event) {
	at := time.Now()
	evs = withThen(evs)
	for _, ev := range evs {
		for cur := e.lastLocalSeq.Load(); ev.Seq > cur && !e.lastLocalSeq.CompareAndSwap(cur, ev.Seq); cur = e.lastLocalSeq.Load() {
		}
		if isKeyEvent(ev) {
			e.keyChanged(ev)
			continue
		}
		if ev.Type == hitl.EventSigningKeyRotated {
			continue // RotateSigningKey set this node's keys
		}
		if isAbsenceEvent(ev) {
			e.absences.forget()
			continue
		}
		if isRuleEvent(ev) {
			e.rules.forget()
			continue
		}
		inq := ev.Inquiry
		if inq == nil {
			continue
		}
		switch ev.Type {
		case hitl.EventInquiryCreated:
			if !e.following {
				e.pending.Add(1)
			}
			e.metrics.InquiryCreated()
			if inq.TimeoutAt != nil {
				e.deadlines.Add(inq.ID, *inq.TimeoutAt)
			}
			e.keepNudge(inq.ID, inq.NextNudge())
		case hitl.EventInquiryReminded, hitl.EventInquiryEscalated:
			e.keepNudge(inq.ID, inq.NextNudge())
		case hitl.EventInquiryStepCompleted, hitl.EventInquiryClaimed, hitl.EventInquiryReleased:
			e.keepTimers(inq.ID, timersOf(inq))
		case hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
			if !e.following {
				e.pending.Add(-1)
			}
			e.deadlines.Remove(inq.ID)
			e.nudges.Remove(inq.ID)
			e.claims.Remove(inq.ID)
			e.metrics.InquiryResolved(string(inq.Status), inq.UpdatedAt.Sub(inq.CreatedAt), e.groupLabels(inq))
			if inq.Status == hitl.StatusResponded {
				e.observeDecision(inq)
			}
			e.waiters.Wake(inq, at)
		}
	}
	if len(evs) > 0 {
		e.kickFollower()
		e.outbox.Kick()
	}
}

// Draining is closed when the engine drains for shutdown: streams end then.
func (e *Engine) Draining() <-chan struct{} { return e.draining }
