-- +goose Up
-- Integer identities: each principal name gets one number, once, kept across key rotation
-- (workflow engines such as Attune name people by number). Names known so far get theirs in
-- the order they appeared.
CREATE TABLE identities (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE
);
INSERT INTO identities (name)
    SELECT name FROM (SELECT name, MIN(created_at) AS first FROM api_keys GROUP BY name) ORDER BY first, name;
INSERT OR IGNORE INTO identities (name) SELECT name FROM people ORDER BY name;

-- The workflow execution that asked, a copy of doc's execution for the ?execution= filter.
ALTER TABLE inquiries ADD COLUMN execution TEXT;
CREATE INDEX inquiries_execution ON inquiries (execution, id) WHERE execution IS NOT NULL;

-- The inquiry an execution's result created: one per execution, however often the result
-- comes in (a retried POST, a redelivered message).
CREATE TABLE execution_inquiries (
    execution  TEXT PRIMARY KEY,
    inquiry_id INTEGER NOT NULL REFERENCES inquiries (id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE execution_inquiries;
DROP INDEX inquiries_execution;
ALTER TABLE inquiries DROP COLUMN execution;
DROP TABLE identities;
