package bench

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// auditVerify recomputes the audit chain of the server's database, as `hitl audit verify`
// does (beside the running server), and returns the events verified per second and how many.
func (r *run) auditVerify(ctx context.Context, db string) (float64, int64, error) {
	var (
		st  hitl.Store
		err error
	)
	if r.o.DB != "" {
		st, err = postgres.Open(ctx, db, nil)
	} else {
		st, err = sqlite.Open(ctx, db)
	}
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
