package sqlite

import (
	"context"
	"fmt"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

const dayMicros = 24 * 60 * 60 * 1000000

var statsQueries = sqlstore.StatsQueries{
	Days: func(where string) string {
		return `SELECT i.updated_at / ` + fmt.Sprint(dayMicros) + ` AS day,
		SUM(i.status = 'responded'), SUM(i.status = 'timeout'), SUM(i.status = 'timeout' AND i.fallback_applied = 1), SUM(i.status = 'cancelled')
		FROM inquiries i` + where + ` GROUP BY day ORDER BY day`
	},
	// Unary + keeps SQLite from reading every answer ever given through the index by status:
	// the window's range on the index of final inquiries is what bounds the read. Groups are
	// joined with a newline, which no assignment entry holds.
	Answers: func(where, limit string) string {
		return `SELECT i.request_type, COALESCE(i.responded_by, ''), i.created_at, i.updated_at,
		(SELECT group_concat(a.assignee, char(10)) FROM inquiry_assignees a
		 WHERE a.inquiry_id = i.id AND a.earlier = 0 AND substr(a.assignee, 1, 6) = 'group:')
		FROM inquiries i` + where + ` AND +i.status = 'responded' ORDER BY i.updated_at DESC, i.id DESC LIMIT ` + limit
	},
}

func (s *Store) Stats(ctx context.Context, q hitl.StatsQuery) (*hitl.StatsData, error) {
	return onReader(s, ctx, func() (*hitl.StatsData, error) { return dialect.Stats(ctx, sqlstore.SQL{Q: s.read}, q, statsQueries) })
}

func (s *Store) OldestPending(ctx context.Context, owner *hitl.StatsOwner) (int, *hitl.PendingAge, error) {
	type result struct {
		n      int
		oldest *hitl.PendingAge
	}
	r, err := onReader(s, ctx, func() (r result, err error) {
		r.n, r.oldest, err = dialect.OldestPending(ctx, sqlstore.SQL{Q: s.read}, owner)
		return r, err
	})
	return r.n, r.oldest, err
}

func (s *Store) Decisions(ctx context.Context, q hitl.DecisionQuery) ([]hitl.DecisionFacts, bool, error) {
	type result struct {
		facts []hitl.DecisionFacts
		more  bool
	}
	r, err := onReader(s, ctx, func() (r result, err error) {
		r.facts, r.more, err = dialect.Decisions(ctx, sqlstore.SQL{Q: s.read}, q)
		return r, err
	})
	return r.facts, r.more, err
}
