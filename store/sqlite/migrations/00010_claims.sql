-- +goose Up
-- When a pending inquiry's claim expires (nil when nobody holds it): the claim's timer, loaded
-- at start-up like the deadlines.
ALTER TABLE inquiries ADD COLUMN claim_expires_at INTEGER;
CREATE INDEX inquiries_claims ON inquiries (id) WHERE status = 'pending' AND claim_expires_at IS NOT NULL;

-- +goose Down
DROP INDEX inquiries_claims;
ALTER TABLE inquiries DROP COLUMN claim_expires_at;
