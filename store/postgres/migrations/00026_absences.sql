-- +goose Up
-- Absences: a person away names a delegate who answers in their place for a period (at most
-- one absence a person; setting another replaces it). A person needs no people row to be away:
-- someone known by their keys only may be away too.
CREATE TABLE absences (
    person     TEXT PRIMARY KEY,
    starts_at  TIMESTAMPTZ NOT NULL,
    ends_at    TIMESTAMPTZ NOT NULL,
    delegate   TEXT NOT NULL,
    set_by     TEXT NOT NULL,
    set_at     TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE absences;
