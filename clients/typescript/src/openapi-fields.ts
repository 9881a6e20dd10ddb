/**
 * Generated from httpapi/openapi.json by scripts/generate.mjs (npm run generate).
 * Do not edit: change the document and regenerate.
 */

/** The fields of an inquiry request (InquiryRequest), in the document's order. */
export const inquiryRequestFields: readonly string[] = [
  "prompt",
  "request_type",
  "response_schema",
  "options",
  "multiple",
  "context",
  "metadata",
  "session",
  "origin",
  "assigned_to",
  "channel_hint",
  "confidence",
  "timeout_seconds",
  "timeout_at",
  "fallback_policy",
  "fallback_value",
  "tool_call",
  "callback_url",
  "exclusive",
  "cancellable_by_responder",
  "notify",
  "remind_every",
  "escalate_after",
  "escalate_to",
  "escalate",
  "priority",
  "execution",
  "quorum",
  "steps",
  "exclude_requester",
  "exclude_session_owner",
  "template",
  "vars",
  "allowed_decisions",
  "receipt_valid_for",
];
