package bench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
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
// returns the resident memory of a server started on the file before it was filled.
func (r *run) preload(ctx context.Context, db, dir string, n int) (emptyRSS int64, err error) {
	url, stop, pid, err := startServer(ctx, r.o, db, dir)
	if err != nil {
		return 0, err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return 0, err
	}
	if emptyRSS, err = rss(pid); err != nil {
		return 0, err
	}
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bench-preload", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return 0, err
	}
	at := time.Now().Add(time.Hour)
	if _, _, err := client.New(url, k.Token, r.hc).CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Later", TimeoutAt: &at}, client.CreateOptions{}); err != nil {
		return 0, err
	}
	stop()
	return emptyRSS, CopyPendingInquiry(db, n-1)
}

// CopyPendingInquiry adds n copies of the inquiries in the SQLite file at path (one, pending,
// with a deadline), each with its own deadline, spread over the n milliseconds after the original's.
// It writes straight in SQL: creating a million through the API would take minutes. Only the
// timeout_at column moves; each copy's stored document keeps the original's deadline, which
// nothing reads before the deadlines (an hour or more away) are due.
func CopyPendingInquiry(path string, n int) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM pragma_table_info('inquiries') WHERE name NOT IN ('id', 'timeout_at')")
	if err != nil {
		return err
	}
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return err
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	list := strings.Join(cols, ", ")
	// timeout_at is in microseconds; 7919 is prime, so the deadlines land in no particular order.
	_, err = db.Exec(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
		INSERT INTO inquiries (`+list+`, timeout_at) SELECT `+list+`, timeout_at + (k.i * 7919 % ?) * 1000 FROM inquiries, k`, n, n)
	if err != nil {
		return fmt.Errorf("copying the inquiry %d times: %w", n, err)
	}
	return nil
}
