-- +goose Up
-- Standing approvals (engine/rules.go): each rule as its JSON document, with what is asked of
-- it by columns. Revoked rules stay, as the record of what was approved by whom.
CREATE TABLE rules (
    id          TEXT PRIMARY KEY,
    created_at  TIMESTAMPTZ NOT NULL,
    revoked_at  TIMESTAMPTZ,
    doc         TEXT NOT NULL
);

-- +goose Down
DROP TABLE rules;
