-- +goose Up
-- The indexes of inquiries and events by session hold only rows that have one: every query of
-- them asks for a session (=, IN, >), which such a row has, so none misses a row, and an
-- inquiry or event of no session — most of them — costs one index write less (docs/performance.md).
DROP INDEX inquiries_session;
CREATE INDEX inquiries_session ON inquiries (session, status) WHERE session IS NOT NULL;
DROP INDEX events_session;
CREATE INDEX events_session ON events (session, seq) WHERE session IS NOT NULL;

-- +goose Down
DROP INDEX events_session;
CREATE INDEX events_session ON events (session, seq);
DROP INDEX inquiries_session;
CREATE INDEX inquiries_session ON inquiries (session, status);
