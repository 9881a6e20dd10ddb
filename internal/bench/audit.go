package bench

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// openStore opens the store of the benchmark's database db: PostgreSQL's when it measures
// PostgreSQL.
func (r *run) openStore(ctx context.Context, db string) (hitl.Store, error) {
	if r.o.DB != "" {
		return postgres.Open(ctx, db, nil)
	}
	return sqlite.Open(ctx, db)
}

// auditVerify recomputes the audit chain of the server's database, as `hitl audit verify`
// does (beside the running server), and returns the events verified per second and how many.
func (r *run) auditVerify(ctx context.Context, db string) (float64, int64, error) {
	st, err := r.openStore(ctx, db)
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	began := time.Now()
	v, err := audit.VerifyLog(ctx, st, audit.Published{})
	if err != nil {
		return 0, 0, err
	}
	return round(float64(v.Events) / time.Since(began).Seconds()), v.Events, nil
}
