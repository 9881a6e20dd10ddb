-- +goose Up
-- Text search (docs/performance.md, "A year of history"): an index of every three characters
-- of each prompt (FTS5's trigram tokenizer, which folds case), so that a search of three
-- characters or more reads the inquiries that hold them instead of scanning every prompt.
-- It keeps no copy of the prompts (content= reads them from inquiries), and triggers keep it
-- in step with the inquiries inside each transaction that writes them: created, removed by
-- retention, and (never today) given another prompt. 'rebuild' indexes the inquiries there
-- are.
CREATE VIRTUAL TABLE inquiry_search USING fts5 (prompt, content = 'inquiries', content_rowid = 'id', tokenize = 'trigram');

-- +goose StatementBegin
CREATE TRIGGER inquiry_search_insert AFTER INSERT ON inquiries BEGIN
    INSERT INTO inquiry_search (rowid, prompt) VALUES (new.id, new.prompt);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inquiry_search_delete AFTER DELETE ON inquiries BEGIN
    INSERT INTO inquiry_search (inquiry_search, rowid, prompt) VALUES ('delete', old.id, old.prompt);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inquiry_search_update AFTER UPDATE OF prompt ON inquiries WHEN new.prompt IS NOT old.prompt BEGIN
    INSERT INTO inquiry_search (inquiry_search, rowid, prompt) VALUES ('delete', old.id, old.prompt);
    INSERT INTO inquiry_search (rowid, prompt) VALUES (new.id, new.prompt);
END;
-- +goose StatementEnd

INSERT INTO inquiry_search (inquiry_search) VALUES ('rebuild');

-- +goose Down
DROP TRIGGER inquiry_search_update;
DROP TRIGGER inquiry_search_delete;
DROP TRIGGER inquiry_search_insert;
DROP TABLE inquiry_search;
