-- +goose Up
-- The timers of a pending inquiry besides its deadline: its next reminder, and its escalation
-- until it has escalated. Each is fired by one conditional update, so exactly once.
ALTER TABLE inquiries ADD COLUMN next_reminder_at INTEGER;
ALTER TABLE inquiries ADD COLUMN escalate_at INTEGER;
CREATE INDEX inquiries_nudges ON inquiries (id) WHERE status = 'pending' AND (next_reminder_at IS NOT NULL OR escalate_at IS NOT NULL);

-- +goose Down
DROP INDEX inquiries_nudges;
ALTER TABLE inquiries DROP COLUMN escalate_at;
ALTER TABLE inquiries DROP COLUMN next_reminder_at;
