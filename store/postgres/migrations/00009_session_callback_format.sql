-- +goose Up
-- The shape of a session's callbacks: '' for hitl's CloudEvents, 'agent-questions' for the
-- async agent questions protocol's question_pending bodies.
ALTER TABLE sessions ADD COLUMN callback_format TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE sessions DROP COLUMN callback_format;
