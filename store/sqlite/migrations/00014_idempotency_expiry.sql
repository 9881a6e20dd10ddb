-- +goose Up
-- Idempotency keys expire (the engine removes those older than --idempotency-ttl a batch at a
-- time): found by age.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP INDEX idempotency_keys_created;
