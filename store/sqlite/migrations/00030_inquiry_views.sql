-- +goose Up
-- When each person first saw an inquiry they could answer (decision analytics): one row per
-- inquiry and person, written once, deleted with the inquiry.
CREATE TABLE inquiry_views (
    inquiry_id INTEGER NOT NULL REFERENCES inquiries (id),
    person     TEXT NOT NULL,
    viewed_at  INTEGER NOT NULL,
    PRIMARY KEY (inquiry_id, person)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE inquiry_views;
