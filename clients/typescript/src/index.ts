export { HitlClient, DEFAULT_URL } from "./client.js";
export type { HitlClientOptions, AskOptions, EventsOptions, InquiryRequest, ToolCall, ToolResult, ToolReviewRequest, Principal, Event, InquiryPage, ListInquiriesQuery } from "./client.js";
export { HitlError, UnreachableError } from "./errors.js";
export type { Problem, FieldError, Inquiry } from "./errors.js";
export { verifyWebhook } from "./webhook.js";
export type { WebhookHeaders } from "./webhook.js";
export { credentialsPath, loadCredentials } from "./credentials.js";
export type { Credentials } from "./credentials.js";
export type { components, paths } from "./openapi.js";
