package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// Preload is what loading PreloadedDeadlines pending inquiries at start-up costs: the time
// from starting the server to its being ready, and its resident memory per deadline then
// (against the same server started on an empty database).
type Preload struct {
	Deadlines int     `json:"deadlines"`
	StartupS  float64 `json:"startup_s"`
	// StartupCPUS is the server's CPU time (user and system) when it became ready: the
	// start-up's cost whatever share of the machine it got.
	StartupCPUS     float64 `json:"startup_cpu_s"`
	BytesPerPending float64 `json:"bytes_per_deadline"`
}

// preload fills the SQLite file db with n pending inquiries whose deadlines are an hour or
// more away (they never fire during the run, but the server keeps every one of them), and
// returns the resident memory of a server started on the file before it was filled and the
// ids of the inquiries.
func (r *run) preload(ctx context.Context, db, dir string, n int) (emptyRSS int64, ids idRange, err error) {
	url, stop, pid, err := startServer(ctx, r.o, db, dir)
	if err != nil {
		return 0, ids, err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return 0, ids, err
	}
	if emptyRSS, err = rss(pid); err != nil {
		return 0, ids, err
	}
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bench-preload", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return 0, ids, err
	}
	at := time.Now().Add(time.Hour)
	orig, _, err := client.New(url, k.Token, r.hc).CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Later", TimeoutAt: &at}, client.CreateOptions{})
	if err != nil {
		return 0, ids, err
	}
	stop()
	// The copies are the only rows added to the file, one writer inserting them in turn: SQLite
	// gives them the ids after the original's.
	ids = idRange{first: orig.ID, n: n}
	viaStore := n - 1
	if r.o.Scale > 1 {
		// Through the store a copy costs about 120 µs of CPU (10,000,000 would take over half
		// an hour); the run at scale verifies no audit, so past the first n/scale (at most
		// 100,000) the rows are copied by SQL, without their events.
		viaStore = min(n/r.o.Scale, 100_000)
	}
	if err := CopyPendingInquiry(db, viaStore); err != nil {
		return 0, ids, err
	}
	return emptyRSS, ids, copyPendingRows(ctx, db, orig.ID, viaStore, n-1)
}

// copyPendingRows adds copies from+1 … n of the inquiry id in the SQLite file at path, as
// CopyPendingInquiry does, but as rows copied by SQL, a hundred thousand to a statement,
// without their inquiry.created events: the rows a server loads at start-up, at a hundredth of
// the cost, for a database the audit is not run on.
func copyPendingRows(ctx context.Context, path string, id int64, from, n int) error {
	if from >= n {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-1000000)")
	if err != nil {
		return err
	}
	defer db.Close()
	// Copy i's deadline is i ms after the original's, in the column and in the document alike:
	// in order, so that the deadlines' index grows at its end (the server reads them in order
	// whatever order they were written in).
	const copyRows = `WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?),
		c AS (SELECT k.i, o.*, o.timeout_at + k.i * 1000 AS at FROM k, inquiries o WHERE o.id = ?)
		INSERT INTO inquiries (status, session, origin, request_type, created_by, unassigned, exclusive, timeout_at,
			next_reminder_at, escalate_at, created_at, updated_at, prompt, execution, doc, dedup_key, dedup_hash, joined)
		SELECT status, session, origin, request_type, created_by, unassigned, exclusive, at,
			next_reminder_at, escalate_at, created_at, updated_at, prompt, execution,
			json_set(doc, '$.timeout_at', strftime('%Y-%m-%dT%H:%M:%fZ', at / 1000000.0, 'unixepoch')), dedup_key, dedup_hash, joined
		FROM c`
	const perStatement = 100_000
	for done := from; done < n; done += perStatement {
		last := min(done+perStatement, n)
		if _, err := db.ExecContext(ctx, copyRows, done+1, last, id); err != nil {
			return fmt.Errorf("copying the inquiry's row %d times: %w", n-from, err)
		}
	}
	return nil
}

// idRange is n ids in a row from first.
type idRange struct {
	first int64
	n     int
}

// CopyPendingInquiry adds n copies of the inquiry in the SQLite file at path (one, pending,
// with a deadline), each with its own deadline, spread over the n milliseconds after the
// original's. It writes through the store, many to a transaction, rather than through
// the API (a million would take minutes there): each copy is stored with its inquiry.created
// event, as the engine stores one, so that the audit finds every row to be what its events say.
func CopyPendingInquiry(path string, n int) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	page, _, err := st.Inquiries(ctx, hitl.InquiryFilter{Status: hitl.StatusPending, Visibility: hitl.Visibility{All: true}, Page: hitl.Page{Limit: 1}})
	if err != nil {
		return err
	}
	if len(page) != 1 || page[0].TimeoutAt == nil {
		return fmt.Errorf("the database holds no pending inquiry with a deadline to copy")
	}
	orig := page[0]
	// A few dozen copies to a change: the store runs each change in a savepoint, whose
	// statement journal costs more per row the more rows it holds (5,000 to a change took 2.5
	// times as long as 30, the commit's fsync included).
	const perChange = 30
	var last int64 // the seq of the last event copied
	for done := 0; done < n; done += perChange {
		err := st.Update(ctx, func(tx hitl.Tx) (err error) {
			last, err = insertCopies(tx, orig, done, min(perChange, n-done), n)
			return err
		})
		if err != nil {
			return fmt.Errorf("copying the inquiry %d times: %w", n, err)
		}
	}
	// The copies stand for questions asked long before, whose events reached everyone then.
	return skipOutbox(ctx, st, last)
}

// insertCopies stores copies done+1 … done+batch of orig (of n), each with its event, and
// returns the last event's seq.
func insertCopies(tx hitl.Tx, orig *hitl.Inquiry, done, batch, n int) (last int64, err error) {
	for i := done + 1; i <= done+batch; i++ {
		c := *orig
		c.ID = 0
		// 7919 is prime, so the deadlines land in no particular order.
		at := orig.TimeoutAt.Add(time.Duration(i*7919%n) * time.Millisecond)
		c.TimeoutAt = &at
		if err := tx.InsertInquiry(&c); err != nil {
			return 0, err
		}
		data, err := json.Marshal(&c)
		if err != nil {
			return 0, err
		}
		id := c.ID
		ev := &hitl.Event{ID: uuid.NewString(), Type: hitl.EventInquiryCreated, Time: c.CreatedAt,
			InquiryID: &id, Session: c.Session, Actor: c.CreatedBy, Data: data}
		if err := tx.AppendEvent(ev); err != nil {
			return 0, err
		}
		last = ev.Seq
	}
	return last, nil
}
