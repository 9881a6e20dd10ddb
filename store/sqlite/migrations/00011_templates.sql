-- +goose Up
-- Templates: the questions asked again and again, kept by admins. doc is the template's
-- request (hitl.TemplateRequest) as JSON: the engine reads it whole, nothing filters on it.
CREATE TABLE templates (
    name       TEXT PRIMARY KEY,
    doc        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE templates;
