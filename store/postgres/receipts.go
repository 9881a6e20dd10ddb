package postgres

import (
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/jackc/pgx/v5"
)

func (t *txn) ReceiptInquiry(jti string) (*hitl.Inquiry, error) {
	var id int64
	err := t.QueryRow(t.ctx, "SELECT id FROM inquiries WHERE receipt_jti = $1", jti).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, hitl.Errorf(hitl.ENotFound, "no receipt %s", jti)
	}
	if err != nil {
		return nil, dbError(err, "receipt")
	}
	return dialect.Inquiry(t.ctx, pgDB{q: t}, id, "")
}

// RedeemReceipt inserts with ON CONFLICT DO NOTHING: a second node's insert waits for the
// first's commit, then does nothing, and reads the row the first wrote.
func (t *txn) RedeemReceipt(r hitl.ReceiptRedemption) (hitl.ReceiptRedemption, bool, error) {
	tag, err := t.Exec(`INSERT INTO receipt_redemptions (jti, inquiry_id, redeemed_at, redeemed_by)
		VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING`, r.ID, r.InquiryID, r.RedeemedAt, r.RedeemedBy)
	if err != nil {
		return r, false, dbError(err, "receipt redemption")
	}
	if tag.RowsAffected() == 1 {
		return r, true, nil
	}
	first := hitl.ReceiptRedemption{ID: r.ID}
	err = t.QueryRow(t.ctx, "SELECT inquiry_id, redeemed_at, redeemed_by FROM receipt_redemptions WHERE jti = $1", r.ID).
		Scan(&first.InquiryID, &first.RedeemedAt, &first.RedeemedBy)
	first.RedeemedAt = first.RedeemedAt.UTC()
	return first, false, dbError(err, "receipt redemption")
}

// nonEmpty is s, nil when empty: a NULL column.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
