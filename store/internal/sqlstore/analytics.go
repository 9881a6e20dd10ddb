package sqlstore

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// Decisions reads the answered and timed-out inquiries of q, newest first, with their first views (the
// table inquiry_views, by its primary key), at most q.Max; true when there were more.
func (d *Dialect) Decisions(ctx context.Context, db DB, q hitl.DecisionQuery) ([]hitl.DecisionFacts, bool, error) {
	w := d.Where()
	w.Add("i.status <> 'pending'")
	w.Add("i.updated_at >= " + w.Arg(d.Time(q.From)))
	w.Add("i.updated_at <= " + w.Arg(d.Time(q.Until)))
	w.addVisible(q.Visibility)
	sql := `SELECT ` + InquiryColumns + `,
		(SELECT MIN(v.viewed_at) FROM inquiry_views v WHERE v.inquiry_id = i.id),
		(SELECT v.viewed_at FROM inquiry_views v WHERE v.inquiry_id = i.id AND v.person = i.responded_by)
		FROM inquiries i` + w.String() + ` AND i.status IN ('responded', 'timeout') ORDER BY i.updated_at DESC, i.id DESC LIMIT ` + Limit(q.Max+1)
	out, err := Query(ctx, d, db, "decisions", func(sc Scanner) (f hitl.DecisionFacts, err error) {
		var (
			id  int64
			doc string
		)
		if err = sc.Scan(&id, &doc, d.ScanNullTime(&f.FirstViewAt), d.ScanNullTime(&f.AnswererViewAt)); err != nil {
			return f, err
		}
		f.Inquiry, err = inquiryOf(id, doc)
		return f, err
	}, sql, w.Args...)
	if err != nil {
		return nil, false, err
	}
	if len(out) > q.Max {
		return out[:q.Max], true, nil
	}
	return out, false, nil
}
