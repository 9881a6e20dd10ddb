-- +goose Up
-- Retention (--retain-resolved, hitl purge) removes ended inquiries and finished sessions with
-- what is kept for them: finished sessions are found by age, the rows that point at an
-- inquiry by it, and the audit checkpoints, which verification reads first, by type.
CREATE INDEX sessions_completed ON sessions (completed_at) WHERE status <> 'running';
CREATE INDEX idempotency_keys_inquiry ON idempotency_keys (inquiry_id);
CREATE INDEX execution_inquiries_inquiry ON execution_inquiries (inquiry_id);
CREATE INDEX events_checkpoints ON events (seq) WHERE type = 'audit.checkpoint';

-- +goose Down
DROP INDEX events_checkpoints;
DROP INDEX execution_inquiries_inquiry;
DROP INDEX idempotency_keys_inquiry;
DROP INDEX sessions_completed;
