-- +goose Up
-- The W3C trace context a delivery carries on (traceparent, tracestate): its inquiry's, copied
-- when the outbox makes the delivery so that the dispatcher needs no read of the inquiry. The
-- inquiry keeps its own in its document, like its other fields.
ALTER TABLE deliveries ADD COLUMN traceparent TEXT NOT NULL DEFAULT '';
ALTER TABLE deliveries ADD COLUMN tracestate TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE deliveries DROP COLUMN tracestate;
ALTER TABLE deliveries DROP COLUMN traceparent;
