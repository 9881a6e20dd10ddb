-- +goose Up
-- Equal questions from many askers (docs/dedup.md): an inquiry's dedup key and the fingerprint
-- of its question, and the inquiry it joined (NULL for the one people see). At most one
-- pending inquiry per key is the one people see, whoever asks at the same moment.
ALTER TABLE inquiries ADD COLUMN dedup_key TEXT;
ALTER TABLE inquiries ADD COLUMN dedup_hash TEXT;
ALTER TABLE inquiries ADD COLUMN joined BIGINT;
CREATE UNIQUE INDEX inquiries_one_pending_per_dedup_key ON inquiries (dedup_key)
    WHERE dedup_key IS NOT NULL AND joined IS NULL AND status = 'pending';
CREATE INDEX inquiries_joined ON inquiries (joined) WHERE joined IS NOT NULL;

-- +goose Down
DROP INDEX inquiries_joined;
DROP INDEX inquiries_one_pending_per_dedup_key;
ALTER TABLE inquiries DROP COLUMN joined;
ALTER TABLE inquiries DROP COLUMN dedup_hash;
ALTER TABLE inquiries DROP COLUMN dedup_key;
