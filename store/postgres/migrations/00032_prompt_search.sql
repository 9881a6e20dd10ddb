-- +goose Up
-- Text search (docs/performance.md, "A year of history"): a GIN index of the trigrams of each
-- prompt (pg_trgm), which ILIKE '%text%' reads for a text of three characters or more instead
-- of scanning every prompt; what matches stays what ILIKE says, as the index only narrows
-- the rows ILIKE then checks.
--
-- pg_trgm is a trusted extension that ships with PostgreSQL; one database holds it once, in
-- one schema. It goes to public when there is one, not to hitl's schema: several hitl
-- schemas share a database (TempSchema), and dropping the one that held it would drop the
-- others' indexes with it. Where it cannot be created (not installed, not allowed), the
-- migration goes on without the index and search scans the prompts, as before it.
--
-- fastupdate is off: with it, inserts gather in the index's pending list, and the insert that
-- finds it full merges it into the index inside its own commit, a stall of the node's writer
-- (cross-node wake p50 21 ms against 2.2 ms with it off, p99 75 against 15, in
-- `hitl bench --quick --db` runs on 2026-11-26). Each insert then updates the index itself.
-- +goose StatementBegin
DO $$
DECLARE
    trgm_schema name;
BEGIN
    SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    IF trgm_schema IS NULL THEN
        BEGIN
            IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public') THEN
                CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
            ELSE
                CREATE EXTENSION IF NOT EXISTS pg_trgm;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            -- Another schema's migration may have created it at the same moment: it is read again below.
            RAISE NOTICE 'pg_trgm: %', SQLERRM;
        END;
        SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    END IF;
    IF trgm_schema IS NOT NULL THEN
        EXECUTE format('CREATE INDEX inquiries_prompt_trigrams ON inquiries USING gin (prompt %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS inquiries_prompt_trigrams;
