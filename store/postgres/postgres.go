// Package postgres is the store for several hitl nodes on one PostgreSQL database, with pgx.
//
// Each node writes through one connection that commits the changes arriving together in one
// transaction, each change in its own savepoint (group commit), as the SQLite store does. The
// events of a transaction are inserted at its end, under a transaction-scoped advisory lock,
// each with seq = the largest seq + 1: PostgreSQL releases the lock only after the commit is
// visible, so seq order is commit order and a reader that has seen seq N never later sees a
// smaller one appear, nor a gap (but the one a restore leaves: see MoveSequences). The same
// transaction NOTIFYs the new seq, which other nodes take as a hint to read the log.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/groupcommit"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// eventLock is the advisory lock key that orders event appends ("hitl" in ASCII).
const eventLock = 0x6869746c

// Channel is the NOTIFY channel that carries event hints.
const Channel = "hitl_events"

// Store is the PostgreSQL implementation of hitl.Store.
type Store struct {
	pool *pgxpool.Pool
	db   pgDB // the pool, for the shared reads
	// logDB is the pool for reads of the log after a seq (a follower's, a stream's, the audit
	// walk's): each is planned for its own seq (see pgDB.planEach).
	logDB   pgDB
	log     *slog.Logger
	changes *groupcommit.Queue
}

var (
	_ hitl.Store        = (*Store)(nil)
	_ hitl.EventWatcher = (*Store)(nil)
)

// Open connects to url (postgres://...), applies the migrations under an advisory lock so
// that nodes starting together do not race, and returns the store.
func Open(ctx context.Context, url string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, db: pgDB{q: pool}, logDB: pgDB{q: pool, planEach: true}, log: log}
	warnWithoutAutovacuum(ctx, pool, log)
	s.changes = groupcommit.NewWriters(writers, maxBatch, func(batch []*groupcommit.Op) { s.commit(batch, true) })
	return s, nil
}

func connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") { // the URL's own setting wins
		cfg.MaxConns = int32(max(8, 8*runtime.GOMAXPROCS(0)))
	}
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.HealthCheckPeriod = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return pool, nil
}

// Migrate brings the schema up to date. Several nodes may call it at once: a session advisory
// lock lets one migrate while the others wait.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrateTo(ctx, pool, math.MaxInt64)
}

// migrateTo applies the migrations up to a version (tests start from an older schema).
func migrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	// Migrations are per schema, so nodes on different schemas of one database lock apart.
	var schema string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return dbError(err, "schema")
	}
	lockID := int64(crc64.Checksum([]byte("hitl migrations "+schema), crc64.MakeTable(crc64.ECMA)) >> 1)
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID), lock.WithLockTimeout(1, 300))
	if err != nil {
		return err
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := migrations(db, goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	if err := sqlstore.CheckApplied(ctx, db, hasSchemaTable, versions(p)); err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	return nil
}

// hasSchemaTable asks whether the schema holds goose's table of applied migrations.
const hasSchemaTable = "SELECT to_regclass('goose_db_version') IS NOT NULL"

// versions are the versions of p's migrations, ascending.
func versions(p *goose.Provider) []int64 {
	var vs []int64
	for _, s := range p.ListSources() {
		vs = append(vs, s.Version)
	}
	return vs
}

// migrations are the schema's migrations on db.
func migrations(db *sql.DB, opts ...goose.ProviderOption) (*goose.Provider, error) {
	dir, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	opts = append(opts, goose.WithGoMigrations(goose.NewGoMigration(3, &goose.GoFunc{RunTx: dialect.AddPromptColumn}, nil),
		goose.NewGoMigration(13, &goose.GoFunc{RunTx: addEventHashes}, nil),
		goose.NewGoMigration(17, &goose.GoFunc{RunTx: dialect.AddStatsColumns}, nil)),
		goose.WithSlog(slog.New(slog.DiscardHandler)), goose.WithDisableGlobalRegistry(true))
	p, err := goose.NewProvider(goose.DialectPostgres, db, dir, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// SchemaVersion reads, without changing anything, the schema version of the database at url
// (-1 when it holds no hitl schema) and the version this hitl migrates to.
func SchemaVersion(ctx context.Context, url string) (have, want int64, err error) {
	pool, err := connect(ctx, url)
	if err != nil {
		return 0, 0, err
	}
	defer pool.Close()
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := migrations(db)
	if err != nil {
		return 0, 0, err
	}
	sources := p.ListSources()
	have, err = sqlstore.AppliedVersion(ctx, db, hasSchemaTable)
	return have, sources[len(sources)-1].Version, dbError(err, "schema version")
}

// MigrateURL connects, migrates and disconnects: `hitl migrate`.
func MigrateURL(ctx context.Context, url string) error {
	pool, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	return Migrate(ctx, pool)
}

// Close finishes the changes already queued and closes the pool.
func (s *Store) Close() error {
	s.changes.Close()
	s.pool.Close()
	return nil
}

// WriterCounts: see hitl.WriterCounter.
func (s *Store) WriterCounts() (changes, batches int64) { return s.changes.Counts() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return hitl.Errorf(hitl.EUnavailable, "the database does not answer")
	}
	return nil
}

// Update queues fn for the node's writer and returns once the transaction holding it has
// committed (or fn failed).
func (s *Store) Update(ctx context.Context, fn func(hitl.Tx) error) error {
	return s.changes.Update(ctx, fn)
}

// writers is how many batches a node runs at once, each on a connection of its own. A batch
// spends most of its time waiting on the server (a round trip per statement it reads the
// answer of, then the commit's flush), during which another batch can run its statements:
// two batches run as two nodes' batches do, their row locks ordering them and the event lock
// ordering their events, which are taken only for the commit. As with two nodes, two batches
// that lock the same rows in opposite orders (a session's cancellation beside answers to its
// inquiries, say) can deadlock: PostgreSQL ends one after its deadlock_timeout (1 s by
// default), and its changes run again one by one (commit). Nothing is lost, but it is a stall
// a node with one writer never had.
const writers = 2

// maxBatch bounds how many changes share one transaction: the row locks a batch takes are held
// until it commits, so batches stay short.
const maxBatch = 64

// batchTimeout bounds one batch, so that an unreachable database fails changes instead of
// holding them.
const batchTimeout = 30 * time.Second

// commit runs a batch of changes in one transaction, each in its own savepoint, and commits
// it with the kept changes' events in one pipelined batch: take the event lock, insert the
// events, NOTIFY, COMMIT. The lock that orders events is held only while the server runs that
// batch and flushes the commit, once for all the changes. With retry, a change that lost a
// deadlock runs again (commitAlone), whether its batch held others or only it.
func (s *Store) commit(batch []*groupcommit.Op, retry bool) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		for _, o := range batch {
			o.Err = dbError(err, "connect")
		}
		return
	}
	// A connection left inside a transaction (after an error) is not reused: pgxpool closes
	// connections released with a transaction open.
	defer c.Release()
	t := newTxn(ctx, c.Conn())
	for _, o := range batch {
		if err := o.Ctx.Err(); err != nil {
			o.Err = err
			continue
		}
		t.beginChange()
		o.Err = runChange(o.Fn, t)
		t.endChange(o.Err == nil)
	}
	b := &pgx.Batch{}
	if len(t.kept) > 0 {
		queueEvents(b, t.kept, t.seqAt)
	}
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return errors.New("the transaction was rolled back")
		}
		return nil
	})
	err = t.send(b).Close()
	if err == nil {
		err = t.broken
	}
	if err == nil {
		// A change that lost a deadlock inside the batch was rolled back to its savepoint
		// while the others went on: it runs again alone.
		for _, o := range batch {
			if retry && retryable(o.Err) {
				s.commitAlone(o)
			}
		}
		return
	}
	// The batch rolled back as a whole (deadlocked with another node's batch, say): when that
	// can be cured, its changes run again, each in a transaction of its own.
	if retry && retryable(dbError(err, "commit")) {
		s.log.Warn("a batch of changes deadlocked; running them one by one", "changes", len(batch))
		for _, o := range batch {
			s.commitAlone(o)
		}
		return
	}
	for _, o := range batch {
		if o.Err == nil {
			o.Err = dbError(err, "commit")
		}
	}
}

// commitAlone runs one change of a batch again, in a transaction of its own, as many as
// aloneAttempts times while it keeps losing deadlocks: a deadlock is cured by running again,
// and the nodes' batches that met it (creates racing on one idempotency key, say) may meet
// once more.
func (s *Store) commitAlone(o *groupcommit.Op) {
	for range aloneAttempts {
		alone := &groupcommit.Op{Ctx: o.Ctx, Fn: o.Fn}
		s.commit([]*groupcommit.Op{alone}, false)
		if o.Err = alone.Err; !retryable(o.Err) {
			return
		}
	}
}

// aloneAttempts is how many times a change that lost a deadlock runs again on its own.
const aloneAttempts = 3

func runChange(fn func(hitl.Tx) error, t *txn) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("change panicked: %v", p)
		}
	}()
	return fn(t)
}

// queueEvents queues taking the event lock (held until the commit), inserting the events with
// the next seqs (or those of seqAt) and their links of the audit chain, and notifying the
// last seq.
func queueEvents(b *pgx.Batch, evs []*hitl.Event, seqAt map[*hitl.Event]int64) {
	b.Queue("SELECT pg_advisory_xact_lock($1)", eventLock)
	for _, ev := range evs {
		queueInsertEvent(b, ev, seqAt[ev])
	}
	b.Queue("SELECT pg_notify($1, (SELECT MAX(seq) FROM events)::text)", Channel)
}

// dbError turns a driver error into a domain error: by SQLSTATE for what the database
// refused, and unavailable for a database that cannot be reached.
func dbError(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) {
		return notFound(what)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return hitl.Errorf(hitl.EConflict, "%s already exists", what)
		case pe.Code == "55P03": // lock_not_available: another node holds the row (NOWAIT)
			return hitl.Errorf(hitl.EConflict, "%s is being changed by another node", what)
		case pe.Code == "40001" || pe.Code == "40P01": // serialization failure, deadlock
			return errRetry{hitl.Errorf(hitl.EUnavailable, "the database asked to retry: %s", what)}
		case pe.Code[:2] == "08" || pe.Code[:2] == "57" || pe.Code == "53300": // connection, shutdown, too many connections
			return hitl.Errorf(hitl.EUnavailable, "the database is unavailable")
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	lost := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET)
	if lost || errors.As(err, &ne) || errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, pgx.ErrTxClosed) {
		return hitl.Errorf(hitl.EUnavailable, "the database is unavailable")
	}
	if pgconn.Timeout(err) {
		return hitl.Errorf(hitl.EUnavailable, "the database did not answer in time")
	}
	return fmt.Errorf("%s: %w", what, err)
}

// errRetry marks a failure that running the change again cures: a deadlock with another
// node's batch, or a serialization failure.
type errRetry struct{ err *hitl.Error }

func (e errRetry) Error() string { return e.err.Error() }
func (e errRetry) Unwrap() error { return e.err }

func retryable(err error) bool { return errors.As(err, &errRetry{}) }

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// warnWithoutAutovacuum says so when the server's autovacuum is off: hitl's tables are then
// never vacuumed or analyzed, so the old rows of every answered inquiry stay in its indexes,
// and the plans PostgreSQL caches keep the costs of tables as they were when first run.
func warnWithoutAutovacuum(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	var setting string
	if err := pool.QueryRow(ctx, "SHOW autovacuum").Scan(&setting); err != nil || setting != "off" {
		return
	}
	log.Warn("PostgreSQL's autovacuum is off: hitl's tables will be neither vacuumed nor analyzed, and reads slow down as they grow; " +
		"set autovacuum = on in postgresql.conf, or run VACUUM ANALYZE on hitl's tables regularly")
}
