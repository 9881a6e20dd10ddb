-- +goose Up
-- The signed receipt of the decision that ended an inquiry (a compact JWS, NULL for none) and
-- its id (jti), by which an executor redeems it.
ALTER TABLE inquiries ADD COLUMN receipt TEXT;
ALTER TABLE inquiries ADD COLUMN receipt_jti TEXT;
CREATE UNIQUE INDEX inquiries_receipt_jti ON inquiries (receipt_jti) WHERE receipt_jti IS NOT NULL;

-- A receipt redeemed (POST /v1/receipts/{jti}/redeem): the one row per jti is what makes it
-- single use across every node.
CREATE TABLE receipt_redemptions (
    jti         TEXT PRIMARY KEY,
    inquiry_id  BIGINT NOT NULL,
    redeemed_at TIMESTAMPTZ NOT NULL,
    redeemed_by TEXT NOT NULL
);
-- Retention removes the redemptions with their inquiry.
CREATE INDEX receipt_redemptions_inquiry ON receipt_redemptions (inquiry_id);

-- +goose Down
DROP INDEX receipt_redemptions_inquiry;
DROP TABLE receipt_redemptions;
DROP INDEX inquiries_receipt_jti;
ALTER TABLE inquiries DROP COLUMN receipt_jti;
ALTER TABLE inquiries DROP COLUMN receipt;
