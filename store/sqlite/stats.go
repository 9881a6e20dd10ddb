package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// addStatsColumns is migration 17: the stats read who answered and whether a timeout fell back
// from columns, not from each stored document (SQLite's JSON functions refuse deep ones, and
// a parse per row is what a window of many answers cannot afford). A final inquiry's
// updated_at is when it became final, so the window is an index on it. The columns of the
// inquiries answered before are filled from their documents, decoded in Go.
func addStatsColumns(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		"ALTER TABLE inquiries ADD COLUMN responded_by TEXT",
		"ALTER TABLE inquiries ADD COLUMN fallback_applied INTEGER NOT NULL DEFAULT 0",
		"CREATE INDEX inquiries_final ON inquiries (updated_at) WHERE status <> 'pending'",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return fillFromDocs(ctx, tx, " AND status <> 'pending'", "UPDATE inquiries SET responded_by = ?, fallback_applied = ? WHERE id = ?", func(doc []byte) []any {
		var d struct {
			RespondedBy     *string `json:"responded_by"`
			FallbackApplied bool    `json:"fallback_applied"`
		}
		json.Unmarshal(doc, &d) // a document that does not decode is unreadable anyway: answered by nobody
		return []any{nullString(d.RespondedBy), boolInt(d.FallbackApplied)}
	})
}

// owned narrows inquiries (alias i) to a responder's own (hitl.StatsOwner).
func (w *where) owned(o *hitl.StatsOwner) {
	if o == nil {
		return
	}
	cond := "i.responded_by = ?"
	args := []any{o.Name}
	if len(o.Entries) > 0 {
		cond += " OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee IN (" + placeholders(len(o.Entries)) + "))"
		args = append(args, anyArgs(o.Entries)...)
	}
	w.add("("+cond+")", args...)
}

const dayMicros = 24 * 60 * 60 * 1000000

func (s *Store) Stats(ctx context.Context, q hitl.StatsQuery) (*hitl.StatsData, error) {
	return onReader(s, ctx, func() (*hitl.StatsData, error) { return s.stats(ctx, q) })
}

func (s *Store) stats(ctx context.Context, q hitl.StatsQuery) (*hitl.StatsData, error) {
	var w where
	w.add("i.status <> 'pending'")
	w.add("i.updated_at >= ?", micros(q.From))
	w.add("i.updated_at <= ?", micros(q.Until))
	w.owned(q.Owner)
	out := &hitl.StatsData{}
	rows, err := s.read.QueryContext(ctx, `SELECT i.updated_at / `+fmt.Sprint(dayMicros)+` AS day,
		SUM(i.status = 'responded'), SUM(i.status = 'timeout'), SUM(i.status = 'timeout' AND i.fallback_applied = 1), SUM(i.status = 'cancelled')
		FROM inquiries i`+w.String()+` GROUP BY day ORDER BY day`, w.args...)
	if err != nil {
		return nil, dbError(err, "stats")
	}
	defer rows.Close()
	for rows.Next() {
		var day int64
		var d hitl.DayCount
		if err := rows.Scan(&day, &d.Answered, &d.TimedOut, &d.FellBack, &d.Cancelled); err != nil {
			return nil, err
		}
		d.Date = time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
		out.Days = append(out.Days, d)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "stats")
	}
	rows.Close()

	// Unary + keeps SQLite from reading every answer ever given through the index by status:
	// the window's range on the index of final inquiries is what bounds the read.
	w.add("+i.status = 'responded'")
	// Groups are joined with a newline, which no assignment entry holds.
	rows, err = s.read.QueryContext(ctx, `SELECT i.request_type, COALESCE(i.responded_by, ''), i.created_at, i.updated_at,
		(SELECT group_concat(a.assignee, char(10)) FROM inquiry_assignees a
		 WHERE a.inquiry_id = i.id AND a.earlier = 0 AND substr(a.assignee, 1, 6) = 'group:')
		FROM inquiries i`+w.String()+` ORDER BY i.updated_at DESC, i.id DESC LIMIT ?`, append(w.args, q.MaxAnswers+1)...)
	if err != nil {
		return nil, dbError(err, "stats")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			a                 hitl.AnswerTime
			created, answered int64
			groups            sql.NullString
		)
		if err := rows.Scan(&a.RequestType, &a.RespondedBy, &created, &answered, &groups); err != nil {
			return nil, err
		}
		a.CreatedAt, a.AnsweredAt = fromMicros(created), fromMicros(answered)
		if groups.String != "" {
			a.Groups = strings.Split(groups.String, "\n")
		}
		out.Answers = append(out.Answers, a)
	}
	if len(out.Answers) > q.MaxAnswers {
		out.Answers, out.More = out.Answers[:q.MaxAnswers], true
	}
	return out, dbError(rows.Err(), "stats")
}

func (s *Store) OldestPending(ctx context.Context, owner *hitl.StatsOwner) (int, *hitl.PendingAge, error) {
	type result struct {
		n      int
		oldest *hitl.PendingAge
	}
	r, err := onReader(s, ctx, func() (result, error) {
		var w where
		w.add("i.status = 'pending'")
		w.owned(owner)
		var r result
		if err := s.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM inquiries i"+w.String(), w.args...).Scan(&r.n); err != nil {
			return r, dbError(err, "pending inquiries")
		}
		if r.n == 0 {
			return r, nil
		}
		var created int64
		r.oldest = &hitl.PendingAge{}
		err := s.read.QueryRowContext(ctx, "SELECT i.id, i.created_at FROM inquiries i"+w.String()+" ORDER BY i.created_at, i.id LIMIT 1", w.args...).
			Scan(&r.oldest.InquiryID, &created)
		if err == sql.ErrNoRows { // answered between the two reads
			return result{}, nil
		}
		r.oldest.CreatedAt = fromMicros(created)
		return r, dbError(err, "pending inquiries")
	})
	return r.n, r.oldest, err
}
