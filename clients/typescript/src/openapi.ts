/**
 * Generated from httpapi/openapi.json by scripts/generate.mjs (npm run generate).
 * Do not edit: change the document and regenerate.
 */

export interface paths {
    "/api/interactions/{id}/answer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer an interaction (Nova's shape)
         * @description As POST /v1/inquiries/{id}/respond with response = answer, with the same rules and errors. The answer, as JSON text, is at most --nova-max-answer-bytes (default 32768, 32 KB): a larger one is 413. Emits inquiry.responded (Nova: interaction_update ANSWERED).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Any JSON value that fits the inquiry. */
                        answer: unknown;
                    };
                };
            };
            responses: {
                /** @description Answered: status ANSWERED */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NovaInteraction"];
                    };
                };
                /** @description Malformed request, or an answer that does not fit (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed to answer (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Already answered differently, or no longer pending (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The answer is larger than --nova-max-answer-bytes (too_large): "the answer is 40 KB; Nova answers are limited to 32 KB". */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/interactions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decline an interaction (Nova's Cancel; a person who may answer)
         * @description Allowed to those who may answer the inquiry unless the asking agent set cancellable_by_responder to false. The inquiry is cancelled (declined_by) and its session fails with the reason, in one transaction: emits inquiry.cancelled and session.failed (Nova's socket: interaction_update CANCELED, then task_error with the reason; the session's other pending inquiries are cancelled with it). The body is optional.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description Why; the session's error. Default "declined by NAME" ("declined by bob for alice" when a delegate declines for someone away, who is then on_behalf_of). */
                        reason?: string;
                    };
                };
            };
            responses: {
                /** @description Declined: status CANCELED */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NovaInteraction"];
                    };
                };
                /** @description Malformed request (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed: the caller may not answer it, or the agent set cancellable_by_responder to false (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No longer pending (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/interactions/pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pending interactions (Nova's shape)
         * @description The pending inquiries the caller may see, newest first (at most 100), of one thread (session) when thread_id is given: a page that reloads shows its question card again.
         */
        get: {
            parameters: {
                query?: {
                    /** @description The session. */
                    thread_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The pending interactions */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            interactions: components["schemas"]["NovaInteraction"][];
                        };
                    };
                };
                /** @description An unknown query parameter (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description 200 while the process is up.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Up */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Status"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description 200 when the store answers, else 503.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Status"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The store does not answer (unavailable). */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Text exposition format: hitl_inquiries_created_total, hitl_inquiries_resolved_total{status}, hitl_inquiries_pending, hitl_waiters, hitl_streams, hitl_human_response_seconds, hitl_wake_latency_seconds, hitl_http_requests_total{route,status}, hitl_http_request_seconds{route}, and the Go and process collectors.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Metrics */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description OpenAPI 3.1 description of the API.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The document */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List keys (admin)
         * @description Every key, revoked ones included, without tokens. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Keys */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Key"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a key (admin)
         * @description The token is random (256 bits), shown only in this answer and stored as a hash. A name is one principal: another key for a name that an unrevoked key holds (to rotate it) must have the same roles and groups, else 409.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["KeyRequest"];
                };
            };
            responses: {
                /** @description Created, with its token */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Key"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The name belongs to a principal whose key has other roles or groups (code conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key (admin)
         * @description Revoked at once.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's principal */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Principal */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Principal"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List inquiries
         * @description Newest first. A responder sees what it may answer, an agent what it created, an admin everything. metadata.KEY=VALUE filters on metadata. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    /** @description pending, responded, timeout or cancelled */
                    status?: string;
                    /** @description the workflow execution that asked */
                    execution?: string;
                    session?: string;
                    origin?: string;
                    request_type?: string;
                    /** @description a name, group:NAME, or me (the caller and its groups); repeatable */
                    assigned_to?: string;
                    created_by?: string;
                    /** @description RFC 3339 */
                    created_after?: string;
                    /** @description RFC 3339 */
                    created_before?: string;
                    /** @description 1..500, default 50 */
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                    /** @description Text the prompt contains, any case (at most 200 characters). */
                    q?: string;
                    /** @description newest (default) or deadline: the soonest deadline first, those without one last. */
                    order?: "newest" | "deadline";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Inquiry"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Ask a question (agent or admin)
         * @description Emits inquiry.created. With Idempotency-Key, the same key from the same principal returns the first inquiry (200) whatever its status, for 24 hours (the server's --idempotency-ttl; after that the key asks anew); the same key with another body is 409. With ?wait=, waits like GET .../wait before answering. With template (and vars), the inquiry is made from a stored template: see InquiryRequest.template. With dedup_key (or dedup), a pending inquiry that asks the same question is joined rather than asked again: the new inquiry (201, its own) carries joined, and ends with that one's answer; the same key with another question is 409 (docs/dedup.md).
         */
        post: {
            parameters: {
                query?: {
                    /** @description Go duration or seconds, at most 5m, like 30s */
                    wait?: string;
                };
                header?: {
                    "Idempotency-Key"?: string;
                    /** @description W3C Trace Context: the agent's trace, kept with the inquiry (its traceparent) and carried onto its webhooks, callbacks and broker messages. An invalid value is ignored, not refused: the request starts a new trace. */
                    traceparent?: string;
                    /** @description W3C Trace Context: vendor data kept and passed on beside a valid traceparent. */
                    tracestate?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["InquiryRequest"];
                };
            };
            responses: {
                /** @description Returned by idempotency key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One inquiry
         * @description 404 also when the caller may not see it.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The inquiry */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer (responder or admin)
         * @description First answer wins. The same answer again by the same principal is 200 (a safe retry); any other later answer is 409 with the current state. An answer after the deadline is 409 even before the timeout is processed. Assigned inquiries accept only their assignees (admins included); a responder who may not see the inquiry gets 404, as from GET. Emits inquiry.responded. For a quorum or a chain, the answer is a vote ({approved, comment}): 200 with the inquiry still pending and its votes until the votes decide; the same vote again is 200, a different one 409. 403 when separation of duties excludes the caller (the asker; the session owner), 409 while someone else holds a claim. An approval of a tool call with decisions (allowed_decisions) is answered with a ToolDecisionAnswer; its tool_result then says whether to run the tool (run, arguments, decision, message).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ResponseRequest"];
                };
            };
            responses: {
                /** @description Answered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The answer does not satisfy the inquiry's schema or options (invalid_response); errors lists every failure with its path. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel (creator or admin)
         * @description Emits inquiry.cancelled. Final inquiries are 409.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        reason?: string;
                    };
                };
            };
            responses: {
                /** @description Cancelled */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Wait for the answer (long poll)
         * @description Returns as soon as the inquiry is final (woken by push within milliseconds), or when timeout passes with the inquiry still pending. Always 200 with the inquiry.
         */
        get: {
            parameters: {
                query?: {
                    /** @description 0..300 s, default 30s; Go duration or seconds */
                    timeout?: string;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The inquiry */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description Newest first; agents see the sessions they created, admins all of them, responders all of them without state, metadata, result, error and callback_url. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    /** @description running, awaiting_input, completed, failed or cancelled */
                    status?: string;
                    /** @description 1..500, default 50 */
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Session"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One session
         * @description status awaiting_input is derived: a running session with pending inquiries. Responders see it without state, metadata, result, error and callback_url.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The session */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Create or update a session (agent or admin)
         * @description 201 when created, 200 when updated; a finished session is 409. A session belongs to the principal that created it (created_by) and to admins; to any other agent every route of it is 404, and its key cannot be taken: choose another. Emits session.updated.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["SessionRequest"];
                };
            };
            responses: {
                /** @description Updated */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{key}/inquiries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A session's inquiries
         * @description The whole history, oldest first, for timelines. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Inquiries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Inquiry"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{key}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete a session
         * @description Cancels its pending inquiries in the same transaction. Finished sessions are 409. Emits session.completed.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description The run's result: any JSON, nested at most 64 deep, numbers as for session state, no member name twice. */
                        result?: unknown;
                    };
                };
            };
            responses: {
                /** @description Completed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{key}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail a session
         * @description Cancels its pending inquiries. Emits session.failed.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        error?: string;
                    };
                };
            };
            responses: {
                /** @description Failed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{key}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a session
         * @description Cancels its pending inquiries. Emits session.cancelled.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Cancelled */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of the event log
         * @description Events with seq > after that the caller may see, in seq order; seq is gap-free as readers see it. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    /** @description seq to start after (default 0) */
                    after?: number;
                    /** @description event types, comma-separated or repeated */
                    type?: string;
                    session?: string;
                    inquiry_id?: number;
                    /** @description 1..500, default 50 */
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page; next_cursor is the last seq when the page is full */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Event"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/engagement/decide": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Should the agent ask a human?
         * @description defer when risk ≥ 0.9 or reversibility ≤ 0.1; require_input when confidence < 0.5 or risk ≥ 0.6; autonomous when confidence ≥ 0.85, risk ≤ 0.3 and reversibility ≥ 0.5; otherwise request_input. The same inputs always give the same decision.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Signals"];
                };
            };
            responses: {
                /** @description The decision */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Decision"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live event stream (Server-Sent Events)
         * @description The events the caller may see, with the filters of GET /v1/events: first the stored ones after Last-Event-ID (or ?after=), then live ones as they commit, in seq order, with no gap and no duplicate. Each message: id = seq, event = type, data = the event JSON. A comment line every 15 s keeps the stream open. A client that falls too far behind receives `event: reset` with data {"resume_after": SEQ} and is disconnected; it resumes with Last-Event-ID. A client that asks to start after a seq this log does not know — beyond its newest event, or from after the backup a restored database was restored from — receives `event: reset` at once, with data {"resume_after": SEQ, "reason": "unknown_position"}, and is disconnected: the events it saw after SEQ are not in this log, so it reads again what it holds and resumes after SEQ. Revoking the token ends its streams. The first message is `event: start` with data {"after": SEQ}: where the stream starts. `after=now` (or Last-Event-ID: now) starts at the end of the log, with only new events.
         */
        get: {
            parameters: {
                query?: {
                    /** @description seq to start after when there is no Last-Event-ID */
                    after?: number | "now";
                    /** @description event types, comma-separated or repeated */
                    type?: string;
                    session?: string;
                    inquiry_id?: number;
                    /** @description a name, group:NAME, or me */
                    assigned_to?: string;
                };
                header?: {
                    /** @description seq to resume after */
                    "Last-Event-ID"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Malformed filter or Last-Event-ID (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Event subscriptions over a WebSocket
         * @description Upgrade to a WebSocket. The client sends {"type":"subscribe","id":"name","filters":{"entity_type":"inquiry"|"session"|"key"|"webhook","user_id":"alice","session":"...","inquiry_id":42,"after":0}} (after omitted: only new events; user_id: inquiries that principal may answer, named or by its integer identity, as Attune sends it: "user_id":5) and {"type":"unsubscribe","id":"name"} (no id: all). The server answers {"type":"subscribed","subscription":"name","resume_after":SEQ}, then sends {"id":SEQ,"subscription":"name","entity_type":"inquiry","entity":"42","activity":"created","content":{...}} for each event the caller may see, in seq order, replay first; {"type":"reset","subscription":...,"resume_after":SEQ} when a subscription falls behind (it ends; subscribe again with after), or at once, with "reason":"unknown_position", when its after is a seq this log does not know (beyond its newest event, or from after the backup a restored database was restored from: read again what you hold), {"type":"error","message":...} for a bad message. The server pings every 20 s; revoking the token closes the socket. Messages are at most 64 KiB. With "protocol":"nova" in subscribe, the subscription sends Nova's messages instead of events: {"type":"user_prompt","interaction_id","question","schema","origin_name","thread_id"} on inquiry.created and {"type":"interaction_update","interaction_id","status":"ANSWERED"|"CANCELED"|"RESUMING"} (RESUMING: inquiry.resumed, the agent has the answer), and after the CANCELED of an interaction whose end failed its task (it expired under the fail policy, or the person declined) {"type":"task_error","task_id","thread_id","interaction_id","message"} with the session's error ("question 7 timed out", or the reason given). Authentication: a header token; or, for a browser page, the token as the subprotocol hitl.bearer.TOKEN (offer hitl too and the server chooses hitl; else it echoes the one offered), or the inbox's session cookie, only from this server's own pages (Origin equal to the request's host or the public URL; 403 otherwise).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Switching to the WebSocket protocol */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not a WebSocket upgrade request (upgrade_required). */
                426: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks (admin)
         * @description Oldest first, without secrets. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Webhooks */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Webhook"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a webhook (admin)
         * @description Subscribes a URL to events. Each delivery is a POST of a CloudEvents 1.0 structured JSON event with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), signed with the secret returned here, once. Receivers answer 2xx; anything else is retried with exponential backoff (5 s doubling up to 1 h, for 24 h by default), then the delivery is failed.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookRequest"];
                };
            };
            responses: {
                /** @description Created, with its secret */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The webhook, without its secret */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Delete a webhook (admin)
         * @description Nothing more is sent to it; its deliveries are deleted with it.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a webhook's deliveries (admin)
         * @description Newest first. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    status?: "pending" | "delivered" | "failed";
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deliveries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Delivery"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries (admin)
         * @description Webhook deliveries and resume callbacks, newest first. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    status?: "pending" | "delivered" | "failed";
                    webhook_id?: string;
                    inquiry_id?: number;
                    session?: string;
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deliveries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Delivery"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again (admin)
         * @description A delivered or failed delivery becomes pending, due now, with a new round of retries. Its id (the webhook-id header) stays the same.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Pending again */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Delivery"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/callback-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The resume callbacks' signing secret (admin)
         * @description Resume callbacks (callback_url of an inquiry or a session) are signed like webhooks, with this secret (HITL_CALLBACK_SECRET, or one generated at the first start and shared by every node).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The secret */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            secret: string;
                        };
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A tool definition for LLM function calling
         * @description request_user_input, the tool through which a model asks a human, in the shapes OpenAI and Anthropic tool lists take. Create the inquiry from the model's arguments with tool_call set to the call (id, name, arguments); the final inquiry's tool_result is the tool's result, bound to the call id (client.HandleToolCall does all of it). Its argument answer_in_client is for MCP's request_user_input (elicitation in the agent's own client, docs/mcp.md): in function calling there is no client to ask, and it is ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: "request_user_input";
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The definitions */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ToolDefinitions"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/agent-card.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A2A Agent Card
         * @description The Agent Card of A2A 0.3, with 1.0's supportedInterfaces, to anyone: the JSON-RPC endpoint's absolute URL (under --public-url, else the request's host), the bearer scheme of hitl's keys, the skills ask-a-person and ask-a-group, streaming and push notifications. The skill of each template is on the extended card (agent/getAuthenticatedExtendedCard), for a key.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The Agent Card */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/a2a": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Agent2Agent protocol (A2A 0.3 and 1.0, JSON-RPC binding)
         * @description One JSON-RPC 2.0 request of A2A 0.3 (or the same under A2A 1.0's method names, SendMessage, GetTask and the rest, in 1.0's shapes): message/send and message/stream (a message is a question to people: its text parts are the prompt, a data part may say response_schema, options, multiple, request_type, assigned_to, timeout_seconds, fallback_policy, fallback_value, context, template and vars), tasks/get, tasks/cancel, tasks/resubscribe, tasks/pushNotificationConfig/set, get, list and delete (the task's end is posted to each config's url through the outbox, retried, with its token in X-A2A-Notification-Token), and agent/getAuthenticatedExtendedCard. A task is an inquiry (its id the inquiry's id), its contextId the inquiry's session. Refusals are JSON-RPC error objects with A2A's codes (HTTP 200); message/stream and tasks/resubscribe answer with a text/event-stream of JSON-RPC responses. docs/a2a.md says more.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            responses: {
                /** @description The JSON-RPC response (a result or an error object), or for the streaming methods a text/event-stream of them */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                        "text/event-stream": string;
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * MCP: the session's stream of server messages (SSE)
         * @description The standalone text/event-stream of an MCP session (Mcp-Session-Id): requests and notifications the server sends outside a tool call's own stream. Without a session id it is refused (405).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No session of this key by that id: a JSON-RPC error object */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No Mcp-Session-Id: a JSON-RPC error object */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Model Context Protocol (streamable HTTP, with sessions)
         * @description JSON-RPC messages of MCP. Every request carries the bearer token. An initialize starts a session: the answer's Mcp-Session-Id header names it, the client sends it on every later request, and it is bound to the key that started it (another key naming it gets 404, as for an ended one); sessions end after 30 minutes unused, with DELETE, or at shutdown, and a key holds at most 16 (its least recently used idle one ends). A request without a session id that is not an initialize is served statelessly. In a session whose client declared elicitation, request_user_input with answer_in_client also asks the client's user (docs/mcp.md), and in a session request_user_input may run as an MCP task (tasks/get, tasks/result, tasks/cancel and tasks/list answer with or without one: docs/mcp-tasks.md); the tools act as its principal: request_user_input (asks and waits up to 45 s, then returns status pending with the inquiry_id), get_user_input, approval_prompt (Claude Code's permission prompt: a person approves, edits or rejects a tool use; its text is {"behavior":"allow","updatedInput":...} or {"behavior":"deny","message":...}), and for responders and admins list_pending_inquiries and respond_to_inquiry. Tool results carry text and structuredContent; errors are tool results with isError and the server's message.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            responses: {
                /** @description The JSON-RPC answer, as JSON or as a text/event-stream with progress notifications first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                        "text/event-stream": string;
                    };
                };
                /** @description Accepted (a notification or a response) */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Refused: a JSON-RPC error for a message the MCP server refuses, or a problem (invalid) for a request the transport refuses, such as one whose Accept lacks application/json and text/event-stream */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The Mcp-Session-Id names no session of this key (it ended, or is another key's): a JSON-RPC error object; start a new session with initialize */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is not application/json (unsupported_media_type). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server holds as many MCP sessions as it may (1000): a JSON-RPC error object; try again later */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * MCP: end a session
         * @description Ends the MCP session the Mcp-Session-Id header names: its streams close and its outstanding requests to the client are abandoned.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ended */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No Mcp-Session-Id: a JSON-RPC error object */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No session of this key by that id: a JSON-RPC error object */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make an answer link (relay role or admin; or the asking key for itself)
         * @description Signs a link for one person to answer this pending inquiry without an API key, for email and chat: GET /a/{token} shows the inquiry and a confirm form, and only the form's POST answers, so link scanners that fetch the URL never answer. A link answers in its person's name, so making one is relaying: it needs the relay role or admin (403 otherwise), except for one link: the key that asked the inquiry may make one for itself (for its own name) when it may answer the inquiry itself (the responder role, the assignment, separation of duties), as MCP's answer_in_client does for a question no elicitation form can ask; and the inquiry's asker may never make one for someone else (403). The maker acts for the person, so it need not be assigned; to a maker that cannot see the inquiry, one its person may not answer is 404. The person must be one hitl knows (a key of that name, or a person in /v1/people) who may answer the inquiry by hitl's own records: their assignment, or the groups of their keys; the groups a link carries are always those, never the request's. A link made for someone else records its maker as relayed_by on the answer and in its event, and separation of duties holds the maker as it holds the person. The link works until expires_at and is refused (401, with the reason) when altered, or once its person's keys are all revoked (a person without keys: once deleted from people), its person no longer sees the inquiry by hitl's records, or its maker may no longer relay. (The links hitl puts in its own messages also stop when the person is deleted from people or their address changes.) Final inquiries are 409.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AnswerLinkRequest"];
                };
            };
            responses: {
                /** @description The link */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AnswerLink"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/people": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List people (admin)
         * @description By name: where each principal is reached. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description People */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Person"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/people/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a person (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The person */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Person"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Set a person (admin)
         * @description A person is the principal of the same name (its keys' name). The body replaces the person whole; every field is optional. channels lists the channels the person wants messages by; empty: every channel the person has an address for. Invalid email addresses, unknown channels, channels without their address and Slack IDs not of Slack's form (U… or W…) are 400 with the path of each problem.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["PersonRequest"];
                };
            };
            responses: {
                /** @description The person as stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Person"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Delete a person (admin)
         * @description Forgets where the person is reached; the person's keys stay.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/people/{name}/absence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a person's absence (the person or an admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The absence, unless it has ended */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Absence"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Neither the person themself nor an admin (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The person has no absence that has not ended (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Set a person's absence (the person or an admin)
         * @description From from until until, delegate answers in the person's place: what is assigned to the person by name (not through a group), recorded as on_behalf_of, and the person's messages go to the delegate. A delegate away too hands on to their own delegate, at most 3 delegates down the chain. Replaces the person's absence. See docs/away.md.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AbsenceRequest"];
                };
            };
            responses: {
                /** @description The absence as stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Absence"];
                    };
                };
                /** @description Malformed body, unknown field, or invalid field (code invalid): until not after from or passed, delegate missing, unknown or the person themself; errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Neither the person themself nor an admin (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The delegates would make a loop (conflict): the message names it, alice → bob → alice. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** End a person's absence now (the person or an admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ended */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Neither the person themself nor an admin (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The person has no absence that has not ended (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List groups' contact points (admin)
         * @description An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Groups */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Group"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/groups/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a group's contact points (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The group */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Group"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Set a group's contact points (admin)
         * @description A message to group:NAME goes to these (once, not once per member); a group without contact points by the channels allowed is reached through each member (the principals whose keys carry the group). The body replaces the group whole. slack_channel is a channel ID (C…, G… or D…).
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["GroupRequest"];
                };
            };
            responses: {
                /** @description The group as stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Group"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Delete a group's contact points (admin)
         * @description Its members are reached one by one from then on.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat-webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List chat webhooks (admin)
         * @description An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Chat webhooks */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ChatWebhook"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a chat webhook (admin)
         * @description Posts a message to a chat room's incoming webhook (Slack, Microsoft Teams, Google Chat, Discord) on the listed events (default inquiry.created): the prompt, and per option a link to the inquiry's page in the web inbox with that option chosen (/inquiries/{id}?answer=VALUE); whoever opens it signs in and confirms. The URL gets the same guard as a webhook's (global addresses only, unless the server allows private ones); posts are outbox deliveries, retried with backoff, and a 429's Retry-After is honoured.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChatWebhookRequest"];
                };
            };
            responses: {
                /** @description Created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ChatWebhook"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat-webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a chat webhook (admin)
         * @description Nothing more is posted: its pending messages are dropped, those sent stay in their inquiries' notifications.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an inquiry's notifications
         * @description The messages sent about the inquiry (by email, Slack, chat webhooks), oldest first, with their status, to whoever may see the inquiry. Address, url and last_response are shown to admins only. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Notifications */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Delivery"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{execution_id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take in an action's result (Attune; agent or admin)
         * @description The body is the result of a workflow execution's action. With an __inquiry object (prompt, response_schema, assigned_to as a name or integer identity, timeout_seconds, and any field of POST /v1/inquiries except context) it creates the inquiry with execution = execution_id and context = the rest of the result: 201. Without response_schema (nor request_type, options or template) any JSON answers it, as in Attune: its response_schema is {}. One execution creates one inquiry: the same execution again answers 200 with that inquiry as it is now. Without __inquiry (or with null, or a result that is not an object): 200 {"data": null}. An invalid __inquiry is 400 with the errors of POST /v1/inquiries, their paths under /__inquiry. Emits inquiry.created.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    execution_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        __inquiry?: components["schemas"]["InquiryRequest"];
                    };
                };
            };
            responses: {
                /** @description The execution's inquiry, created before; or data null when the result asks nothing */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"] | null;
                        };
                    };
                };
                /** @description Inquiry created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"];
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inquiries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List inquiries (Attune's shape)
         * @description Newest first, what the caller may see (as GET /v1/inquiries). An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    /** @description pending, responded, timeout or cancelled */
                    status?: string;
                    /** @description the execution id */
                    execution?: string;
                    /** @description an integer identity; one that nobody holds is 400 */
                    assigned_to?: number;
                    /** @description 1..1000000, default 1 */
                    page?: number;
                    /** @description 1..500, default 50 */
                    per_page?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"][];
                            total: number;
                            page: number;
                            per_page: number;
                            pages: number;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inquiries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an inquiry (Attune's shape) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The inquiry */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"];
                        };
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inquiries/{id}/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer (Attune's shape; responder or admin)
         * @description As POST /v1/inquiries/{id}/respond, with the same rules and errors. Emits inquiry.responded.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ResponseRequest"];
                };
            };
            responses: {
                /** @description Answered; message is "Response submitted successfully" */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"];
                            message?: string;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The answer does not satisfy the inquiry's schema or options (invalid_response); errors lists every failure with its path. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inquiries/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer several inquiries at once (Attune's shape; responder or admin)
         * @description As POST /v1/inquiries/respond, with the same request, rules and errors; the results are the envelope's data. Emits inquiry.responded for each inquiry answered.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["BulkResponseRequest"];
                };
            };
            responses: {
                /** @description One result per inquiry, in the order of ids (for a filter, newest first) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["BulkResults"]["results"];
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The caller may not answer inquiries at all (forbidden): the responder or admin role is needed. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inquiries/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel (Attune's shape; its asker or an admin)
         * @description As POST /v1/inquiries/{id}/cancel, with the same rules and errors; the body ({"reason"}) is optional. Emits inquiry.cancelled.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Cancelled */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AttuneInquiry"];
                            message?: string;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An intent (OpenIntent's shape; the session's owner, admins, responders)
         * @description GET /v1/sessions/{key} as OpenIntent shows an intent: running is active, awaiting_input is suspended_awaiting_input, failed and cancelled are abandoned (with abandonment_reason, the session's error), and state._suspension is the session's latest inquiry. Its events appear on the streams and webhooks also as intent.suspended (inquiry.created) and intent.resumed (inquiry.responded, inquiry.timeout, inquiry.cancelled), at the same seq.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The intent */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Intent"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}/suspend/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a suspension (OpenIntent's shape; responder or admin)
         * @description As POST /v1/inquiries/{id}/respond, with the same rules and errors; a suspension that is not in the intent, or any answer to an intent that has ended, is 404. Emits inquiry.responded (and intent.resumed beside it).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SuspensionRespond"];
                };
            };
            responses: {
                /** @description Answered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SuspensionResolved"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The answer does not satisfy the inquiry's schema or options (invalid_response); errors lists every failure with its path. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change an intent's status (OpenIntent's shape; the session's owner or an admin)
         * @description active and suspended_awaiting_input follow from the intent's suspensions (it is suspended while one waits for a person): either is recorded as a change (session.updated), and active is 409 while a person is asked. abandoned: the session fails with the reason as its error, and its pending inquiries are cancelled (session.failed); an intent that has already been abandoned (its session failed or was cancelled, as a question that timed out under the fail policy ends it) stays as it is, with the reason it ended for, and the answer is 200. completed: as POST /v1/sessions/{key}/complete without a result. draft and blocked are 400.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The version of the intent the change is made against (its version field, as the SDK sends it: 3; an ETag's quotes are taken too). Another version is 409 with current_version. Without it the change is made whatever the version. */
                    "If-Match"?: string;
                };
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["IntentStatusChange"];
                };
            };
            responses: {
                /** @description The intent as it is now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Intent"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The intent changed since the version in If-Match (conflict; current_version says where it is now), or it has ended and can no longer change. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An intent's event log (OpenIntent's shape)
         * @description The events of the session that the caller may see, oldest first: what its agent logged, its inquiries' events and its own. An unknown intent is 404.
         */
        get: {
            parameters: {
                query?: {
                    /** @description How many events at most. */
                    limit?: number;
                    /** @description Only the events after this seq (the last one of the page before). */
                    after?: number;
                    /** @description Only the events of this type (the SDK's name, as event_type shows it). */
                    event_type?: string;
                    /** @description Only the events after this time (ISO 8601; without a zone, UTC). */
                    since?: string;
                };
                header?: never;
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The events, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IntentEvent"][];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Log an entry to an intent (OpenIntent's shape; the session's owner or an admin)
         * @description What OpenIntent's log(intent_id, message, **data) sends: {"event_type": "comment", "payload": {"message": ...}}. It changes nothing: it is a session.logged event, in the session's events and timeline, with the session and the entry as its data; it may be written after the session has ended. Not delivered to webhooks or callbacks.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["IntentEventToLog"];
                };
            };
            responses: {
                /** @description The entry, as the intent's events list it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IntentEvent"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent/questions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List questions (async agent questions shape)
         * @description The questions asked in sessions that the caller may see (as GET /v1/inquiries), oldest first, all on one page. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: {
                    /** @description pending, responded, timeout or cancelled; none: every status */
                    status?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The questions */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            questions: components["schemas"]["AgentQuestion"][];
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent/answer/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a session's question (async agent questions shape; responder or admin)
         * @description Answers the question question_id (a string or a number) of the session, or, without question_id, its one pending question. Same rules as POST /v1/inquiries/{id}/respond: the same answer again by the same person is accepted again. Emits inquiry.responded.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        question_id?: string | number | null;
                        /** @description Any JSON value the question accepts */
                        answer: unknown;
                    };
                };
            };
            responses: {
                /** @description Answered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            ok: true;
                            /** @constant */
                            status: "resumed";
                            session_id: string;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The session is unknown, not visible to the caller, or has completed, failed or been cancelled; or the question is unknown or not in the session (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The question was already answered differently, or has timed out or been cancelled; or question_id was left out and the session has no pending question or several (conflict: the detail names them). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The answer does not satisfy the inquiry's schema or options (invalid_response); errors lists every failure with its path. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent/session/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a session (async agent questions shape)
         * @description As GET /v1/sessions/{key}, in the protocol's words.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The session */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AgentSession"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer several inquiries at once (responder or admin)
         * @description One answer to at most 500 inquiries: those ids lists, or those filter matches in one session. Each inquiry is answered exactly as POST /v1/inquiries/{id}/respond answers it, in its own transaction: answered, or left as it was and refused with the reason; never half-applied. Inquiries the caller may not see are refused as not_found. Mistakes in the request itself (both or neither of ids and filter, an empty list, an id listed twice, more than 500 inquiries, a filter status other than pending, unknown fields) refuse all of it with 400 before anything is answered. Emits inquiry.responded for each inquiry answered.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["BulkResponseRequest"];
                };
            };
            responses: {
                /** @description One result per inquiry, in the order of ids (for a filter, newest first) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["BulkResults"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The caller may not answer inquiries at all (forbidden): the responder or admin role is needed. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/decline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decline to answer (who may answer, when the agent allows it)
         * @description Allowed to those who may answer the inquiry unless the asking agent set cancellable_by_responder to false (403 with the reason otherwise; 404 for who may not see it). The inquiry is cancelled with the reason (declined_by names the person) (default: "declined by NAME"), and its session fails with it, in one transaction: emits inquiry.cancelled and session.failed; the agent's wait ends with the cancellation. A final inquiry is 409 with its current state. The body is optional. The same rule as Nova's POST /api/interactions/{id}/cancel.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description Why, for the agent and the record. */
                        reason?: string;
                    };
                };
            };
            responses: {
                /** @description Declined: the inquiry, cancelled, with cancel_reason */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List templates (agent or admin)
         * @description By name: what agents may ask with. An unknown query parameter is 400 and named, never ignored.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Templates */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Template"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a template (agent or admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The template */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Template"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Set a template (admin)
         * @description Creates (201) or replaces (200) the template whole. Everything that asking with it would check and can be checked without vars is checked now: the prompt's syntax (no functions), vars_schema, and every other field as POST /v1/inquiries checks it; 400 with the path of each problem, and nothing is stored. Emits template.updated (admins only).
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["TemplateRequest"];
                };
            };
            responses: {
                /** @description The template, replaced */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Template"];
                    };
                };
                /** @description The template, created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Template"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Delete a template (admin)
         * @description Inquiries made from it keep its name in template; asking with it afterwards is 400 (unknown template). Emits template.deleted (admins only).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claim: take the inquiry to answer it (someone who may answer)
         * @description Others who answer or claim get 409 "claimed by alice until …" until the holder releases it (DELETE), answers, or the claim expires (ttl_seconds, default 900, at most 86400; claiming again extends it). Emits inquiry.claimed. Not for quorums or chains (400). Agents without the responder role get 403.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        ttl_seconds?: number;
                    };
                };
            };
            responses: {
                /** @description Claimed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Release a claim (its holder), or break it (an admin)
         * @description Emits inquiry.released with reason released or broken (expired when the timer ends it). 409 when nobody holds a claim; 403 for someone else's claim.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Released */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Inquiry"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflict (conflict); for an inquiry that is already final, inquiry holds its current state. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/head": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The head of the audit chain, signed (any principal)
         * @description The newest event's seq and hash of the audit chain (hash = SHA-256(previous hash ‖ the event's canonical JSON); see the README, section Audit), verified by the server through that seq and signed with its Ed25519 key (GET /v1/audit/key). What a head covers: the whole chain through that seq; the stored rows (an inquiry's document, its columns and its rows of assignees and metadata; a session's row) of the inquiries and sessions that the events since the server's previous look are about, and of an inquiry whose inbox page was shown, compared with their events; the rows found to differ before, compared again at each look; and the comparison of every stored row with its events that the server makes each hour, whose differences stop the signing too. A row edited in the database since that hourly comparison, with no event about it since, shows only at the next one (or with `hitl audit verify`, which compares every row). The signature, in standard base64, covers the UTF-8 text "hitl-audit-head\n{seq}\n{hash}\n{signed_at}" (no newline at the end). Keep a head somewhere else: `hitl audit verify --seq SEQ --head HASH` later proves that nothing up to it was changed, removed or reordered, and that the log still reaches it.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The signed head */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuditHead"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The log does not verify (conflict): the message names the first seq whose content, order or presence is wrong, or the first inquiry or session whose stored state is not the one its events produce (inquiry 12: the stored answer is "yes" but its events say "no" (event 345)). No head is signed then, until a later verification finds it put right. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The public key that verifies the signed audit heads
         * @description Public, like any public key: the raw 32-byte Ed25519 key in standard base64, the same as PEM (SubjectPublicKeyInfo) and as a JWK (RFC 8037). The private key is HITL_AUDIT_KEY, or one generated at the first start and kept in the database, shared by every node.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuditKey"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/retention/purge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove what ended before a time, with its events (admins)
         * @description Removes every inquiry outside a session that ended (answered, timed out or cancelled) before `before`, every finished session that ended before it with its inquiries, and what is kept for them: assignees, metadata, idempotency keys, execution links, deliveries and events. Pending inquiries, running sessions, what a delivery still waits on and events the outbox has not read yet stay. The server removes them in batches of at most 10 inquiries and 10 sessions, each in its own transaction (and waits four times as long as a batch took before the next, so that answers keep their pace) with an `audit.checkpoint` event (data: `before`, `inquiries`, `sessions`, and `removed`: the runs of seqs removed, each with the hash of its last event), so that the audit chain still verifies across the gaps. `hitl serve --retain-resolved 90d` does the same every minute. One request works for at most 20 s: when more is left, the answer says `more: true`, and the caller asks again (`hitl purge` does).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PurgeRequest"];
                };
            };
            responses: {
                /** @description What was removed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PurgeResult"];
                    };
                };
                /** @description The body is not JSON, has an unknown field, or has no `before`; or `before` is in the future (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key is not an admin's (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than the server's limit (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Numbers people can look at: how long humans take, what timed out, what waits (admin; a responder its own)
         * @description Over a window that ends now (default 7 days): the inquiries that became final in it (answered, timed out and of those the ones that fell back, cancelled) and the answers of each UTC day; how long the humans took to answer, from creation to answer, as nearest-rank p50 and p90 in seconds, in all, by request type, by who answered and by the group the inquiry was assigned to (an inquiry assigned to two groups counts in both); and the inquiries waiting now with the oldest of them. The responders and groups are the 20 with the most answers; the rest are folded into one row named "other" whose `others` says how many. The response times are computed from at most the newest 50,000 answers of the window (`sampled` says when there were more); the counts are of all. An admin sees every inquiry (`scope: all`); a responder its own (`scope: own`): those it answered and those assigned to it or one of its groups, now or in an earlier step. Agents get 403. The same numbers are in the inbox's Stats page and the metrics hitl_oldest_pending_seconds and hitl_group_response_seconds.
         */
        get: {
            parameters: {
                query?: {
                    /** @description The window's length: a duration like 24h, 90m, 7d or 30d (days of 24 hours); more than 0s and at most 366d. Default 7d. */
                    since?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The numbers */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Stats"];
                    };
                };
                /** @description since is not a duration, is 0 or negative, is longer than 366d, or is given twice; or another query parameter is given (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The caller is neither an admin nor a responder (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wait for many inquiries over one connection
         * @description The multiplexed wait: one agent process waits on up to 10,000 inquiries with one request, and the server holds each wait as an entry in its waiters (a few dozen bytes), not a connection and a goroutine. Each inquiry is registered before its state is read, so an answer that lands in between is never missed. The answer is a stream of JSON lines (application/x-ndjson), one WaitMessage each: every inquiry that is final, once (at once for those already final), an error line for each id the caller may not wait on (not_found: unknown or not visible to the caller, as GET says it), one waiting line once every id is registered, a ping every heartbeat (15 s), and an end line last, with the reason (done: every id reported; timeout; shutdown: wait again) and the ids still pending. A malformed body, an empty list, an id that is no id, an id listed twice, a bad timeout or an unknown field is 400 and more than 10,000 ids 413, before anything is waited on. Waiting reads nothing and changes nothing but the agent's receipt of the answer, as GET .../wait does.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WaitRequest"];
                };
            };
            responses: {
                /** @description A stream of WaitMessage lines, in the order things happen */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["WaitMessage"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing, or more than 10,000 ids (too_large): split them over several waits. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an intent (OpenIntent's shape; agent or admin)
         * @description A new session with a UUID as its key, the title and description as its metadata, the state as its state (session.updated). constraints, governance_policy, parent_intent_id and depends_on are not enforced and refused (400) unless empty.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["IntentToCreate"];
                };
            };
            responses: {
                /** @description The intent */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Intent"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change an intent's state (OpenIntent's shape; the session's owner or an admin)
         * @description The keys set are the session's state (session.updated); a _suspension written whole asks a person: an inquiry of the session with the suspension's question, choices as options (confirm: yes and no), context, channel_hint, timeout, fallback and confidence, that keeps the suspension's id (inquiry.created). Both at the version in If-Match.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The version of the intent the change is made against (its version field, as the SDK sends it: 3; an ETag's quotes are taken too). Another version is 409 with current_version. Without it the change is made whatever the version. */
                    "If-Match"?: string;
                };
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["IntentStatePatch"];
                };
            };
            responses: {
                /** @description The intent as it is now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Intent"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The intent changed since the version in If-Match (conflict; current_version says where it is now), or it has ended and can no longer change. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{intent_id}/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Assign an agent to an intent (OpenIntent's shape; the session's owner or an admin)
         * @description The session's agent becomes agent_id (session.updated), and an agent_assigned entry in its log (session.logged) sends AGENT_ASSIGNED to that agent's subscription.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session's key. */
                    intent_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AgentAssignment"];
                };
            };
            responses: {
                /** @description Assigned */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AgentAssigned"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The intent has ended (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/subscribe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An agent's assignments as Server-Sent Events (OpenIntent's shape)
         * @description What the OpenIntent SDK's Agent.run() listens on: "event: AGENT_ASSIGNED" with data {intent_id, agent_id, role} and the event's seq as id, for each assignment of an intent the caller may see (its sessions; all for an admin) to the agent; comment lines while idle. Last-Event-ID resumes after that seq.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The id of the last event received. */
                    "Last-Event-ID"?: string;
                };
                path: {
                    agent_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/server/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server configuration (OpenIntent's RFC-0026)
         * @description protocol_version, and suspension.default_retry_policy: null (an inquiry's reminders and escalation are its own).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The configuration */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            protocol_version: string;
                            suspension: {
                                default_retry_policy?: null;
                            };
                        };
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/openintent.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OpenIntent discovery
         * @description What the server is and which of OpenIntent's capabilities it serves (the SDK's discover()). Public.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The discovery document */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            protocol: string;
                            version: string;
                            capabilities: string[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/push/vapid-public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The server's VAPID public key (web push)
         * @description The key a browser subscribes with (PushManager.subscribe's applicationServerKey): the uncompressed P-256 point, base64url. The server makes its VAPID key pair once and keeps it in the database, encrypted like the other stored secrets; every node signs with it. Any authenticated principal may read it. Not to be confused with A2A's push notification configs. See docs/phone.md.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description VAPID public key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["VAPIDPublicKey"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/push-subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn on web push notifications on a device
         * @description Takes the browser's PushSubscription as its toJSON() gives it and stores it for the caller (who must be one who answers: responder or admin). Each new inquiry the caller may answer, each reminder and escalation then reaches the device through the outbox, once per device, encrypted for it (RFC 8291) and signed with the server's VAPID key (RFC 8292); a device its push service no longer knows (404, 410) is removed. The endpoint gets the same guard as a webhook's URL (global addresses only, unless the server allows private ones with --webhook-allow-private). The same endpoint again replaces the device: 200 when nothing but its time changed, 201 otherwise. See docs/phone.md.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PushSubscriptionRequest"];
                };
            };
            responses: {
                /** @description Already stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PushSubscription"];
                    };
                };
                /** @description Stored */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PushSubscription"];
                    };
                };
                /** @description Malformed request, or a subscription that is not one a browser makes (code invalid): an endpoint that is not an https URL or that the address guard refuses, keys that are not base64url or of the wrong length, an expirationTime in the past. errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The caller has the most devices one may have (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Turn off web push notifications on a device
         * @description Forgets the caller's device at endpoint, given as ?endpoint= or in the body {"endpoint": "..."}. Its action tokens stop answering.
         */
        delete: {
            parameters: {
                query?: {
                    /** @description The subscription's endpoint (else in the body). */
                    endpoint?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        endpoint?: string;
                    };
                };
            };
            responses: {
                /** @description Forgotten */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The caller has no device at that endpoint (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The public keys that verify decision receipts
         * @description Public, no authentication; cacheable for 5 minutes (Cache-Control max-age=300). The current key first, the previous one second (receipts signed before the last rotation still verify; those signed before the one before do not).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The key set */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JWKS"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signing-keys/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a new receipt signing key (admins)
         * @description The current key becomes the previous one and the one before it is dropped: receipts it signed no longer verify (unknown_key). Every node signs with the new key from the event signing_key.rotated on (visible to admins). `hitl keys rotate-signing` calls it.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The new key's id and the key set now served */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SigningKeyRotation"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key is not an admin's (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receipts/{jti}/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Use a receipt once
         * @description For executors that want a decision acted on once: the first redeem of a receipt succeeds, every later one, on any node, is 409 saying when and by whom it was redeemed. Any authenticated key.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The receipt's jti claim. */
                    jti: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Redeemed now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ReceiptRedemption"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No receipt has this jti (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Already redeemed ("already redeemed at <time> by <name>"), or expired ("expired at <time>") (conflict). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the standing approval rules
         * @description Admins see every rule, revoked and expired ones too, oldest first; people with the responder role the rules they authored. matched counts the inquiries each rule approved (or, in shadow mode, would have) on the node that answers since it started.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The rules */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            rules: components["schemas"]["Rule"][];
                        };
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Neither an admin nor a responder (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Make a standing approval rule (admins)
         * @description The rule approves, when it is created, each new inquiry it covers: a tool call (tool) or an approval made from a template (template), asked by agent (any agent when omitted), whose arguments satisfy args_schema and hold the exact values of args, until expires_at (at most --rule-max-validity ahead). The caller is its author: it applies only to inquiries the author may answer. It never rejects, never answers a selection or an input, and never approves a quorum or a chain that needs more approvals than its approvers. With shadow true it answers nothing and records inquiry.rule_matched. Event rule.created. See docs/rules.md.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RuleRequest"];
                };
            };
            responses: {
                /** @description The rule as stored */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Rule"];
                    };
                };
                /** @description Malformed body, unknown field, or invalid field (code invalid): neither or both of tool and template, an args_schema that does not compile, args not an object, expires_at missing, passed or beyond the longest a rule may last; errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not an admin (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body did not arrive within the body read timeout (request_timeout). */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Body over the limit, refused before parsing (too_large). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a standing approval rule
         * @description Stops the rule at once, on every node: the next inquiry it would have covered waits for a person. Admins revoke any rule, people those they authored. Event rule.revoked.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The rule, revoked */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Rule"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such rule, or one the caller neither authored nor may administer (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The rule is already revoked (conflict): the message says when and by whom. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The standing approval the caller may make while answering an inquiry
         * @description When the caller approved the inquiry's tool (or template), for the same asking agent with identical arguments, the last --rule-suggest-after times (default 5; 0 turns suggestions off), with no rejection by anyone among those answers, and no active rule covers it yet, the suggestion is the rule to make by approving with allow_for and allow_args; otherwise null. Only for a pending approval the caller may answer. See docs/rules.md.
         */
        get: {
            parameters: {
                query: {
                    /** @description The id of the inquiry being answered. */
                    inquiry: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The suggestion, or null */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            suggestion: components["schemas"]["RuleSuggestion"] | null;
                        };
                    };
                };
                /** @description inquiry is missing or not an inquiry id, or an unknown query parameter (invalid). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such inquiry, or one the caller may not see (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inquiries/{id}/precedents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How the same question was answered before
         * @description Answer memory: at most the last five answered inquiries that ask the same question as this one (made from the same template, or about the same tool with arguments of the same top-level member names), newest first, with who answered, when, the answer or decision and the comment. Only inquiries the caller may see count. An inquiry the caller may not see is 404; an unknown query parameter is 400.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Precedents */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Precedents"];
                    };
                };
                /** @description Malformed request or invalid field (code invalid); errors lists every problem with its JSON path. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No or bad credentials (unauthorized). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not allowed (forbidden). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Unknown, or not visible to the caller (not_found). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests (rate_limited): either too many failed authentications from this client address (the credentials were not checked), or the caller's key is over its rate limit (--rate-limit). Retry-After says in how many whole seconds to try again. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Internal error; no internals are shown. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details with a stable code. */
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @enum {string} */
            code: "invalid" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "too_large" | "invalid_response" | "rate_limited" | "internal" | "unavailable" | "method_not_allowed" | "request_timeout" | "unsupported_media_type" | "upgrade_required";
            errors?: components["schemas"]["FieldError"][];
            inquiry?: components["schemas"]["Inquiry"];
        };
        FieldError: {
            /** @description JSON pointer into the request or the answer; empty for the whole value. */
            path: string;
            message: string;
        };
        Option: {
            value: string;
            label?: string;
            description?: string;
        };
        ToolCall: {
            id: string;
            name: string;
            /** @description The call's arguments as the model gave them: any JSON, nested at most 64 deep, numbers as for context, no member name twice. */
            arguments?: unknown;
            /** @description The JSON Schema (2020-12) of the tool's parameters, as the model was given it: arguments a person edits (decision edit) must fit it. Bounded as response_schema is (64 KiB, nested at most 32 deep, compiled at creation, no external $ref). With an approval, it makes the inquiry one answered with decisions (allowed_decisions, default approve and reject). */
            parameters_schema?: Record<string, unknown>;
        };
        ToolResult: {
            tool_call_id: string;
            /** @description JSON text of the response, or a sentence saying it timed out or was cancelled. For an approval of a tool call with decisions: sentences a model follows, saying whether to run the tool and with which arguments (as JSON), or what the person said instead. */
            content: string;
            /** @description The person's decision, for an approval with decisions; absent when nobody decided (deadline without fallback, cancellation). */
            decision?: components["schemas"]["ToolDecision"];
            /** @description Present for an approval with decisions: whether to run the tool now (approve, edit). */
            run?: boolean;
            /** @description When run is true: the arguments to run the tool with (the proposed ones, or the person's edit). */
            arguments?: unknown;
            /** @description The person's message: why not (reject), or the answer instead of the tool's result (respond). */
            message?: string;
        };
        /** @description An inquiry as Nova's Interaction: thread (and task) is its session, origin_name its origin (else its asker); status PENDING, ANSWERED (an answer, or a fallback value at the deadline) or CANCELED (cancelled, or timed out without an answer). */
        NovaInteraction: {
            id: number;
            task: string;
            thread: string;
            thread_id: string;
            agent: string;
            origin_name: string;
            question: string;
            /** @description The inquiry's response_schema, or null. */
            schema: unknown;
            /** @description The answer, or null. */
            answer: unknown;
            /** @enum {string} */
            status: "PENDING" | "ANSWERED" | "CANCELED";
            cancellable_by_responder: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            expires_at: string | null;
        };
        Inquiry: {
            id: number;
            /** @enum {string} */
            status: "pending" | "responded" | "timeout" | "cancelled";
            prompt: string;
            /** @enum {string} */
            request_type: "approval" | "clarification" | "selection" | "input";
            /** @description JSON Schema (2020-12) the answer satisfies; null when options are given. For an approval of a tool call with decisions: generated from allowed_decisions (see ToolDecisionAnswer), with the tool's parameters schema as the schema of args. */
            response_schema?: unknown;
            options?: components["schemas"]["Option"][] | null;
            multiple?: boolean;
            /** @description Present when a selection asked without options took them from its context: the JSON Pointer of the context's list ("/venues"), one option per entry in order. A string, number or boolean names itself; an object is named by its name, title or label (the first that is a string), else by its first string member. */
            options_from?: string;
            context?: unknown;
            session?: string;
            origin?: string;
            created_by: string;
            assigned_to?: string[];
            channel_hint?: string;
            confidence?: number | null;
            /** Format: date-time */
            timeout_at?: string | null;
            /** @enum {string} */
            fallback_policy?: "fail" | "complete_with_fallback" | "use_default_and_continue";
            fallback_value?: unknown;
            exclusive?: boolean;
            /** @description Whether a person who may answer may decline instead (true unless the agent sent false). */
            cancellable_by_responder?: boolean;
            /** @description How often the recipients are reminded while the inquiry is pending, written back in hours, minutes and seconds ("1h30m"). */
            remind_every?: string | null;
            /**
             * Format: date-time
             * @description When the next reminder goes out; null when none will before the deadline or the inquiry is final.
             */
            next_reminder_at?: string | null;
            reminders_sent?: number;
            /** @description How long after creation escalate_to are added as assignees: the first step of the escalation ladder. */
            escalate_after?: string | null;
            /** @description Who is added on escalation; null for inquiries asked before escalation existed. */
            escalate_to?: string[] | null;
            /** Format: date-time */
            escalated_at?: string | null;
            /** @description The escalation ladder and where the inquiry stands on it; absent when it does not escalate. escalate_after, escalate_to and escalated_at are its first step's. */
            escalation?: components["schemas"]["Escalation"];
            /**
             * @description normal or urgent (see InquiryRequest); "" for inquiries stored before priorities, which are normal.
             * @enum {string}
             */
            priority?: "normal" | "urgent" | "";
            tool_call?: null | components["schemas"]["ToolCall"];
            tool_result?: null | components["schemas"]["ToolResult"];
            /** @description Present when set: where this inquiry's events are delivered. */
            callback_url?: string;
            /** @description Present when the inquiry was asked with a dedup key, or with dedup (then the key hitl made: template:NAME:SHA-256 of the vars, or tool:NAME:SHA-256 of the arguments). See docs/dedup.md. */
            dedup_key?: string;
            /**
             * Format: int64
             * @description Present when this inquiry joined an equal pending one: the id of the inquiry people see and answer. It ends with that one's answer (its own events, callback and receipt); it cannot be answered itself (409). When that one ends without an answer, the oldest joined inquiry takes its place (inquiry.promoted) and loses joined.
             */
            joined?: number;
            response?: unknown;
            /** @description Present for an answer to options taken from the context (options_from): the entry of that list the answer names, as the agent gave it (the venue object for "Venue B"); a list of entries for a multiple selection. */
            chosen?: unknown;
            fallback_applied?: boolean;
            responded_by?: string | null;
            /** Format: date-time */
            responded_at?: string | null;
            comment?: string | null;
            cancel_reason?: string | null;
            /** @description The person who declined to answer (POST /v1/inquiries/{id}/decline, Nova's cancel, the inbox's Decline): cancel_reason is theirs, and the inquiry's session failed with it. Absent when the inquiry was not declined. */
            declined_by?: string;
            metadata?: {
                [key: string]: string;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description Narrows the channels that notifications about the inquiry go by (webpush: the devices on which people turned on notifications); empty: every channel its recipients have. channel_hint "email" or "slack" narrows too. */
            notify?: ("email" | "slack" | "webpush")[];
            /** @description The workflow execution that asked (set by POST /api/v1/executions/{execution_id}/result, or given on create); absent when none. */
            execution?: string;
            /**
             * Format: date-time
             * @description When the asking agent first received the final state (event inquiry.resumed); absent before.
             */
            resumed_at?: string;
            /** @description The integer identity of responded_by. */
            responded_by_id?: number;
            /** @description The relay (a key with the relay or admin role) that carried responded_by's answer, or the maker of the answer link it came through; absent when the person answered themselves or through a link the server sent them. Shown as "alice@example.com via ops-bot". */
            relayed_by?: string;
            /** @description The away person responded_by answered for, or declined_by declined for, as their delegate ("bob for alice"); absent when they answered or declined as themself. */
            on_behalf_of?: string;
            quorum?: components["schemas"]["Quorum"];
            /** @description A chain of approvals; assigned_to is the current step's. */
            steps?: components["schemas"]["ApprovalStep"][];
            /** @description The chain's step that votes now (1, 2, ...). */
            current_step?: number;
            /** @description The votes cast so far (quorum or chain). Once decided, response is {approved, votes}. */
            votes?: components["schemas"]["Vote"][];
            /**
             * Format: date-time
             * @description A chain's own deadline; timeout_at is the sooner of it and the current step's.
             */
            chain_timeout_at?: string | null;
            /** @description Separation of duties: the principal that asked may not answer or vote. */
            exclude_requester?: boolean;
            /** @description Separation of duties: the owner of the inquiry's session may not answer or vote. */
            exclude_session_owner?: boolean;
            /** @description Who is answering it now: others get 409 until the claim is released, expires or its holder answers. */
            claim?: components["schemas"]["InquiryClaim"] | null;
            /** @description The group a pool:NAME assignment picked the assignee from. */
            pool?: string;
            /** @description The template the inquiry was made from; absent when none. */
            template?: string;
            /** @description Present for an approval of a tool call answered with decisions: those a person may take. The answers are ToolDecisionAnswer objects. */
            allowed_decisions?: components["schemas"]["ToolDecision"][];
            /** @description The W3C Trace Context traceparent of the request that created the inquiry (hitl's span of it when hitl exports spans); absent when that request had none or an invalid one. Its webhooks, resume callbacks and broker messages carry this trace on in their traceparent header, each with a parent-id of its own. */
            readonly traceparent?: string;
            /** @description The W3C tracestate that came with traceparent, passed on beside it; absent when none. */
            readonly tracestate?: string;
            /** @description The signed receipt of the decision that ended the inquiry: a compact JWS (EdDSA, typ hitl-receipt+jwt) whose claims say who decided what, the hash of the approved tool-call arguments and of the answer, and until when it holds. Set when an answer, a quorum's or chain's verdict, a standing rule or the deadline's fallback value decided; absent otherwise (pending, cancelled, declined, timed out without fallback). Verify it offline against /.well-known/jwks.json (docs/receipts.md). */
            receipt?: string;
            /** @description How long the inquiry's receipt holds, as the request gave it; absent: the server's --receipt-validity. */
            receipt_valid_for?: string;
            /** @description The standing approval rule that answered the inquiry when it was created (responded_by is then rule:<id>); absent otherwise. */
            rule?: {
                id: string;
                author: string;
            };
        };
        InquiryRequest: {
            /** @description Required unless template is given; with a template, a prompt given here replaces the template's, taken as it is (not rendered). */
            prompt?: string;
            /**
             * @description Default input, or selection when options are given. Without a schema or options, approval answers {approved: boolean, comment?: string} and the other types a non-empty string.
             * @default input
             * @enum {string}
             */
            request_type?: "approval" | "clarification" | "selection" | "input";
            /** @description Compiled at creation; external $refs are never loaded. At most 64 KiB, nested at most 32 deep, numbers as for context; format is asserted (email, date-time, date, uri, uuid, ...); a schema that would make validation too costly (more than 10,000 checks of one value, counting what $ref, allOf, anyOf and the like apply) is refused. */
            response_schema?: Record<string, unknown> | boolean;
            /** @description The choices of a selection. A selection without options or response_schema takes them from its context when the context is an object with exactly one list of 2 to 50 entries, each a string, number or boolean (its own name) or an object named by its name, title or label, else its first string member; the answer is a name, and the inquiry's chosen the entry it names (options_from says which list). Entries that cannot be named, or two named alike, are 400 at their place in the context. */
            options?: (string | components["schemas"]["Option"])[];
            multiple?: boolean;
            /** @description Any JSON, at most 256 KiB by default, nested at most 64 deep; numbers have at most 100 digits and an exponent within ±400; no member name twice. */
            context?: unknown;
            metadata?: {
                [key: string]: string;
            };
            session?: string;
            origin?: string;
            /** @description Principal names, group:NAME entries and integer identities (resolved to the name that holds them; an unknown one is 400). A single name or integer stands for a list of one. Empty means any responder. pool:NAME (alone) picks one member of group NAME when the inquiry is created: the one with the fewest pending inquiries assigned to them, ties to the least recently assigned (inquiry.assigned event). */
            assigned_to?: (string | number)[] | (string | number);
            channel_hint?: string;
            confidence?: number;
            timeout_seconds?: number;
            /** Format: date-time */
            timeout_at?: string;
            /**
             * @description What a timeout does: fail (the inquiry times out with no answer, and the session it is asked in fails with "question N timed out"), or answers with fallback_value. Default: the server's --default-fallback-policy, fail unless set.
             * @default fail
             * @enum {string}
             */
            fallback_policy?: "fail" | "complete_with_fallback" | "use_default_and_continue";
            /** @description Must satisfy the schema or options; required with a policy other than fail, and ignored under fail (as OpenIntent's SDK ignores it): the inquiry then has none. Nested at most 64 deep, numbers as for context, no member name twice. */
            fallback_value?: unknown;
            tool_call?: components["schemas"]["ToolCall"];
            /** @description Resume callback: this inquiry's events are POSTed here, signed with the callback secret (GET /v1/callback-secret); the CloudEvent's data is {"inquiry": ..., "session": ...} with the session's saved state. http(s); private addresses refused unless --webhook-allow-private. */
            callback_url?: string;
            /** @description One question, many askers: while a pending inquiry with this key asks the same question (prompt, request type, schema or options, assignees, tool call), the new inquiry joins it (joined) instead of asking people again, and ends with its answer. The same key with another question is 409. At most 200 characters, no control characters, no leading or trailing spaces. Keys are shared by every asker. See docs/dedup.md. */
            dedup_key?: string;
            /** @description Join an equal pending inquiry without a dedup_key: one made from the same template with the same vars, or about the same tool call (name and arguments, compared as JSON values). 400 for an inquiry with neither. Off by default, so that existing clients keep their own questions. */
            dedup?: boolean;
            /** @description At most one pending inquiry in the session. */
            exclusive?: boolean;
            /** @description Lets a person who may answer decline instead (POST /v1/inquiries/{id}/decline, Nova's POST /api/interactions/{id}/cancel, the inbox's Decline button): the inquiry is cancelled and its session fails with their reason. Default true: leave it out to let them; false keeps the inquiry to answers. */
            cancellable_by_responder?: boolean;
            /** @description Narrows the channels that notifications about the inquiry go by (webpush: the devices on which people turned on notifications); empty: every channel its recipients have. channel_hint "email" or "slack" narrows too. */
            notify?: ("email" | "slack" | "webpush")[];
            /** @description Remind the recipients at this interval while the inquiry is pending (event inquiry.reminded): at least 1m, at most 30 days. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            remind_every?: string;
            /** @description After this long without an answer, add escalate_to as assignees (event inquiry.escalated); before the deadline, if there is one. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            escalate_after?: string;
            /** @description Who is added on escalation: principal names, group:NAME entries and integer identities; required with escalate_after. An unassigned inquiry stays open to every responder. */
            escalate_to?: (string | number)[] | (string | number);
            /**
             * @description An escalation ladder: up to 10 steps in increasing after, each adding its assignees and notifying them on its channels; the deadline's fallback ends it (event inquiry.escalated with the step's number, once per step). Not with escalate_after and escalate_to (a ladder of one step). Steps of an inquiry that is not urgent wait for the working hours of the people they add.
             * @example [
             *       {
             *         "after": "1h",
             *         "assigned_to": [
             *           "bob"
             *         ]
             *       },
             *       {
             *         "after": "4h",
             *         "assigned_to": [
             *           "group:leads"
             *         ],
             *         "channels": [
             *           "slack"
             *         ]
             *       }
             *     ]
             */
            escalate?: components["schemas"]["EscalationStepRequest"][];
            /**
             * @description normal: a reminder or escalation step that falls outside the working hours of every person it reaches waits for the first of them to start work; urgent: they come when due, at any hour. Deadlines never wait.
             * @default normal
             * @enum {string}
             */
            priority?: "normal" | "urgent";
            /** @description The workflow execution that asks: 1 to 200 characters of A-Z a-z 0-9 . _ : -; filter with ?execution=. */
            execution?: string;
            /** @description Several approvals (request_type approval, default schema): each distinct assignee (a group stands for its members) votes once with {approved, comment}; a vote answers 200 with the inquiry still pending and its votes; the inquiry becomes responded, response {approved, votes}, when required approvals are in or the reject rule trips. Not with steps or a pool. */
            quorum?: components["schemas"]["Quorum"];
            /** @description A chain: each step's people are asked (notified, and see it in Assigned to me) only once the step before approved; any rejection ends the chain. Give assigned_to in the steps, not beside them. */
            steps?: components["schemas"]["ApprovalStep"][];
            /** @description The principal that asks may not answer or vote (default true with quorum or steps, else false). */
            exclude_requester?: boolean;
            /** @description The owner of the session may not answer or vote (default true with quorum or steps, else false). */
            exclude_session_owner?: boolean;
            /** @description Ask with a stored template (PUT /v1/templates/{name}): its fields make the inquiry and every field this request gives (not empty, zero or false) replaces the template's; fields that describe one thing are replaced together (timeout_seconds and timeout_at; response_schema, options and multiple; escalate_after and escalate_to; fallback_policy and fallback_value; quorum and steps). Without a prompt here, the template's prompt is rendered with vars. An unknown template is 400 (unknown template "x") at /template. The inquiry records the template's name in template. */
            template?: string;
            /** @description The values of the template's {{.var}} placeholders; only with template. Checked against the template's vars_schema (400, every problem with its path under /vars). A var the prompt writes that vars do not give is 400 naming it (template deploy-approval uses {{.version}}, which vars does not give). A string is written as it is, any other value as its JSON; {{if .var}} treats an absent var, null, false, 0, "", [] and {} as false. */
            vars?: Record<string, unknown>;
            /** @description Only for an approval with a tool_call: what a person may decide about the call, a subset of approve, edit, reject, respond. Default approve and reject when tool_call.parameters_schema is given; without either, the approval is answered {approved, comment} as every approval. edit needs tool_call.parameters_schema. Not with response_schema or options. */
            allowed_decisions?: components["schemas"]["ToolDecision"][];
            /** @description How long the receipt of the decision holds (its exp is the decision's time plus this): a duration like "30m" or "2h", more than 0 and at most the server's --receipt-max-validity (default 30 days). Absent: the server's --receipt-validity (default 1h). */
            receipt_valid_for?: string;
        };
        ResponseRequest: {
            /** @description Any JSON that satisfies the inquiry, null included when the schema allows it; nested at most 64 deep, numbers as for context. An answer too large to check against its schema in about a second is refused (422). */
            response: unknown;
            comment?: string;
            /** @description The away person the caller answers for as their delegate (see PUT /v1/people/{name}/absence). Left out: as the caller, or, when the inquiry is not assigned to the caller but to someone away whose delegate the caller is, for that person. */
            on_behalf_of?: string;
            /** @description With an approval: also make a standing approval rule for this long ("8h", at most --rule-max-validity), authored by the one who answers, covering the inquiry's tool (or template), asking agent and arguments (see allow_args). Not on a quorum's or chain's vote. See docs/rules.md. */
            allow_for?: string;
            /**
             * @description What arguments the rule of allow_for approves: exact (the default), the same values only; any, any arguments.
             * @enum {string}
             */
            allow_args?: "exact" | "any";
        };
        Session: {
            key: string;
            /** @enum {string} */
            status: "running" | "awaiting_input" | "completed" | "failed" | "cancelled";
            agent?: string;
            created_by?: string;
            state?: unknown;
            result?: unknown;
            error?: string | null;
            callback_url?: string | null;
            metadata?: {
                [key: string]: string;
            } | null;
            pending_inquiries?: number;
            inquiries_asked?: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            completed_at?: string | null;
            /**
             * @description Present when the session's callback takes the async agent questions format.
             * @enum {string}
             */
            callback_format?: "agent-questions";
        };
        SessionRequest: {
            agent?: string;
            /** @description The agent's serialized state, at most 1 MiB by default, nested at most 64 deep; numbers have at most 100 digits and an exponent within ±400; no member name twice. */
            state?: unknown;
            /** @description Resume callback: the session's events and those of its inquiries are POSTed here, like an inquiry's callback_url. */
            callback_url?: string;
            metadata?: {
                [key: string]: string;
            };
            /**
             * @description The shape of the session's callbacks: cloudevents (the default: every event as a CloudEvent with the resume data), or agent-questions: each new question and its answer only, as {"event": "question_pending", "session_id", "agent_name", "question": {"id", "text", "options", "context"}, "answer_url"} and {"event": "question_answered", "session_id", "agent_name", "question", "answer", "answered_by" (null for a default answer), "answered_at", "default_answer"} with the header X-Agent-Session, signed like every callback. agent-questions needs a callback_url.
             * @enum {string}
             */
            callback_format?: "cloudevents" | "agent-questions";
        };
        /** @description One entry of the append-only log. key.* events (the audit trail of API keys, data without the token) are visible to admins only. */
        Event: {
            seq: number;
            id: string;
            /** @enum {string} */
            type: "inquiry.created" | "inquiry.responded" | "inquiry.timeout" | "inquiry.cancelled" | "inquiry.reminded" | "inquiry.escalated" | "inquiry.voted" | "inquiry.step_completed" | "inquiry.claimed" | "inquiry.released" | "inquiry.assigned" | "inquiry.promoted" | "inquiry.rejoined" | "inquiry.resumed" | "session.updated" | "session.completed" | "session.failed" | "session.cancelled" | "session.logged" | "intent.suspended" | "intent.resumed" | "key.created" | "key.updated" | "key.revoked" | "webhook.created" | "webhook.deleted" | "audit.restored";
            /** Format: date-time */
            time: string;
            inquiry_id?: number | null;
            session?: string;
            actor: string;
            /** @description The inquiry, session or key (without its token) after the change. inquiry.reminded adds "reminder" (its number, from 1) to the inquiry; inquiry.escalated adds "added" (the step's entries that were not assigned already), "step" (the ladder's step that fired, from 1) and "channels" (those it notifies by; empty: the people's own). inquiry.voted adds "vote"; inquiry.step_completed adds "step" (the number of the step completed) and "added" (the next step's assignees); inquiry.claimed shows the claim, inquiry.released adds "claim" (the one that ended) and "reason" (released, expired or broken); inquiry.assigned adds "pool" and "assigned" (the person a pool picked). session.logged (an entry the agent logged, which changes nothing) adds "entry": {"event_type", "payload"}. */
            data: unknown;
        };
        Principal: {
            name: string;
            roles: ("admin" | "agent" | "responder" | "relay")[];
            groups: string[] | null;
            /** @description The principal's stable integer identity: one per name, given once (when its first key or person is created), kept across key rotation and nodes; 0 when the name has none yet. Workflow engines (Attune) assign by it. */
            identity_id: number;
            /** @description The key the caller authenticated with (for an inbox sign-in, the key it signed in with): which of the name's keys this is, the one to revoke. */
            key_id: string;
        };
        Key: {
            id: string;
            name: string;
            roles: string[];
            groups: string[];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at?: string;
            /** @description Only in the answer to POST /v1/keys. */
            token?: string;
            /** @description The principal's stable integer identity: one per name, given once (when its first key or person is created), kept across key rotation and nodes; 0 when the name has none yet. Workflow engines (Attune) assign by it. */
            identity_id: number;
        };
        KeyRequest: {
            name: string;
            roles: ("admin" | "agent" | "responder" | "relay")[];
            groups?: string[];
        };
        Signals: {
            confidence: number;
            risk: number;
            reversibility: number;
        };
        Decision: {
            /** @enum {string} */
            mode: "autonomous" | "request_input" | "require_input" | "defer";
            should_ask: boolean;
            rationale: string;
        };
        Status: {
            status: string;
        };
        Webhook: {
            id: string;
            url: string;
            events: ("inquiry.created" | "inquiry.responded" | "inquiry.timeout" | "inquiry.cancelled" | "inquiry.reminded" | "inquiry.escalated" | "inquiry.voted" | "inquiry.step_completed" | "inquiry.claimed" | "inquiry.released" | "inquiry.assigned" | "inquiry.resumed" | "session.updated" | "session.completed" | "session.failed" | "session.cancelled" | "intent.suspended" | "intent.resumed")[];
            description: string;
            /** @description The signing secret (whsec_...): only in the answer to POST /v1/webhooks. */
            secret?: string;
            created_by: string;
            /** Format: date-time */
            created_at: string;
        };
        WebhookRequest: {
            /** @description http(s); loopback, private, link-local and metadata addresses are refused unless the server runs with --webhook-allow-private. */
            url: string;
            /** @description The event types to receive; "*" for all of them. */
            events: ("inquiry.created" | "inquiry.responded" | "inquiry.timeout" | "inquiry.cancelled" | "inquiry.reminded" | "inquiry.escalated" | "inquiry.voted" | "inquiry.step_completed" | "inquiry.claimed" | "inquiry.released" | "inquiry.assigned" | "inquiry.resumed" | "session.updated" | "session.completed" | "session.failed" | "session.cancelled" | "intent.suspended" | "intent.resumed" | "*")[];
            description?: string;
        };
        Delivery: {
            /** @description The webhook-id header of every attempt: the same across retries. */
            id: string;
            /** @enum {string} */
            kind: "webhook" | "inquiry_callback" | "session_callback" | "notification";
            webhook_id?: string;
            url: string;
            event_seq: number;
            event_id: string;
            event_type: string;
            inquiry_id: number | null;
            session?: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            /** Format: date-time */
            next_attempt_at: string | null;
            /** Format: date-time */
            last_attempt_at: string | null;
            /** @description The HTTP status of the last attempt's answer. */
            last_status?: number;
            /** @description Why the last attempt got no answer (timeout, refused address, ...). */
            last_error?: string;
            /** @description The first 4 KiB of the last answer's body. */
            last_response?: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at: string | null;
            /**
             * @description Notifications: the channel.
             * @enum {string}
             */
            channel?: "email" | "slack" | "chat_webhook";
            /** @description Notifications: whom it is for: a person, group:NAME, default (the server's default destinations), or a chat webhook's ID. */
            recipient?: string;
            /** @description Notifications: where it went (an email address, a Slack ID, a chat webhook's ID: the chat webhook's URL, which carries the chat service's token, is kept with the chat webhook only and looked up when the message is posted); admins only. */
            address?: string;
            /**
             * @description Notifications: why it was sent.
             * @enum {string}
             */
            reason?: "created" | "reminder" | "escalation" | "resolved";
        };
        ToolDefinitions: {
            name: string;
            description: string;
            /** @description The JSON Schema of the tool's arguments. */
            input_schema: Record<string, unknown>;
            /** @description An entry of tools in OpenAI Chat Completions: {"type":"function","function":{name, description, parameters}}. */
            openai: Record<string, unknown>;
            /** @description An entry of tools in the Anthropic Messages API: {name, description, input_schema}. */
            anthropic: Record<string, unknown>;
        };
        AnswerLinkRequest: {
            /** @description Who answers through the link; recorded as responded_by. */
            for: string;
            /** @description Optional: groups the person must hold by hitl's records (the groups of their keys); a group they do not hold is 400. The link always carries the recorded groups, never these. */
            groups?: string[];
            /** @description How long the link works; default 7 days. */
            ttl_seconds?: number;
        };
        AnswerLink: {
            token: string;
            /**
             * Format: uri
             * @description The page: the public URL (--public-url) or the request's host, then /a/{token}.
             */
            url: string;
            inquiry_id: number;
            for: string;
            /** @description Who made the link for someone else: recorded as relayed_by on the answer. Absent when the caller made it for themselves. */
            relayed_by?: string;
            /** Format: date-time */
            expires_at: string;
        };
        Person: {
            name: string;
            display_name: string;
            email: string;
            slack_user_id: string;
            channels: ("email" | "slack")[];
            /**
             * @description The person's IANA time zone, like Europe/Berlin; "" is UTC. Their working hours are in it, and their messages and inbox pages show times in it.
             * @example Europe/Berlin
             */
            time_zone: string;
            working_hours?: components["schemas"]["WorkingHours"];
            /** Format: date-time */
            updated_at: string;
            /** @description The person's absence that has not ended yet, when there is one. */
            absence?: components["schemas"]["Absence"];
        };
        PersonRequest: {
            display_name?: string;
            /** @description One plain address, like ada@example.com. */
            email?: string;
            slack_user_id?: string;
            channels?: ("email" | "slack")[];
            /**
             * @description An IANA time zone name, like Europe/Berlin (an unknown one is refused); left out: UTC.
             * @example Europe/Berlin
             */
            time_zone?: string;
            working_hours?: components["schemas"]["WorkingHours"];
        };
        Group: {
            name: string;
            email: string;
            slack_channel: string;
            /** Format: date-time */
            updated_at: string;
        };
        GroupRequest: {
            email?: string;
            slack_channel?: string;
        };
        ChatWebhook: {
            id: string;
            /** @enum {string} */
            kind: "slack" | "teams" | "google_chat" | "discord";
            url: string;
            events: ("inquiry.created" | "inquiry.reminded" | "inquiry.escalated" | "inquiry.step_completed" | "inquiry.responded" | "inquiry.timeout" | "inquiry.cancelled")[];
            created_by: string;
            /** Format: date-time */
            created_at: string;
        };
        ChatWebhookRequest: {
            /** @enum {string} */
            kind: "slack" | "teams" | "google_chat" | "discord";
            /** @description The room's incoming webhook URL (https). */
            url: string;
            /** @description Default: ["inquiry.created"]. */
            events?: ("inquiry.created" | "inquiry.reminded" | "inquiry.escalated" | "inquiry.step_completed" | "inquiry.responded" | "inquiry.timeout" | "inquiry.cancelled" | "*")[];
        };
        /** @description An inquiry in Attune's shape. */
        AttuneInquiry: {
            id: number;
            /** @description A number when the execution id is one, else the string; null when none. */
            execution: number | string | null;
            prompt: string;
            response_schema: unknown;
            /** @description The integer identity of the first principal assigned (not a group); null when none has one. */
            assigned_to: number | null;
            /** @enum {string} */
            status: "pending" | "responded" | "timeout" | "cancelled";
            /** @description The answer; null until there is one. */
            response: unknown;
            has_response: boolean;
            /** Format: date-time */
            timeout_at: string | null;
            /** Format: date-time */
            responded_at: string | null;
            /** Format: date-time */
            created: string;
            /** Format: date-time */
            updated: string;
        };
        /** @description OpenIntent's SuspensionRecord (RFC-0025): an inquiry asked in the intent's session. */
        Suspension: {
            /** @description The id the SDK gave the suspension it wrote through POST .../state (kept as the inquiry's metadata openintent_suspension_id), else the inquiry's id; suspend/respond takes either. */
            id: string | number;
            question: string;
            context: unknown;
            channel_hint: string | null;
            timeout_seconds: number | null;
            /** @enum {string} */
            fallback_policy: "fail" | "complete_with_fallback" | "use_default_and_continue";
            fallback_value: unknown;
            /** @enum {string} */
            resolution: "pending" | "responded" | "expired" | "cancelled";
            /** @description The same as response, for hitl's earlier clients. */
            value: unknown;
            responded_by: string | null;
            relayed_by?: string;
            /** @description As created_at of Intent. */
            responded_at: string | null;
            fallback_applied: boolean;
            /**
             * @description choice when the inquiry has options (then choices), else text.
             * @enum {string}
             */
            response_type: "choice" | "text";
            choices?: {
                value: string;
                label: string;
                description?: string;
                style?: string;
            }[];
            /** @description When it was asked, as created_at of Intent. */
            suspended_at: string;
            /** @description Its deadline, when it has one. */
            expires_at?: string;
            /** @description The answer (what the SDK reads), or the fallback value applied at the deadline; null while pending. */
            response: unknown;
        };
        /** @description A session under OpenIntent's names (RFC-0001, RFC-0025): every field the OpenIntent SDK's Intent.from_dict reads. */
        Intent: {
            /** @description The session's key. */
            id: string;
            /** @description The title it was created with (the session's metadata title), else its key. */
            title: string;
            /** @description The session's metadata description, else empty. */
            description: string;
            /**
             * @description running is active, awaiting_input suspended_awaiting_input; a failed or cancelled session is abandoned (OpenIntent calls every end but completion so).
             * @enum {string}
             */
            status: "active" | "suspended_awaiting_input" | "completed" | "abandoned";
            /** @description The session's state (an object; any other state is under "value"; absent for responders), with _suspension: the latest inquiry of the session. */
            state: {
                _suspension?: components["schemas"]["Suspension"];
            };
            /** @description How many times the session has changed: each of its events but the entries of its log (a change of its state or status, a question asked in it, an answer). If-Match compares it. */
            version: number;
            /** @description The principal whose key created the session. */
            created_by: string;
            parent_intent_id: null;
            depends_on: unknown[];
            constraints: Record<string, unknown>;
            confidence: number;
            governance_policy: null;
            /** @description As Python's datetime.fromisoformat reads it: 2026-01-02T15:04:05.000000+00:00. */
            created_at: string;
            /** @description As created_at. */
            updated_at: string;
            /** @description Why an abandoned intent ended, when it says (the session's error); absent for responders. */
            abandonment_reason?: string;
        };
        SuspensionRespond: {
            /** @description The suspension's id (state._suspension.id), as a number or a string. */
            suspension_id: string | number;
            /** @description The answer; checked as POST /v1/inquiries/{id}/respond checks response. */
            value: unknown;
            /** @description Who answered. Another name than the caller's needs the relay or admin role (else 403), and must be a person hitl knows (a key of that name, or a person in /v1/people) who may answer the suspension by hitl's own records (their assignment or the groups of their keys; else 403 with the reason, or 404 to a relay that cannot see the suspension); the intent's asker may never relay. The relay acts as the person, so it need not be assigned itself. The answer is recorded as that person's, relayed by the caller; separation of duties holds the caller as it holds the person. */
            responded_by?: string;
        };
        SuspensionResolved: {
            intent_id: string;
            /** @description As the request wrote it. */
            suspension_id: string | number;
            /** @enum {string} */
            resolution: "responded";
            value: unknown;
            responded_by: string;
            relayed_by?: string;
            /** Format: date-time */
            responded_at: string;
        };
        AgentQuestion: {
            /** @description The inquiry's id, as a string */
            id: string;
            session_id: string;
            agent_name: string;
            /** @description The prompt */
            question: string;
            /** @description The options' values; [] when the question has none */
            options: string[];
            /** @description The inquiry's context; {} when it has none */
            context: unknown;
            /** Format: date-time */
            asked_at: string;
            /** @enum {string} */
            status: "pending" | "responded" | "timeout" | "cancelled";
        };
        AgentSession: {
            id: string;
            agent_name: string;
            /**
             * @description awaiting_input is pending_input; a cancelled session is failed
             * @enum {string}
             */
            status: "running" | "pending_input" | "completed" | "failed";
            result: unknown;
            questions_asked: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at: string | null;
        };
        Quorum: {
            /** @description How many distinct people must approve. */
            required: number;
            /** @description When rejections end the vote: "any" (the first one; the default), "majority" (more than half of the people who may vote: the named assignees and the members of the groups, i.e. the principals whose keys carry the group; when that is not known, as many rejections as approvals required), or a number of rejections. The vote also ends, rejected, when too few people are left to reach required. */
            reject?: ("any" | "majority") | number;
        };
        ApprovalStep: {
            /** @description Names, group:NAME entries and integer identities who approve this step; an identity is stored as the name that holds it (an unknown one is 400). A single one stands for a list of one. */
            assigned_to: (string | number)[] | (string | number);
            /** @default 1 */
            required?: number;
            /** @description The step's own deadline, from when it starts; when it passes, the inquiry times out with its fallback policy. */
            timeout_seconds?: number;
            /** Format: date-time */
            readonly started_at?: string | null;
            /** Format: date-time */
            readonly timeout_at?: string | null;
            /** Format: date-time */
            readonly completed_at?: string | null;
        };
        Vote: {
            by: string;
            approved: boolean;
            comment?: string;
            /** Format: date-time */
            at: string;
            /** @description The chain's step the vote was cast in. */
            step?: number;
            relayed_by?: string;
            /** @description The away person the voter voted for, as their delegate: the vote counts once, for both. */
            on_behalf_of?: string;
            /** @description The standing approval the voter asked for with their approval (a duration like 8h): when the quorum approves, those who asked make one rule together (docs/rules.md). */
            allow_for?: string;
            /**
             * @description The arguments that rule approves: exact (the default) or any.
             * @enum {string}
             */
            allow_args?: "exact" | "any";
        };
        InquiryClaim: {
            by: string;
            /** Format: date-time */
            at: string;
            /** Format: date-time */
            expires_at: string;
        };
        /** @description Any field of an InquiryRequest but those of one request (template, vars, session, execution, timeout_at: 400), each checked as a create checks it, plus vars_schema. */
        TemplateRequest: {
            /** @description Go text/template syntax without functions: text, {{.var}} (or {{.var.field}} into an object), {{if .var}}…{{else}}…{{end}}, comments and {{- -}} trimming. Anything else ({{printf …}}, pipelines, {{range}}, {{with}}, {{define}}, {{template}}, variables, {{.}}) is 400. Rendered with the request's vars when asking; the rendered prompt is checked as any (1..8000 characters). */
            prompt: string;
            /**
             * @description Default input, or selection when options are given. Without a schema or options, approval answers {approved: boolean, comment?: string} and the other types a non-empty string.
             * @default input
             * @enum {string}
             */
            request_type?: "approval" | "clarification" | "selection" | "input";
            /** @description Compiled at creation; external $refs are never loaded. At most 64 KiB, nested at most 32 deep, numbers as for context; format is asserted (email, date-time, date, uri, uuid, ...); a schema that would make validation too costly (more than 10,000 checks of one value, counting what $ref, allOf, anyOf and the like apply) is refused. */
            response_schema?: Record<string, unknown> | boolean;
            options?: (string | components["schemas"]["Option"])[];
            multiple?: boolean;
            /** @description Any JSON, at most 256 KiB by default, nested at most 64 deep; numbers have at most 100 digits and an exponent within ±400; no member name twice. */
            context?: unknown;
            metadata?: {
                [key: string]: string;
            };
            origin?: string;
            /** @description Principal names, group:NAME entries and integer identities (resolved to the name that holds them; an unknown one is 400). A single name or integer stands for a list of one. Empty means any responder. pool:NAME (alone) picks one member of group NAME when the inquiry is created: the one with the fewest pending inquiries assigned to them, ties to the least recently assigned (inquiry.assigned event). */
            assigned_to?: (string | number)[] | (string | number);
            channel_hint?: string;
            confidence?: number;
            timeout_seconds?: number;
            /**
             * @description What a timeout does: fail (the inquiry times out with no answer, and the session it is asked in fails with "question N timed out"), or answers with fallback_value. Default: the server's --default-fallback-policy, fail unless set.
             * @default fail
             * @enum {string}
             */
            fallback_policy?: "fail" | "complete_with_fallback" | "use_default_and_continue";
            /** @description Must satisfy the schema or options; required with a policy other than fail, and ignored under fail (as OpenIntent's SDK ignores it): the inquiry then has none. Nested at most 64 deep, numbers as for context, no member name twice. */
            fallback_value?: unknown;
            tool_call?: components["schemas"]["ToolCall"];
            /** @description Resume callback: this inquiry's events are POSTed here, signed with the callback secret (GET /v1/callback-secret); the CloudEvent's data is {"inquiry": ..., "session": ...} with the session's saved state. http(s); private addresses refused unless --webhook-allow-private. */
            callback_url?: string;
            /** @description At most one pending inquiry in the session. */
            exclusive?: boolean;
            /** @description Lets a person who may answer decline instead (POST /v1/inquiries/{id}/decline, Nova's POST /api/interactions/{id}/cancel, the inbox's Decline button): the inquiry is cancelled and its session fails with their reason. Default true: leave it out to let them; false keeps the inquiry to answers. */
            cancellable_by_responder?: boolean;
            /** @description Narrows the channels that notifications about the inquiry go by (webpush: the devices on which people turned on notifications); empty: every channel its recipients have. channel_hint "email" or "slack" narrows too. */
            notify?: ("email" | "slack" | "webpush")[];
            /** @description Remind the recipients at this interval while the inquiry is pending (event inquiry.reminded): at least 1m, at most 30 days. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            remind_every?: string;
            /** @description After this long without an answer, add escalate_to as assignees (event inquiry.escalated); before the deadline, if there is one. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            escalate_after?: string;
            /** @description Who is added on escalation: principal names, group:NAME entries and integer identities; required with escalate_after. An unassigned inquiry stays open to every responder. */
            escalate_to?: (string | number)[] | (string | number);
            /**
             * @description An escalation ladder: up to 10 steps in increasing after, each adding its assignees and notifying them on its channels; the deadline's fallback ends it (event inquiry.escalated with the step's number, once per step). Not with escalate_after and escalate_to (a ladder of one step). Steps of an inquiry that is not urgent wait for the working hours of the people they add.
             * @example [
             *       {
             *         "after": "1h",
             *         "assigned_to": [
             *           "bob"
             *         ]
             *       },
             *       {
             *         "after": "4h",
             *         "assigned_to": [
             *           "group:leads"
             *         ],
             *         "channels": [
             *           "slack"
             *         ]
             *       }
             *     ]
             */
            escalate?: components["schemas"]["EscalationStepRequest"][];
            /**
             * @description normal: a reminder or escalation step that falls outside the working hours of every person it reaches waits for the first of them to start work; urgent: they come when due, at any hour. Deadlines never wait.
             * @default normal
             * @enum {string}
             */
            priority?: "normal" | "urgent";
            /** @description Several approvals (request_type approval, default schema): each distinct assignee (a group stands for its members) votes once with {approved, comment}; a vote answers 200 with the inquiry still pending and its votes; the inquiry becomes responded, response {approved, votes}, when required approvals are in or the reject rule trips. Not with steps or a pool. */
            quorum?: components["schemas"]["Quorum"];
            /** @description A chain: each step's people are asked (notified, and see it in Assigned to me) only once the step before approved; any rejection ends the chain. Give assigned_to in the steps, not beside them. */
            steps?: components["schemas"]["ApprovalStep"][];
            /** @description The principal that asks may not answer or vote (default true with quorum or steps, else false). */
            exclude_requester?: boolean;
            /** @description The owner of the session may not answer or vote (default true with quorum or steps, else false). */
            exclude_session_owner?: boolean;
            /** @description Optional JSON Schema that the vars of a request must satisfy; bounded and compiled like response_schema (external $refs are never loaded). */
            vars_schema?: Record<string, unknown> | boolean;
            /** @description Only for an approval with a tool_call: what a person may decide about the call, a subset of approve, edit, reject, respond. Default approve and reject when tool_call.parameters_schema is given; without either, the approval is answered {approved, comment} as every approval. edit needs tool_call.parameters_schema. Not with response_schema or options. */
            allowed_decisions?: components["schemas"]["ToolDecision"][];
        };
        Template: {
            name: string;
            /** @description Go text/template syntax without functions: text, {{.var}} (or {{.var.field}} into an object), {{if .var}}…{{else}}…{{end}}, comments and {{- -}} trimming. Anything else ({{printf …}}, pipelines, {{range}}, {{with}}, {{define}}, {{template}}, variables, {{.}}) is 400. Rendered with the request's vars when asking; the rendered prompt is checked as any (1..8000 characters). */
            prompt: string;
            /**
             * @description Default input, or selection when options are given. Without a schema or options, approval answers {approved: boolean, comment?: string} and the other types a non-empty string.
             * @default input
             * @enum {string}
             */
            request_type?: "approval" | "clarification" | "selection" | "input";
            /** @description Compiled at creation; external $refs are never loaded. At most 64 KiB, nested at most 32 deep, numbers as for context; format is asserted (email, date-time, date, uri, uuid, ...); a schema that would make validation too costly (more than 10,000 checks of one value, counting what $ref, allOf, anyOf and the like apply) is refused. */
            response_schema?: Record<string, unknown> | boolean;
            options?: (string | components["schemas"]["Option"])[];
            multiple?: boolean;
            /** @description Any JSON, at most 256 KiB by default, nested at most 64 deep; numbers have at most 100 digits and an exponent within ±400; no member name twice. */
            context?: unknown;
            metadata?: {
                [key: string]: string;
            };
            origin?: string;
            /** @description Principal names, group:NAME entries and integer identities (resolved to the name that holds them; an unknown one is 400). A single name or integer stands for a list of one. Empty means any responder. pool:NAME (alone) picks one member of group NAME when the inquiry is created: the one with the fewest pending inquiries assigned to them, ties to the least recently assigned (inquiry.assigned event). */
            assigned_to?: (string | number)[] | (string | number);
            channel_hint?: string;
            confidence?: number;
            timeout_seconds?: number;
            /**
             * @description What a timeout does: fail (the inquiry times out with no answer, and the session it is asked in fails with "question N timed out"), or answers with fallback_value. Default: the server's --default-fallback-policy, fail unless set.
             * @default fail
             * @enum {string}
             */
            fallback_policy?: "fail" | "complete_with_fallback" | "use_default_and_continue";
            /** @description Must satisfy the schema or options; required with a policy other than fail, and ignored under fail (as OpenIntent's SDK ignores it): the inquiry then has none. Nested at most 64 deep, numbers as for context, no member name twice. */
            fallback_value?: unknown;
            tool_call?: components["schemas"]["ToolCall"];
            /** @description Resume callback: this inquiry's events are POSTed here, signed with the callback secret (GET /v1/callback-secret); the CloudEvent's data is {"inquiry": ..., "session": ...} with the session's saved state. http(s); private addresses refused unless --webhook-allow-private. */
            callback_url?: string;
            /** @description At most one pending inquiry in the session. */
            exclusive?: boolean;
            /** @description Lets a person who may answer decline instead (POST /v1/inquiries/{id}/decline, Nova's POST /api/interactions/{id}/cancel, the inbox's Decline button): the inquiry is cancelled and its session fails with their reason. Default true: leave it out to let them; false keeps the inquiry to answers. */
            cancellable_by_responder?: boolean;
            /** @description Narrows the channels that notifications about the inquiry go by (webpush: the devices on which people turned on notifications); empty: every channel its recipients have. channel_hint "email" or "slack" narrows too. */
            notify?: ("email" | "slack" | "webpush")[];
            /** @description Remind the recipients at this interval while the inquiry is pending (event inquiry.reminded): at least 1m, at most 30 days. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            remind_every?: string;
            /** @description After this long without an answer, add escalate_to as assignees (event inquiry.escalated); before the deadline, if there is one. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            escalate_after?: string;
            /** @description Who is added on escalation: principal names, group:NAME entries and integer identities; required with escalate_after. An unassigned inquiry stays open to every responder. */
            escalate_to?: (string | number)[] | (string | number);
            /**
             * @description An escalation ladder: up to 10 steps in increasing after, each adding its assignees and notifying them on its channels; the deadline's fallback ends it (event inquiry.escalated with the step's number, once per step). Not with escalate_after and escalate_to (a ladder of one step). Steps of an inquiry that is not urgent wait for the working hours of the people they add.
             * @example [
             *       {
             *         "after": "1h",
             *         "assigned_to": [
             *           "bob"
             *         ]
             *       },
             *       {
             *         "after": "4h",
             *         "assigned_to": [
             *           "group:leads"
             *         ],
             *         "channels": [
             *           "slack"
             *         ]
             *       }
             *     ]
             */
            escalate?: components["schemas"]["EscalationStepRequest"][];
            /**
             * @description normal: a reminder or escalation step that falls outside the working hours of every person it reaches waits for the first of them to start work; urgent: they come when due, at any hour. Deadlines never wait.
             * @default normal
             * @enum {string}
             */
            priority?: "normal" | "urgent";
            /** @description Several approvals (request_type approval, default schema): each distinct assignee (a group stands for its members) votes once with {approved, comment}; a vote answers 200 with the inquiry still pending and its votes; the inquiry becomes responded, response {approved, votes}, when required approvals are in or the reject rule trips. Not with steps or a pool. */
            quorum?: components["schemas"]["Quorum"];
            /** @description A chain: each step's people are asked (notified, and see it in Assigned to me) only once the step before approved; any rejection ends the chain. Give assigned_to in the steps, not beside them. */
            steps?: components["schemas"]["ApprovalStep"][];
            /** @description The principal that asks may not answer or vote (default true with quorum or steps, else false). */
            exclude_requester?: boolean;
            /** @description The owner of the session may not answer or vote (default true with quorum or steps, else false). */
            exclude_session_owner?: boolean;
            /** @description Optional JSON Schema that the vars of a request must satisfy; bounded and compiled like response_schema (external $refs are never loaded). */
            vars_schema?: Record<string, unknown> | boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The admin that put this version. */
            updated_by: string;
            /** @description Only for an approval with a tool_call: what a person may decide about the call, a subset of approve, edit, reject, respond. Default approve and reject when tool_call.parameters_schema is given; without either, the approval is answered {approved, comment} as every approval. edit needs tool_call.parameters_schema. Not with response_schema or options. */
            allowed_decisions?: components["schemas"]["ToolDecision"][];
        };
        AuditHead: {
            /** @description The newest event's seq (0 for an empty log). */
            seq: number;
            /** @description Its hash in the chain, hexadecimal (32 zero bytes for an empty log). */
            hash: string;
            /**
             * Format: date-time
             * @description When it was signed, RFC 3339 in UTC, whole seconds, as signed.
             */
            signed_at: string;
            /** @description Ed25519 over "hitl-audit-head\n{seq}\n{hash}\n{signed_at}", standard base64. */
            signature: string;
        };
        AuditKey: {
            /** @enum {string} */
            algorithm: "Ed25519";
            /** @description The 32-byte public key, standard base64. */
            public_key: string;
            /** @description The same as a PEM PUBLIC KEY block. */
            pem: string;
            jwk: {
                /** @constant */
                kty: "OKP";
                /** @constant */
                crv: "Ed25519";
                x: string;
            };
        };
        /** @description Exactly one of ids and filter. */
        BulkResponseRequest: {
            /** @description The inquiries to answer, each once; the results come in this order. */
            ids?: number[];
            /** @description The pending inquiries of one session that the caller may answer (unassigned, or assigned to it or one of its groups), newest first. More than 500 matches refuse the whole request (400, saying how many matched). */
            filter?: {
                session: string;
                /**
                 * @description Only pending inquiries can be answered; may be left out.
                 * @enum {string}
                 */
                status?: "pending";
                /**
                 * @description me: only the inquiries assigned to the caller or one of its groups (not the unassigned ones). Left out: every pending inquiry of the session the caller may answer.
                 * @enum {string}
                 */
                assigned_to?: "me";
                /** @enum {string} */
                request_type?: "approval" | "clarification" | "selection" | "input";
            };
            /** @description The answer given to every inquiry, checked against each one's schema or options on its own. */
            response: unknown;
            comment?: string;
        };
        BulkResults: {
            results: {
                id: number;
                /**
                 * @description responded: the answer is recorded (or was, by the same person: a retry). refused: nothing was recorded for this inquiry; error says why.
                 * @enum {string}
                 */
                status: "responded" | "voted" | "refused";
                /** @description Why the inquiry was refused, as the single respond call's problem would say it: not_found (unknown or not visible to the caller), forbidden (assigned to others), conflict (already final), invalid_response (with errors). */
                error?: {
                    code: string;
                    message: string;
                    errors?: components["schemas"]["FieldError"][];
                };
            }[];
        };
        /**
         * @description What a person decides about a tool call: approve (run it as proposed), edit (run it with the edited args), reject (do not run it; message says why), respond (do not run it; message is the answer the model gets instead).
         * @enum {string}
         */
        ToolDecision: "approve" | "edit" | "reject" | "respond";
        /** @description The answer (response) to an approval of a tool call with decisions. args only with edit (fits tool_call.parameters_schema; the whole set of arguments the tool runs with); message with reject (optional) and respond (required), not with approve or edit. The inquiry's response_schema is this, generated from its allowed decisions; a decision not allowed is 422 naming those allowed, edited arguments that do not fit are 422 with paths under /args. */
        ToolDecisionAnswer: {
            decision: components["schemas"]["ToolDecision"];
            args?: Record<string, unknown>;
            message?: string;
        };
        PurgeRequest: {
            /**
             * Format: date-time
             * @description What ended before this time is removed; not in the future.
             */
            before: string;
        };
        PurgeResult: {
            /** Format: date-time */
            before: string;
            /** @description Inquiries removed, those of the sessions included. */
            inquiries: number;
            sessions: number;
            events: number;
            /** @description audit.checkpoint events written: one per batch. */
            checkpoints: number;
            /** @description The purge stopped after 20 s with more left to remove: ask again. */
            more: boolean;
        };
        ResponseTimes: {
            /** @description The request type, the responder's name or the group's name; "other" for the row the rest are folded into. Absent on the total. */
            key?: string;
            /** @description Answers counted. */
            count: number;
            /** @description On the row named "other": how many names are folded into it. */
            others?: number;
            /** @description Half the answers came within this many seconds (nearest rank; 0 without answers). */
            p50_seconds: number;
            /** @description Nine in ten answers came within this many seconds. */
            p90_seconds: number;
        };
        Stats: {
            /** @description The window's length in hours, minutes and seconds (7d is "168h"). */
            since: string;
            /**
             * Format: date-time
             * @description The window's start.
             */
            from: string;
            /**
             * Format: date-time
             * @description Its end: now.
             */
            until: string;
            /**
             * @description all: every inquiry (admins); own: the responder's own.
             * @enum {string}
             */
            scope: "all" | "own";
            answered: number;
            timed_out: number;
            /** @description Of those timed out, the ones that answered with their fallback value. */
            fell_back: number;
            cancelled: number;
            /** @description Inquiries waiting now, whenever asked. */
            pending: number;
            /** @description The inquiry that has waited longest; null when none waits. */
            oldest_pending: null | {
                inquiry_id: number;
                /** Format: date-time */
                created_at: string;
                age_seconds: number;
            };
            response_time: components["schemas"]["ResponseTimes"];
            /** @description The request types that have answers, in the order approval, clarification, selection, input. */
            by_request_type: components["schemas"]["ResponseTimes"][];
            /** @description By who answered: the 20 with the most answers (ties by name), then "other". */
            by_responder: components["schemas"]["ResponseTimes"][];
            /** @description By the group the inquiry was assigned to when answered (without the group: prefix): the 20 with the most answers, then "other". */
            by_group: components["schemas"]["ResponseTimes"][];
            /** @description Every UTC day of the window, oldest first, days without any too. */
            per_day: {
                /** Format: date */
                date: string;
                answered: number;
                timed_out: number;
                fell_back: number;
                cancelled: number;
            }[];
            /** @description true when the window held more than 50,000 answers: the response times are those of the newest 50,000. */
            sampled: boolean;
            decisions: components["schemas"]["DecisionAnalytics"];
        };
        WaitRequest: {
            /** @description The inquiries to wait on, each once. */
            ids: number[];
            /** @description How long the wait lasts at most: 0..300 s, default 30s; Go duration or seconds. Then the stream ends with reason timeout and the ids still pending. */
            timeout?: string;
        };
        WaitMessage: {
            /** @enum {string} */
            type: "inquiry" | "error" | "waiting" | "ping" | "end";
            /** @description type inquiry: the inquiry, final. */
            inquiry?: components["schemas"]["Inquiry"];
            /** @description type error: the id that cannot be waited on. */
            id?: number;
            /** @description type error: why, as GET /v1/inquiries/{id} would say it (not_found). */
            error?: {
                code: string;
                message: string;
            };
            /** @description type waiting: how many of the ids are still pending, now all registered. */
            count?: number;
            /**
             * @description type end: why the stream ends.
             * @enum {string}
             */
            reason?: "done" | "timeout" | "shutdown";
            /** @description type end: the ids not final yet (left out when none). */
            pending?: number[];
        };
        /** @description An entry of an intent's event log (RFC-0001's Event object): an event of its session. What the agent logged (session.logged) shows as it logged it; every other event under the SDK's name for it (event_type), with the event's data as its payload. */
        IntentEvent: {
            id: string;
            /** @description The event's place in hitl's log: ?after=SEQ lists the events after it. */
            seq: number;
            intent_id: string;
            /** @description One of the OpenIntent SDK's EventType values, which it parses every event's type into: a logged entry's as logged; intent.suspended and intent.resumed for an inquiry's creation and end; intent_created for the session's creation, state_patched for its other changes (and what else befalls an inquiry), status_changed for its end, intent.suspension_renotified and intent.suspension_escalated for a reminder and an escalation. */
            event_type: string;
            /** @description The principal whose key wrote it. */
            actor: string;
            /** @description For a logged entry, the object logged; else the event's data. */
            payload: unknown;
            /** @description As created_at of Intent. */
            created_at: string;
            /** @description seq under OpenIntent's name. */
            sequence: number;
            /** @description The event's type in hitl's log (session.updated, inquiry.created, session.logged, ...). */
            hitl_type: string;
            trace_id?: string;
            parent_event_id?: string;
        };
        IntentEventToLog: {
            /** @description The agent's name for the entry, 1 to 100 characters of a-z A-Z 0-9 . _ : - (OpenIntent's log() sends comment). */
            event_type: string;
            /** @description Taken and not read: the actor recorded is the key's principal. */
            actor?: string;
            /** @description A JSON object (default {}), at most the context's size limit; for a comment {"message": ...}. */
            payload?: Record<string, unknown> | null;
            /** @description RFC-0020's trace id, kept with the entry. */
            trace_id?: string;
            /** @description The id of the event that caused it, kept with the entry. */
            parent_event_id?: string;
        };
        IntentStatusChange: {
            /**
             * @description draft and blocked are 400: sessions have neither.
             * @enum {string}
             */
            status: "active" | "suspended_awaiting_input" | "completed" | "abandoned";
            /** @description Why the intent is abandoned (at most 8,000 characters): the session's error. Not with completed. */
            reason?: string;
        };
        /** @description The body of the OpenIntent SDK's create_intent. */
        IntentToCreate: {
            /** @description Kept as the session's metadata title. */
            title: string;
            /** @description Kept as the session's metadata description. */
            description?: string;
            /** @description Not enforced: {} or absent. */
            constraints?: Record<string, unknown>;
            /** @description The session's state. */
            state?: Record<string, unknown> | null;
            /** @description The SDK's agent id; taken and not read (the creator is the key's principal). */
            created_by?: string;
            /** @enum {string} */
            status?: "active";
            parent_intent_id?: string;
            depends_on?: unknown[];
            /** @description Not enforced: absent or null. */
            governance_policy?: null;
        };
        /** @description The body of the OpenIntent SDK's update_state: patches, or a state whose keys are each set. */
        IntentStatePatch: {
            patches?: {
                /** @enum {string} */
                op: "set" | "add" | "replace" | "append" | "remove";
                /** @description KEY, or /KEY/SUBKEY. _suspension is written whole with set: it asks a person (an inquiry of the session that keeps its id; written again with the same id, it asks no second time). */
                path: string;
                value?: unknown;
            }[];
            state?: Record<string, unknown>;
        };
        AgentAssignment: {
            agent_id: string;
            /** @description worker by default. */
            role?: string;
        };
        AgentAssigned: {
            intent_id: string;
            agent_id: string;
            role: string;
            assigned_at: string;
        };
        Absence: {
            person: string;
            /**
             * Format: date-time
             * @description When the absence starts (included).
             */
            from: string;
            /**
             * Format: date-time
             * @description When it ends (excluded).
             */
            until: string;
            /** @description Who answers in the person's place. */
            delegate: string;
            /** @description Who set it: the person or an admin. */
            set_by: string;
            /** Format: date-time */
            set_at: string;
        };
        AbsenceRequest: {
            /** Format: date-time */
            from: string;
            /**
             * Format: date-time
             * @description After from, and in the future.
             */
            until: string;
            /** @description A principal hitl knows (a key or a person), not the person themself. */
            delegate: string;
        };
        VAPIDPublicKey: {
            /** @description Uncompressed P-256 public key, base64url without padding. */
            public_key: string;
        };
        /** @description The browser's PushSubscription.toJSON(). */
        PushSubscriptionRequest: {
            /** @description The push service's URL for this device. */
            endpoint: string;
            /** @description Milliseconds since 1970 when the subscription ends, or null. */
            expirationTime?: number | null;
            keys: {
                /** @description The device's P-256 public key (65 bytes), base64url. */
                p256dh: string;
                /** @description The device's authentication secret (16 bytes), base64url. */
                auth: string;
            };
        };
        PushSubscription: {
            endpoint: string;
            /** @description Whose device it is. */
            person: string;
            p256dh: string;
            auth: string;
            /** Format: date-time */
            expires_at?: string;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description Working hours by day: mon, tue, wed, thu, fri, sat, sun, each one window [start, end) as HH:MM in the person's time_zone (00:00 to 24:00, start before end). A day left out is off; no working hours at all: always working.
         * @example {
         *       "mon": [
         *         "09:00",
         *         "17:00"
         *       ],
         *       "tue": [
         *         "09:00",
         *         "17:00"
         *       ],
         *       "wed": [
         *         "09:00",
         *         "17:00"
         *       ],
         *       "thu": [
         *         "09:00",
         *         "17:00"
         *       ],
         *       "fri": [
         *         "09:00",
         *         "15:00"
         *       ]
         *     }
         */
        WorkingHours: {
            [key: string]: string[];
        };
        EscalationStepRequest: {
            /** @description When the step fires, after the inquiry's creation; more than the step before's, and before the deadline. A duration like "30m", "1h30m" or "2d" (days of 24 hours), in whole seconds. */
            after: string;
            /** @description Who the step adds as assignees and notifies: principal names, group:NAME entries and integer identities (no pools). An unassigned inquiry stays open to every responder; they are only notified. */
            assigned_to: (string | number)[];
            /** @description The channels the step's notifications go by; chat_webhook posts to the rooms subscribed to inquiry.escalated. Empty or left out: the people's usual channels and the subscribed rooms. */
            channels?: ("email" | "slack" | "chat_webhook" | "webpush")[];
        };
        EscalationStep: {
            /** @description When the step fires, after creation. */
            after: string;
            assigned_to: string[];
            /** @description Empty: the people's usual channels. */
            channels: ("email" | "slack" | "chat_webhook" | "webpush")[];
            /**
             * Format: date-time
             * @description When the step fired; absent before.
             */
            reached_at?: string;
        };
        Escalation: {
            steps: components["schemas"]["EscalationStep"][];
            /** @description How many steps have fired. */
            reached: number;
            /**
             * Format: date-time
             * @description When the next step fires: its time after creation, or the next working hour of its people (priority normal). Null once every step fired or the inquiry is final.
             */
            next_at: string | null;
        };
        /** @description The public keys decision receipts are verified with: the current key first, the previous one (if any) second. */
        JWKS: {
            keys: components["schemas"]["JWK"][];
        };
        JWK: {
            /** @constant */
            kty: "OKP";
            /** @constant */
            crv: "Ed25519";
            /** @description The public key, base64url without padding. */
            x: string;
            /** @description base64url (no padding) of the first 12 bytes of the SHA-256 of the public key. */
            kid: string;
            /** @constant */
            alg: "EdDSA";
            /** @constant */
            use: "sig";
        };
        SigningKeyRotation: {
            /** @description The new current key's id. */
            kid: string;
            keys: components["schemas"]["JWK"][];
        };
        ReceiptRedemption: {
            jti: string;
            /** Format: int64 */
            inquiry_id: number;
            /** Format: date-time */
            redeemed_at: string;
            /** @description The key's principal that redeemed it. */
            redeemed_by: string;
        };
        RuleRequest: {
            /** @description The tool call's name it approves (exactly one of tool and template). */
            tool?: string;
            /** @description The template whose approvals it approves. */
            template?: string;
            /** @description The asking agent (its key's name); omitted: any agent. */
            agent?: string;
            /** @description A JSON Schema (2020-12) the tool call's arguments (a template approval's context) must satisfy. */
            args_schema?: Record<string, unknown>;
            /** @description Exact values: each member must be equal in the arguments. */
            args?: Record<string, unknown>;
            /**
             * Format: date-time
             * @description When it stops approving; at most --rule-max-validity (default 7 days) ahead.
             */
            expires_at: string;
            /** @description Approve nothing; record inquiry.rule_matched, "would have approved". */
            shadow?: boolean;
        };
        Rule: {
            /** @description The tool call's name it approves (exactly one of tool and template). */
            tool?: string;
            /** @description The template whose approvals it approves. */
            template?: string;
            /** @description The asking agent (its key's name); omitted: any agent. */
            agent?: string;
            /** @description A JSON Schema (2020-12) the tool call's arguments (a template approval's context) must satisfy. */
            args_schema?: Record<string, unknown>;
            /** @description Exact values: each member must be equal in the arguments. */
            args?: Record<string, unknown>;
            /**
             * Format: date-time
             * @description When it stops approving; at most --rule-max-validity (default 7 days) ahead.
             */
            expires_at: string;
            /** @description Approve nothing; record inquiry.rule_matched, "would have approved". */
            shadow: boolean;
            id: string;
            /** @description Whose approval the rule gives. */
            author: string;
            /** @description How many people made it: it approves no quorum or chain step that needs more approvals. */
            approvers: number;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When it was revoked; absent while it is not.
             */
            revoked_at?: string;
            revoked_by?: string;
            /** @description The inquiries it approved (or would have, in shadow mode) on this node since it started. */
            matched: number;
        };
        /** @description An earlier answered inquiry that asked the same question. */
        Precedent: {
            /** Format: int64 */
            inquiry_id: number;
            /**
             * @description template: made from the same template; tool: the same tool with arguments of the same shape.
             * @enum {string}
             */
            match: "template" | "tool";
            prompt: string;
            responded_by: string;
            /** Format: date-time */
            responded_at: string;
            /** @description The answer as given (any JSON). */
            response: unknown;
            /**
             * @description For a tool call's approval: what was decided.
             * @enum {string}
             */
            decision?: "approve" | "edit" | "reject" | "respond";
            comment?: string;
        };
        Precedents: {
            /** Format: int64 */
            inquiry_id: number;
            precedents: components["schemas"]["Precedent"][];
        };
        /** @description Decision analytics of one row: a person (admins, or the caller's own row), a group, a tool or a template; the total has no key. */
        DecisionFigures: {
            key?: string;
            answers: number;
            /** @description From creation to the first time anyone who could answer saw it, over the answers whose inquiry was seen. */
            time_to_first_view: components["schemas"]["ResponseTimes"];
            /** @description From the answerer's first view (or the creation, when never opened) to the answer. */
            time_to_decision: components["schemas"]["ResponseTimes"];
            /** @description Inquiries with a deadline answered or timed out in the window. */
            with_deadline: number;
            /** @description Share (0 to 1) of with_deadline answered before the deadline; null when none had one. */
            within_deadline: number | null;
            /** @description Share of approvals approved (a tool call approved or edited) in the 7 days that end now; null when none. */
            approval_rate_this_week: number | null;
            /** @description The same of the 7 days before; null when none. */
            approval_rate_last_week: number | null;
            /** @description This week's rate minus last week's; null when either is. */
            approval_rate_change: number | null;
            /** @description Decisions made in less time than reading the prompt and context takes at reading_words_per_minute. */
            too_fast: number;
        };
        /** @description How people decide over the window's answers, of the inquiries the caller may see. */
        DecisionAnalytics: {
            reading_words_per_minute: number;
            total: components["schemas"]["DecisionFigures"];
            /** @description Every person for admins; only the caller's own row for anyone else. */
            by_person: components["schemas"]["DecisionFigures"][];
            /** @description By the group the inquiry was assigned to. */
            by_group: components["schemas"]["DecisionFigures"][];
            /** @description By the tool call's name. */
            by_tool: components["schemas"]["DecisionFigures"][];
            /** @description By the template it was made from. */
            by_template: components["schemas"]["DecisionFigures"][];
        };
        /** @description A standing approval the inbox offers a person who approved the same thing several times in a row: approving the inquiry with allow_for and allow_args makes it. tool or template, agent and args are what it would cover. */
        RuleSuggestion: {
            /** @description The tool call's name (tool calls). */
            tool?: string;
            /** @description The template's name (a template's approvals). */
            template?: string;
            /** @description The asking agent it would approve for. */
            agent: string;
            /** @description The exact arguments (a template's context) it would approve. */
            args: Record<string, unknown>;
            /** @description How many identical approvals in a row it follows (--rule-suggest-after). */
            count: number;
            /** @description What to give as the answer's allow_for, like 8h. */
            allow_for: string;
            /**
             * @description What to give as the answer's allow_args.
             * @enum {string}
             */
            allow_args: "exact";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
