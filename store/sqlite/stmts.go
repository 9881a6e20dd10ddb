package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Statements are prepared once and run many times: the driver otherwise parses every query's
// text again, which was a tenth of the server's CPU under load. Both kinds below run queries
// as *sql.Tx and *sql.DB do, so the code that reads and writes does not change.

// batchTx is the writer's transaction for one batch of changes. Its statements are the
// writer's, prepared once on the writer's connection (writerStmts) and used here through the
// transaction; a statement the writer has not prepared yet is prepared for this batch, and
// once the batch has committed, for good.
type batchTx struct {
	tx      *sql.Tx
	written *writerStmts
	stmts   map[string]*sql.Stmt
	head    chainHead // of the audit chain (store/sqlite/audit.go)
}

func newBatchTx(tx *sql.Tx, written *writerStmts) *batchTx {
	return &batchTx{tx: tx, written: written, stmts: map[string]*sql.Stmt{}}
}

func (b *batchTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := b.stmts[query]; ok {
		return s, nil
	}
	var s *sql.Stmt
	if prepared := b.written.stmts[query]; prepared != nil {
		s = b.tx.StmtContext(ctx, prepared) // the same SQLite statement, not prepared again
	} else {
		var err error
		if s, err = b.tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		b.written.seen(query)
	}
	b.stmts[query] = s
	return s, nil
}

// writerStmts are the statements prepared on the writer's one connection, at most
// maxPrepared of them (queries whose text varies with their arguments would otherwise pile
// up). Only the writer's goroutine uses them. A statement can only be prepared between
// batches: while a batch runs, its transaction holds the connection.
type writerStmts struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt
	fresh []string // queries first run in this batch
}

func newWriterStmts(db *sql.DB) *writerStmts {
	return &writerStmts{db: db, stmts: map[string]*sql.Stmt{}}
}

func (w *writerStmts) seen(query string) {
	if len(w.stmts)+len(w.fresh) < maxPrepared {
		w.fresh = append(w.fresh, query)
	}
}

// prepareFresh prepares the queries first run in the batch that has just ended. One that
// fails to prepare is prepared again for each batch, as before.
func (w *writerStmts) prepareFresh(ctx context.Context) {
	for _, q := range w.fresh {
		if _, ok := w.stmts[q]; ok {
			continue
		}
		if s, err := w.db.PrepareContext(ctx, q); err == nil {
			w.stmts[q] = s
		}
	}
	w.fresh = w.fresh[:0]
}

func (w *writerStmts) close() {
	for _, s := range w.stmts {
		s.Close()
	}
	clear(w.stmts)
}

func (b *batchTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := b.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (b *batchTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := b.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (b *batchTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := b.stmt(ctx, query)
	if err != nil {
		return b.tx.QueryRowContext(ctx, query, args...) // which reports the same error
	}
	return s.QueryRowContext(ctx, args...)
}

// readPool runs reads on the read connections with statements prepared once for the pool
// (database/sql prepares each again on every connection it runs on, once). Queries whose text
// varies with a filter make at most maxPrepared statements; the others run unprepared.
type readPool struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

const maxPrepared = 256

func newReadPool(db *sql.DB) *readPool { return &readPool{db: db, stmts: map[string]*sql.Stmt{}} }

func (p *readPool) stmt(ctx context.Context, query string) *sql.Stmt {
	p.mu.Lock()
	s, ok := p.stmts[query]
	full := len(p.stmts) >= maxPrepared
	p.mu.Unlock()
	if ok || full {
		return s
	}
	s, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil // the query, run unprepared, reports the error
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.stmts[query]; ok { // prepared meanwhile by another reader
		s.Close()
		return prev
	}
	p.stmts[query] = s
	return s
}

func (p *readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := p.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return p.db.QueryContext(ctx, query, args...)
}

func (p *readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := p.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, query, args...)
}

// close closes the prepared statements; the pool's database is closed by its owner.
func (p *readPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.stmts {
		s.Close()
	}
	clear(p.stmts)
}
