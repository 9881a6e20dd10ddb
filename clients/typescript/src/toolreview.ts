// The one mapping between a model's tool call and hitl's approval with decisions, shared by
// HitlClient.reviewToolCall and the framework adapters: toolReviewInquiry makes the inquiry
// (and its idempotency key) from the call, toolReviewResult reads the person's decision back.
import type { components } from "./openapi.js";
import type { Inquiry } from "./errors.js";

type InquiryRequest = components["schemas"]["InquiryRequest"];
type ToolCall = components["schemas"]["ToolCall"];
type ToolResult = components["schemas"]["ToolResult"];

/** An approval of a tool call: the inquiry's fields, with the call (its id, name, arguments). */
export type ToolReviewRequest = Omit<InquiryRequest, "tool_call" | "prompt"> & { tool_call: ToolCall; prompt?: string };

/** What a review decided: run says whether to run the tool, with which arguments, or why not. */
export type ToolReviewResult = ToolResult & { run: boolean; inquiry: Inquiry };

/**
 * toolReviewInquiry makes the inquiry that asks a person about request.tool_call: an approval
 * ("Allow NAME?" unless a prompt is given) answered with a decision (approve or reject unless
 * allowed_decisions says otherwise), and the idempotency key that makes the same call id ask
 * once, whoever asks again.
 */
export function toolReviewInquiry(request: ToolReviewRequest): { request: InquiryRequest; idempotencyKey: string } {
  const call = request.tool_call;
  if (!call?.id) throw new TypeError("a tool review needs the tool call, with its id");
  if (!call.name) throw new TypeError("a tool review needs the tool call's name");
  const full: InquiryRequest = {
    ...request,
    prompt: request.prompt ?? `Allow ${call.name}?`,
    request_type: request.request_type ?? "approval",
  };
  // Answered with a decision, not {"approved"}, even without the tool's schema.
  full.allowed_decisions ??= ["approve", "reject"];
  return { request: full, idempotencyKey: `tool-review:${call.id}` };
}

/**
 * toolReviewResult reads the decision of an ended review inquiry: its tool result, with run
 * false when nobody decided (a deadline without fallback, a cancellation).
 */
export function toolReviewResult(inquiry: Inquiry): ToolReviewResult {
  if (!inquiry.tool_result) throw new Error(`inquiry ${inquiry.id} came back without its tool result`);
  return { ...inquiry.tool_result, run: inquiry.tool_result.run ?? false, inquiry };
}
