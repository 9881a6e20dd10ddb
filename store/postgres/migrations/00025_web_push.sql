-- +goose Up
-- Web Push: the devices on which people turned on notifications in the inbox (their browser's
-- push subscription, one row per endpoint), and the single-use action tokens of notifications
-- that were used, kept until they expire.
CREATE TABLE web_push_subscriptions (
    endpoint   TEXT PRIMARY KEY,
    person     TEXT NOT NULL,
    p256dh     TEXT NOT NULL,
    auth       TEXT NOT NULL,
    expires_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX web_push_subscriptions_person ON web_push_subscriptions (person, created_at);

CREATE TABLE web_push_action_uses (
    id         TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE web_push_action_uses;
DROP TABLE web_push_subscriptions;
