package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// checkpointGap is the least time between two background checkpoints: each copies what the
// commits since the last one appended to the WAL and flushes the database file once.
const checkpointGap = 20 * time.Millisecond

// writerCheckpointPages is the size of the WAL, in pages (4 KiB), past which the writer's
// COMMIT runs SQLite's automatic checkpoint (SQLite's default is 1,000). The checkpointer
// copies the pages meanwhile, so what is left to the writer's checkpoint is the last few
// commits' pages and the WAL's restart (which only a writer can do, and which keeps the file
// from growing past this size) — but it still flushes the WAL and the database file, two more
// fsyncs inside a commit. An execution trace of the wake scenario at 1,000 pages found that
// checkpoint inside 1.9 % of the answers' commits (11 of 587; 2–22 ms each, against p50
// 0.6 ms), enough to be the wake latency's p99 by itself; at 10,000 it is ten times rarer,
// for a WAL file of at most about 40 MiB, which is reused rather than grown again.
const writerCheckpointPages = 10000

// checkpointer copies the WAL's pages into the database file on a connection of its own, so
// that the writer does not. SQLite's automatic checkpoint runs inside the COMMIT that takes
// the WAL past its threshold: it copies the pages and flushes the database file while every
// change of that batch waits, which was 12 % of the writer's CPU and its slowest commits. The
// writer keeps the automatic checkpoint, but by the time it runs the pages are already copied
// here.
type checkpointer struct {
	db   *sql.DB
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// committed tells the checkpointer the writer appended to the WAL.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	gap := time.NewTimer(0)
	defer gap.Stop()
	for {
		select {
		case <-c.kick:
		case <-c.quit:
			return
		}
		// PASSIVE neither waits for nor blocks the writer and the readers: it copies what no
		// reader still needs from the WAL, and the next call takes the rest. An error (the
		// database busy or closing) only leaves the work to the writer's own checkpoint.
		c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		gap.Reset(checkpointGap)
		select {
		case <-gap.C:
		case <-c.quit:
			return
		}
	}
}

// stop waits for a checkpoint under way and closes the connection.
func (c *checkpointer) stop() error {
	close(c.quit)
	<-c.done
	return c.db.Close()
}
