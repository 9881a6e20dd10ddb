package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// addStatsColumns is migration 17: the stats read who answered and whether a timeout fell back
// from columns, not by parsing each stored document (a window may hold many answers). A final
// inquiry's updated_at is when it became final, so the window is an index on it. The columns
// of the inquiries answered before are filled from their documents, decoded in Go.
func addStatsColumns(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		"ALTER TABLE inquiries ADD COLUMN responded_by TEXT",
		"ALTER TABLE inquiries ADD COLUMN fallback_applied BOOLEAN NOT NULL DEFAULT FALSE",
		"CREATE INDEX inquiries_final ON inquiries (updated_at) WHERE status <> 'pending'",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return fillFromDocs(ctx, tx, " AND status <> 'pending'", "UPDATE inquiries SET responded_by = $1, fallback_applied = $2 WHERE id = $3", func(doc []byte) []any {
		var d struct {
			RespondedBy     *string `json:"responded_by"`
			FallbackApplied bool    `json:"fallback_applied"`
		}
		json.Unmarshal(doc, &d) // a document that does not decode is unreadable anyway: answered by nobody
		return []any{d.RespondedBy, d.FallbackApplied}
	})
}

// ownedCond is the condition on inquiries (alias i) that keeps a responder's own (hitl.StatsOwner).
func (w *where) ownedCond(o *hitl.StatsOwner) string {
	return "(i.responded_by = " + w.arg(o.Name) +
		" OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee = ANY (" + w.arg(o.Entries) + ")))"
}

func (s *Store) Stats(ctx context.Context, q hitl.StatsQuery) (*hitl.StatsData, error) {
	w := &where{}
	w.add("i.status <> 'pending'")
	w.add("i.updated_at >= " + w.arg(q.From))
	w.add("i.updated_at <= " + w.arg(q.Until))
	if q.Owner != nil {
		w.add(w.ownedCond(q.Owner))
	}
	out := &hitl.StatsData{}
	rows, err := s.pool.Query(ctx, `SELECT floor(extract(epoch FROM i.updated_at) / 86400)::bigint AS day,
		count(*) FILTER (WHERE i.status = 'responded'), count(*) FILTER (WHERE i.status = 'timeout'),
		count(*) FILTER (WHERE i.status = 'timeout' AND i.fallback_applied), count(*) FILTER (WHERE i.status = 'cancelled')
		FROM inquiries i`+w.String()+` GROUP BY day ORDER BY day`, w.args...)
	if err != nil {
		return nil, dbError(err, "stats")
	}
	for rows.Next() {
		var day int64
		var d hitl.DayCount
		if err := rows.Scan(&day, &d.Answered, &d.TimedOut, &d.FellBack, &d.Cancelled); err != nil {
			rows.Close()
			return nil, err
		}
		d.Date = time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
		out.Days = append(out.Days, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "stats")
	}

	w.add("i.status = 'responded'") // beside status <> 'pending', which picks the index of final inquiries
	// Groups are joined with a newline, which no assignment entry holds.
	rows, err = s.pool.Query(ctx, `SELECT i.request_type, COALESCE(i.responded_by, ''), i.created_at, i.updated_at,
		(SELECT string_agg(a.assignee, E'\n') FROM inquiry_assignees a
		 WHERE a.inquiry_id = i.id AND NOT a.earlier AND substr(a.assignee, 1, 6) = 'group:')
		FROM inquiries i`+w.String()+` ORDER BY i.updated_at DESC, i.id DESC LIMIT `+w.arg(q.MaxAnswers+1), w.args...)
	if err != nil {
		return nil, dbError(err, "stats")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			a      hitl.AnswerTime
			groups *string
		)
		if err := rows.Scan(&a.RequestType, &a.RespondedBy, &a.CreatedAt, &a.AnsweredAt, &groups); err != nil {
			return nil, err
		}
		a.CreatedAt, a.AnsweredAt = a.CreatedAt.UTC(), a.AnsweredAt.UTC()
		if groups != nil && *groups != "" {
			a.Groups = strings.Split(*groups, "\n")
		}
		out.Answers = append(out.Answers, a)
	}
	if len(out.Answers) > q.MaxAnswers {
		out.Answers, out.More = out.Answers[:q.MaxAnswers], true
	}
	return out, dbError(rows.Err(), "stats")
}

func (s *Store) OldestPending(ctx context.Context, owner *hitl.StatsOwner) (int, *hitl.PendingAge, error) {
	w := &where{}
	w.add("i.status = 'pending'")
	if owner != nil {
		w.add(w.ownedCond(owner))
	}
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT COUNT(*) FROM inquiries i"+w.String(), w.args...).Scan(&n); err != nil {
		return 0, nil, dbError(err, "pending inquiries")
	}
	if n == 0 {
		return 0, nil, nil
	}
	oldest := &hitl.PendingAge{}
	err := s.pool.QueryRow(ctx, "SELECT i.id, i.created_at FROM inquiries i"+w.String()+" ORDER BY i.created_at, i.id LIMIT 1", w.args...).
		Scan(&oldest.InquiryID, &oldest.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) { // answered between the two reads
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, dbError(err, "pending inquiries")
	}
	oldest.CreatedAt = oldest.CreatedAt.UTC()
	return n, oldest, nil
}
