package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// BenchmarkCreateInquiry: what the search index's triggers (migration 32) add to the writer
// for each inquiry created, one to a transaction as the engine creates them: the process's
// CPU per create (cpu-µs/op, which waiting for the disk does not count), with the index and
// without its triggers.
func BenchmarkCreateInquiry(b *testing.B) {
	for _, indexed := range []bool{true, false} {
		b.Run(fmt.Sprintf("indexed=%v", indexed), func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "hitl.db")
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if !indexed {
				db, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = db.Exec("DROP TRIGGER inquiry_search_insert")
				db.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			cpu := cpuTime()
			b.ResetTimer()
			for n := range b.N {
				inq := &hitl.Inquiry{Status: hitl.StatusPending, Prompt: fmt.Sprintf("Deploy build %d of the billing service to production? (service-%d)", n, n%500),
					RequestType: hitl.RequestApproval, CreatedBy: "agent", AssignedTo: []string{}, FallbackPolicy: hitl.FallbackFail,
					Metadata: map[string]string{}, CreatedAt: at, UpdatedAt: at}
				if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertInquiry(inq) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime is the CPU the process has used, in user and system time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
