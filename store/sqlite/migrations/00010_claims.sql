-- +goose Up
-- When a pending inquiry's claim expires (nil when nobody holds it): the claim's timer, loaded
-- at start-up like the deadlines.
ALTER TABLE inquiries ADD COLUMN claim_expires_at INTEGER;
CREATE INDEX inquiries_claims ON inquiries (id) WHERE status = 'pending' AND claim_expires_at IS NOT NULL;
-- An assignee of a chain's earlier step: they still see the inquiry, but it is no longer
-- assigned to them ("Assigned to me", what a pool counts).
ALTER TABLE inquiry_assignees ADD COLUMN earlier INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE inquiry_assignees DROP COLUMN earlier;
DROP INDEX inquiries_claims;
ALTER TABLE inquiries DROP COLUMN claim_expires_at;
