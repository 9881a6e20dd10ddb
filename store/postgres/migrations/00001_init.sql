-- +goose Up
-- JSON is kept as text: it reads back byte for byte as written. Each inquiry is kept whole in
-- doc; the other columns are copies of the fields that queries filter or sort on.
CREATE TABLE sessions (
    key          TEXT PRIMARY KEY,
    ord          BIGSERIAL NOT NULL UNIQUE,
    status       TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
    agent        TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    state        TEXT,
    result       TEXT,
    error        TEXT,
    callback_url TEXT,
    metadata     TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    completed_at TIMESTAMPTZ
);
CREATE INDEX sessions_created_by ON sessions (created_by);

CREATE TABLE inquiries (
    id           BIGSERIAL PRIMARY KEY,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'responded', 'timeout', 'cancelled')),
    session      TEXT REFERENCES sessions (key),
    origin       TEXT NOT NULL,
    request_type TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    unassigned   BOOLEAN NOT NULL,
    exclusive    BOOLEAN NOT NULL,
    timeout_at   TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    doc          TEXT NOT NULL
);
CREATE INDEX inquiries_status ON inquiries (status, id);
CREATE INDEX inquiries_session ON inquiries (session, status);
CREATE INDEX inquiries_created_by ON inquiries (created_by, id);
CREATE INDEX inquiries_created_at ON inquiries (created_at);
CREATE INDEX inquiries_deadline ON inquiries (timeout_at) WHERE status = 'pending' AND timeout_at IS NOT NULL;
-- At most one pending exclusive inquiry per session, whichever node asks.
CREATE UNIQUE INDEX inquiries_one_pending_exclusive ON inquiries (session) WHERE exclusive AND status = 'pending';

CREATE TABLE inquiry_assignees (
    assignee   TEXT NOT NULL,
    inquiry_id BIGINT NOT NULL REFERENCES inquiries (id),
    PRIMARY KEY (assignee, inquiry_id)
);
CREATE INDEX inquiry_assignees_inquiry ON inquiry_assignees (inquiry_id);

CREATE TABLE inquiry_metadata (
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    inquiry_id BIGINT NOT NULL REFERENCES inquiries (id),
    PRIMARY KEY (key, value, inquiry_id)
);

CREATE TABLE idempotency_keys (
    principal    TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    inquiry_id   BIGINT NOT NULL REFERENCES inquiries (id),
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (principal, key)
);

-- seq is assigned at the end of each transaction under an advisory lock held until commit, so
-- seq order is commit order and has no gaps (see Store.Update).
CREATE TABLE events (
    seq        BIGINT PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL,
    time       TIMESTAMPTZ NOT NULL,
    inquiry_id BIGINT,
    session    TEXT,
    actor      TEXT NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX events_inquiry ON events (inquiry_id, seq);
CREATE INDEX events_session ON events (session, seq);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    roles      TEXT[] NOT NULL,
    groups     TEXT[] NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE events;
DROP TABLE idempotency_keys;
DROP TABLE inquiry_metadata;
DROP TABLE inquiry_assignees;
DROP TABLE inquiries;
DROP TABLE sessions;
