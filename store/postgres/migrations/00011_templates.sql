-- +goose Up
-- Templates: the questions asked again and again, kept by admins. doc is the template's
-- request (hitl.TemplateRequest) as JSON text, kept as sent: the engine reads it whole, nothing
-- filters on it (jsonb would reorder its members).
CREATE TABLE templates (
    name       TEXT PRIMARY KEY,
    doc        TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    updated_by TEXT NOT NULL
);

-- +goose Down
DROP TABLE templates;
