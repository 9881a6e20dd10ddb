-- +goose Up
-- Push configs: where an inquiry's changes are posted for the agent that asked (A2A's push
-- notification configs of its task). Retention removes them with their inquiry.
CREATE TABLE push_configs (
    inquiry_id BIGINT NOT NULL,
    id         TEXT NOT NULL,
    url        TEXT NOT NULL,
    token      TEXT NOT NULL,
    version    TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (inquiry_id, id)
);

-- +goose Down
DROP TABLE push_configs;
