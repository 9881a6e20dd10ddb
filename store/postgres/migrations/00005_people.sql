-- +goose Up
-- People and groups: where hitl reaches the humans it asks (a person is the principal of the
-- same name).
CREATE TABLE people (
    name          TEXT PRIMARY KEY,
    display_name  TEXT NOT NULL,
    email         TEXT NOT NULL,
    slack_user_id TEXT NOT NULL,
    channels      TEXT[] NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE contact_groups (
    name          TEXT PRIMARY KEY,
    email         TEXT NOT NULL,
    slack_channel TEXT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE chat_webhooks (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    url        TEXT NOT NULL,
    events     TEXT[] NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- Notifications are deliveries too, with the columns that say who one is for.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check
    CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback', 'notification'));
ALTER TABLE deliveries
    ADD COLUMN channel   TEXT NOT NULL DEFAULT '',
    ADD COLUMN recipient TEXT NOT NULL DEFAULT '',
    ADD COLUMN address   TEXT NOT NULL DEFAULT '',
    ADD COLUMN reason    TEXT NOT NULL DEFAULT '',
    ADD COLUMN thread    TEXT NOT NULL DEFAULT '';
CREATE INDEX deliveries_recipient ON deliveries (recipient) WHERE kind = 'notification';

-- +goose Down
DROP INDEX deliveries_recipient;
DELETE FROM deliveries WHERE kind = 'notification';
ALTER TABLE deliveries DROP COLUMN channel, DROP COLUMN recipient, DROP COLUMN address, DROP COLUMN reason, DROP COLUMN thread;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback'));
DROP TABLE chat_webhooks;
DROP TABLE contact_groups;
DROP TABLE people;
