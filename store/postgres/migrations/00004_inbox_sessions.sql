-- +goose Up
-- Sign-ins to the web inbox: the browser's cookie holds a random id, this table its SHA-256.
-- A session works while it has not expired and its key is not revoked; sign-out deletes it.
CREATE TABLE inbox_sessions (
    id_hash    TEXT PRIMARY KEY,
    key_id     TEXT NOT NULL REFERENCES api_keys (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX inbox_sessions_key ON inbox_sessions (key_id);
CREATE INDEX inbox_sessions_expires ON inbox_sessions (expires_at);

-- +goose Down
DROP TABLE inbox_sessions;
