-- +goose Up
-- An inquiry's metadata rows found by the inquiry: the audit compares them with its document,
-- a page of inquiries at a time, and retention removes them with it. The primary key leads
-- with the key, so without this each read went through every inquiry's metadata.
CREATE INDEX inquiry_metadata_inquiry ON inquiry_metadata (inquiry_id);

-- +goose Down
DROP INDEX inquiry_metadata_inquiry;
