package sqlite

import (
	"database/sql"
	"errors"

	"github.com/hitl-dev/hitl"
)

func (t *txn) ReceiptInquiry(jti string) (*hitl.Inquiry, error) {
	var id int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT id FROM inquiries WHERE receipt_jti = ?", jti).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, hitl.Errorf(hitl.ENotFound, "no receipt %s", jti)
	}
	if err != nil {
		return nil, dbError(err, "receipt")
	}
	return getInquiry(t.ctx, t.tx, id)
}

func (t *txn) RedeemReceipt(r hitl.ReceiptRedemption) (hitl.ReceiptRedemption, bool, error) {
	res, err := t.tx.ExecContext(t.ctx, `INSERT INTO receipt_redemptions (jti, inquiry_id, redeemed_at, redeemed_by)
		VALUES (?, ?, ?, ?) ON CONFLICT (jti) DO NOTHING`, r.ID, r.InquiryID, micros(r.RedeemedAt), r.RedeemedBy)
	if err != nil {
		return r, false, dbError(err, "receipt redemption")
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return r, n == 1, dbError(err, "receipt redemption")
	}
	first := hitl.ReceiptRedemption{ID: r.ID}
	var at int64
	err = t.tx.QueryRowContext(t.ctx, "SELECT inquiry_id, redeemed_at, redeemed_by FROM receipt_redemptions WHERE jti = ?", r.ID).
		Scan(&first.InquiryID, &at, &first.RedeemedBy)
	first.RedeemedAt = fromMicros(at)
	return first, false, dbError(err, "receipt redemption")
}
