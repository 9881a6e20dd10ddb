-- +goose Up
-- A publish to a message broker (RabbitMQ, NATS) is an outbox delivery too, claimed and retried
-- like the others; its channel names the broker.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check
    CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback', 'notification', 'broker'));

-- +goose Down
DELETE FROM deliveries WHERE kind = 'broker';
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check
    CHECK (kind IN ('webhook', 'inquiry_callback', 'session_callback', 'notification'));
