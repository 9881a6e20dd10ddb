// Package sqlite is the embedded store: one file, pure Go (modernc.org/sqlite), WAL and
// synchronous=FULL so an acknowledged change survives power loss.
//
// All writes go through one connection owned by one goroutine, which commits the changes
// that arrive together in one transaction (group commit): each change runs inside its own
// savepoint, so a change that fails is rolled back alone, and every caller is answered only
// after the fsync of the commit that holds its change. Reads use a separate pool of
// read-only connections, which WAL lets run beside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/pressly/goose/v3"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/groupcommit"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// hasSchemaTable asks whether the database holds goose's table of applied migrations.
const hasSchemaTable = "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version')"

// versions are the versions of p's migrations, ascending.
func versions(p *goose.Provider) []int64 {
	var vs []int64
	for _, s := range p.ListSources() {
		vs = append(vs, s.Version)
	}
	return vs
}

// migrations are the files under migrations/ and, between them, the ones written in Go.
func migrations(db *sql.DB) (*goose.Provider, error) {
	dir, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, dir,
		goose.WithGoMigrations(goose.NewGoMigration(3, &goose.GoFunc{RunTx: dialect.AddPromptColumn}, nil),
			goose.NewGoMigration(13, &goose.GoFunc{RunTx: addEventHashes}, nil),
			goose.NewGoMigration(17, &goose.GoFunc{RunTx: dialect.AddStatsColumns}, nil)),
		goose.WithSlog(slog.New(slog.DiscardHandler)), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// SchemaVersion reads, without changing anything, the schema version of the SQLite database
// at path (-1 when it holds no hitl schema) and the version this hitl migrates to.
func SchemaVersion(ctx context.Context, path string) (have, want int64, err error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	p, err := migrations(db)
	if err != nil {
		return 0, 0, err
	}
	sources := p.ListSources()
	have, err = sqlstore.AppliedVersion(ctx, db, hasSchemaTable)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	return have, sources[len(sources)-1].Version, nil
}

// writerCacheKiB is the writer connection's page cache, in KiB (SQLite's default is 2,000).
// Only the one writer has it; the readers keep the default, as there are several of them.
const writerCacheKiB = 64 << 10

// maxBatch bounds how many changes share one commit, so that one commit's latency stays small.
const maxBatch = 256

// Store is the SQLite implementation of hitl.Store.
type Store struct {
	writer      *sql.DB
	written     *writerStmts // the writer's statements, prepared once
	reader      *sql.DB
	read        *readPool // runs reads on reader with prepared statements
	changes     *groupcommit.Queue
	checkpoints *checkpointer
	reads       chan func()
	quit        chan struct{}
	readers     sync.WaitGroup
}

var _ hitl.Store = (*Store)(nil)

// Open opens (creating if needed) the database file at path and brings its schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create database directory: %w", err)
		}
	}
	// The file holds answers and token hashes: only its owner may read it. SQLite gives the
	// -wal and -shm files the mode of the database file.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f.Close()
	dsn := func(extra ...string) string {
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Add("_pragma", "foreign_keys(1)")
		for _, pragma := range extra {
			q.Add("_pragma", pragma)
		}
		return "file:" + path + "?" + q.Encode()
	}
	// The writer keeps its temporary files in memory: each change of a batch runs in its own
	// savepoint, whose journal of the pages it changed otherwise spills past 64 KiB into a
	// temporary file — an open, writes and a close on the writer's path, 14 % of its CPU. (The
	// readers keep the default: a large sort may spill to disk.)
	// Its own automatic checkpoint waits for writerCheckpointPages (checkpoint.go says why).
	// Its page cache is writerCacheKiB: with SQLite's default of 2 MiB, on a database of a
	// million pending inquiries, the writer read back from the file (a pread each) the index
	// pages its changes touch, 6.5 % of the server's CPU in hitl bench's throughput run.
	writer, err := sql.Open("sqlite", dsn("temp_store(MEMORY)", fmt.Sprintf("wal_autocheckpoint(%d)", writerCheckpointPages),
		fmt.Sprintf("cache_size(-%d)", writerCacheKiB))+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	reader, err := sql.Open("sqlite", dsn("query_only(1)"))
	if err != nil {
		writer.Close()
		return nil, err
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	reader.SetMaxOpenConns(n)
	reader.SetMaxIdleConns(n)
	ckpt, err := sql.Open("sqlite", dsn())
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, err
	}
	ckpt.SetMaxOpenConns(1)
	s := &Store{writer: writer, written: newWriterStmts(writer), reader: reader, read: newReadPool(reader), reads: make(chan func()), quit: make(chan struct{})}
	s.checkpoints = startCheckpointer(ckpt)
	s.changes = groupcommit.New(maxBatch, s.commit)
	for range n {
		s.readers.Go(func() {
			for {
				select {
				case fn := <-s.reads:
					fn()
				case <-s.quit:
					return
				}
			}
		})
	}
	return s, nil
}

func migrate(ctx context.Context, db *sql.DB) error {
	p, err := migrations(db)
	if err != nil {
		return err
	}
	if err := sqlstore.CheckApplied(ctx, db, hasSchemaTable, versions(p)); err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	return nil
}

// Close finishes the writes already queued and closes the database.
func (s *Store) Close() error {
	s.changes.Close()
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.readers.Wait()
	s.read.close()
	s.written.close()
	return errors.Join(s.checkpoints.stop(), s.writer.Close(), s.reader.Close())
}

// onReader runs a read on one of the store's reader goroutines. The driver is C translated to
// Go and runs deep: on a request's own goroutine it would grow that goroutine's stack, which a
// long poll then keeps for as long as it stays parked. On a few long-lived readers the deep
// stacks exist once.
func onReader[T any](s *Store, ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	select {
	case s.reads <- func() {
		v, err := fn()
		done <- result{v, err}
	}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	case <-s.quit:
		var zero T
		return zero, hitl.Errorf(hitl.EUnavailable, "the store is shutting down")
	}
	r := <-done
	return r.v, r.err
}

// WriterCounts: see hitl.WriterCounter.
func (s *Store) WriterCounts() (changes, batches int64) { return s.changes.Counts() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	_, err := onReader(s, ctx, func() (int, error) {
		var one int
		return one, s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	})
	if err != nil {
		return hitl.Errorf(hitl.EUnavailable, "database does not answer")
	}
	return nil
}

// Update queues fn for the writer and returns once the transaction holding it has committed
// (or fn failed).
func (s *Store) Update(ctx context.Context, fn func(hitl.Tx) error) error {
	return s.changes.Update(ctx, fn)
}

// commit runs a batch of changes in one transaction, each in its own savepoint.
func (s *Store) commit(batch []*groupcommit.Op) {
	ctx := context.Background()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		for _, o := range batch {
			o.Err = fmt.Errorf("begin: %w", err)
		}
		return
	}
	btx := newBatchTx(tx, s.written)
	for _, o := range batch {
		o.Err = s.runOne(ctx, btx, o)
	}
	err = tx.Commit()
	s.written.prepareFresh(ctx)
	if err != nil {
		for _, o := range batch {
			if o.Err == nil {
				o.Err = fmt.Errorf("commit: %w", err)
			}
		}
		return
	}
	s.checkpoints.committed()
}

func (s *Store) runOne(ctx context.Context, tx *batchTx, o *groupcommit.Op) (err error) {
	if err := o.Ctx.Err(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT change"); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	head := tx.head
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("change panicked: %v", p)
		}
		if err != nil {
			tx.head = head // the change's events are gone with it
			if _, rbErr := tx.ExecContext(ctx, "ROLLBACK TO change"); rbErr != nil {
				err = errors.Join(err, rbErr)
			}
		}
		if _, relErr := tx.ExecContext(ctx, "RELEASE change"); relErr != nil && err == nil {
			err = relErr
		}
	}()
	return o.Fn(&txn{ctx: ctx, tx: tx})
}

// dbError turns a driver error into a domain error by its SQLite result code.
func dbError(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(what)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return hitl.Errorf(hitl.EConflict, "%s already exists", what)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}
