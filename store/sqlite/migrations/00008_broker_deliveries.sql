-- +goose Up
-- A publish to a message broker (RabbitMQ, NATS) is an outbox delivery too, claimed and retried
-- like the others; its channel names the broker. SQLite cannot change a CHECK constraint, so
-- the table is made again with the new kind.
CREATE TABLE deliveries_new (
    ord             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback', 'notification', 'broker')),
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
    delivered_at    INTEGER,
    channel         TEXT NOT NULL DEFAULT '',
    recipient       TEXT NOT NULL DEFAULT '',
    address         TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    thread          TEXT NOT NULL DEFAULT ''
);
INSERT INTO deliveries_new (ord, id, kind, webhook_id, url, target, event_seq, event_id, event_type, inquiry_id,
    session, payload, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error, last_response,
    created_at, retry_from, delivered_at, channel, recipient, address, reason, thread)
SELECT ord, id, kind, webhook_id, url, target, event_seq, event_id, event_type, inquiry_id,
    session, payload, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error, last_response,
    created_at, retry_from, delivered_at, channel, recipient, address, reason, thread FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_new RENAME TO deliveries;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, ord);
CREATE INDEX deliveries_inquiry ON deliveries (inquiry_id, ord);
CREATE INDEX deliveries_session ON deliveries (session, ord);
CREATE INDEX deliveries_recipient ON deliveries (recipient) WHERE kind = 'notification';

-- +goose Down
DELETE FROM deliveries WHERE kind = 'broker';
