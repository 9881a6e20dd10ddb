package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// StatsQueries are a store's queries of the stats, of a condition on the final inquiries
// (alias i) in the window. Days reads a row a day: the day (in days since 1970), and how
// many were answered, timed out, fell back and were cancelled. Answers reads the answers,
// newest first, at most limit (a placeholder): request type, responder, when created, when
// answered, and the groups it was assigned to joined by newlines.
type StatsQueries struct {
	Days    func(where string) string
	Answers func(where, limit string) string
}

// Stats reads the stats of q.
func (d *Dialect) Stats(ctx context.Context, db DB, q hitl.StatsQuery, sq StatsQueries) (*hitl.StatsData, error) {
	w := d.Where()
	w.Add("i.status <> 'pending'")
	w.Add("i.updated_at >= " + w.Arg(d.Time(q.From)))
	w.Add("i.updated_at <= " + w.Arg(d.Time(q.Until)))
	w.addOwned(q.Owner)
	days, err := Query(ctx, d, db, "stats", func(sc Scanner) (c hitl.DayCount, err error) {
		var day int64
		err = sc.Scan(&day, &c.Answered, &c.TimedOut, &c.FellBack, &c.Cancelled)
		c.Date = time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
		return c, err
	}, sq.Days(w.String()), w.Args...)
	if err != nil {
		return nil, err
	}
	answers, err := Query(ctx, d, db, "stats", func(sc Scanner) (a hitl.AnswerTime, err error) {
		var groups *string
		err = sc.Scan(&a.RequestType, &a.RespondedBy, d.ScanTime(&a.CreatedAt), d.ScanTime(&a.AnsweredAt), &groups)
		if groups != nil && *groups != "" {
			a.Groups = strings.Split(*groups, "\n")
		}
		return a, err
	}, sq.Answers(w.String(), Limit(q.MaxAnswers+1)), w.Args...)
	if err != nil {
		return nil, err
	}
	out := &hitl.StatsData{Days: days, Answers: answers}
	if len(out.Answers) > q.MaxAnswers {
		out.Answers, out.More = out.Answers[:q.MaxAnswers], true
	}
	return out, nil
}

// OldestPending counts the pending inquiries of owner (all, when nil) and reads the oldest.
func (d *Dialect) OldestPending(ctx context.Context, db DB, owner *hitl.StatsOwner) (int, *hitl.PendingAge, error) {
	w := d.Where()
	w.Add("i.status = 'pending'")
	w.addOwned(owner)
	n, err := d.count(ctx, db, "pending inquiries", "SELECT COUNT(*) FROM inquiries i"+w.String(), w.Args...)
	if err != nil || n == 0 {
		return 0, nil, err
	}
	oldest := &hitl.PendingAge{}
	err = d.Err(db.QueryRow(ctx, "SELECT i.id, i.created_at FROM inquiries i"+w.String()+" ORDER BY i.created_at, i.id LIMIT 1", w.Args...).
		Scan(&oldest.InquiryID, d.ScanTime(&oldest.CreatedAt)), "pending inquiries")
	if hitl.ErrorCode(err) == hitl.ENotFound { // answered between the two reads
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return n, oldest, nil
}
