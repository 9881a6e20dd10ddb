-- +goose Up
-- The inbox counts each tab's questions up to 1000, newest first: the ended tabs walk 1000
-- rows of a year of history on every view. This index holds what those counts read (the
-- questions people see: not those that joined one), for index-only scans.
CREATE INDEX inquiries_primaries ON inquiries (status, id, unassigned) WHERE joined IS NULL;

-- +goose Down
DROP INDEX inquiries_primaries;
