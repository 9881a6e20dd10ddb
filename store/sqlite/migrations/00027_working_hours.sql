-- +goose Up
-- A person's time zone (an IANA name, '' for UTC) and working hours (a JSON object of days to
-- [start, end], '{}' for always): reminders and escalations wait for them.
ALTER TABLE people ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE people ADD COLUMN working_hours TEXT NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE people DROP COLUMN working_hours;
ALTER TABLE people DROP COLUMN time_zone;
