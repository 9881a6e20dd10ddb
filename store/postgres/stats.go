package postgres

import (
	"context"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

var statsQueries = sqlstore.StatsQueries{
	Days: func(where string) string {
		return `SELECT floor(extract(epoch FROM i.updated_at) / 86400)::bigint AS day,
		count(*) FILTER (WHERE i.status = 'responded'), count(*) FILTER (WHERE i.status = 'timeout'),
		count(*) FILTER (WHERE i.status = 'timeout' AND i.fallback_applied), count(*) FILTER (WHERE i.status = 'cancelled')
		FROM inquiries i` + where + ` GROUP BY day ORDER BY day`
	},
	// status = 'responded' beside status <> 'pending', which picks the index of final
	// inquiries. Groups are joined with a newline, which no assignment entry holds.
	Answers: func(where, limit string) string {
		return `SELECT i.request_type, COALESCE(i.responded_by, ''), i.created_at, i.updated_at,
		(SELECT string_agg(a.assignee, E'\n') FROM inquiry_assignees a
		 WHERE a.inquiry_id = i.id AND NOT a.earlier AND substr(a.assignee, 1, 6) = 'group:')
		FROM inquiries i` + where + ` AND i.status = 'responded' ORDER BY i.updated_at DESC, i.id DESC LIMIT ` + limit
	},
}

func (s *Store) Stats(ctx context.Context, q hitl.StatsQuery) (*hitl.StatsData, error) {
	return dialect.Stats(ctx, s.db, q, statsQueries)
}

func (s *Store) OldestPending(ctx context.Context, owner *hitl.StatsOwner) (int, *hitl.PendingAge, error) {
	return dialect.OldestPending(ctx, s.db, owner)
}

func (s *Store) Decisions(ctx context.Context, q hitl.DecisionQuery) ([]hitl.DecisionFacts, bool, error) {
	return dialect.Decisions(ctx, s.db, q)
}
