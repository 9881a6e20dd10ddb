-- +goose Up
-- Webhook subscriptions, and the outbox: one row per event on its way to one URL. Deliveries
-- are derived from the event log by the engine, in one transaction with outbox_cursor, the
-- seq up to which the log has been read for them.
CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,
    description TEXT NOT NULL,
    secret      TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

-- next_attempt_at is also the lease: a claimed delivery's is moved to when its lease ends, so
-- a delivery whose dispatcher died becomes due again by itself.
CREATE TABLE deliveries (
    ord             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback')),
    webhook_id      TEXT REFERENCES webhooks (id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    target          TEXT NOT NULL,
    event_seq       INTEGER NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    inquiry_id      INTEGER,
    session         TEXT,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    last_attempt_at INTEGER,
    last_status     INTEGER NOT NULL,
    last_error      TEXT NOT NULL,
    last_response   TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    retry_from      INTEGER NOT NULL,
    delivered_at    INTEGER
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, ord);
CREATE INDEX deliveries_inquiry ON deliveries (inquiry_id, ord);
CREATE INDEX deliveries_session ON deliveries (session, ord);

CREATE TABLE outbox_cursor (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL
);
-- Nothing before this version asked for deliveries: start at the end of the log.
INSERT INTO outbox_cursor (id, seq) SELECT 1, COALESCE(MAX(seq), 0) FROM events;

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose Down
DROP TABLE settings;
DROP TABLE outbox_cursor;
DROP TABLE deliveries;
DROP TABLE webhooks;
