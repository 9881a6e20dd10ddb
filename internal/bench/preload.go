package bench

import (
	"context"
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
	Deadlines       int     `json:"deadlines"`
	StartupS        float64 `json:"startup_s"`
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
	return emptyRSS, idRange{first: orig.ID, n: n}, CopyPendingInquiry(db, n-1)
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
	for done := 0; done < n; done += perChange {
		if err := st.Update(ctx, func(tx hitl.Tx) error { return insertCopies(tx, orig, done, min(perChange, n-done), n) }); err != nil {
			return fmt.Errorf("copying the inquiry %d times: %w", n, err)
		}
	}
	return nil
}

// insertCopies stores copies done+1 … done+batch of orig (of n), each with its event.
func insertCopies(tx hitl.Tx, orig *hitl.Inquiry, done, batch, n int) error {
	for i := done + 1; i <= done+batch; i++ {
		c := *orig
		c.ID = 0
		// 7919 is prime, so the deadlines land in no particular order.
		at := orig.TimeoutAt.Add(time.Duration(i*7919%n) * time.Millisecond)
		c.TimeoutAt = &at
		if err := tx.InsertInquiry(&c); err != nil {
			return err
		}
		data, err := json.Marshal(&c)
		if err != nil {
			return err
		}
		id := c.ID
		if err := tx.AppendEvent(&hitl.Event{ID: uuid.NewString(), Type: hitl.EventInquiryCreated, Time: c.CreatedAt,
			InquiryID: &id, Session: c.Session, Actor: c.CreatedBy, Data: data}); err != nil {
			return err
		}
	}
	return nil
}
