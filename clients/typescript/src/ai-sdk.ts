// @hitl/client/ai-sdk: hitl behind the AI SDK's tools (npm package `ai`, tested with 7.0.173).
//
// Two ways in, both built on HitlClient.reviewToolCall (one inquiry per tool call id, answered
// with decisions, read back as a tool result):
//   - withApproval(hitl, tool, { name }): the tool asks a person in its own execute, so the
//     model's run waits there and goes on with the tool's output or the person's refusal;
//   - answerApprovalRequests(hitl, result): for apps that use the AI SDK's own approval
//     (toolApproval on generateText/streamText, or a tool's needsApproval), it answers each
//     tool-approval-request through hitl and returns the tool message to send back.
import { asSchema } from "ai";
import type { ModelMessage, Tool, ToolApprovalResponse, ToolExecutionOptions, ToolModelMessage } from "ai";
import type { AskOptions, HitlClient, ToolReviewRequest, ToolResult } from "./client.js";
import type { Inquiry } from "./errors.js";
import { checkClient, checkOptions } from "./options.js";

/** The inquiry's fields for a tool call: everything of ToolReviewRequest but the call itself. */
type InquiryFields = Omit<ToolReviewRequest, "tool_call" | "prompt">;

/** A tool call as the person is asked about it. */
export interface ApprovalCall {
  toolName: string;
  toolCallId: string;
  input: unknown;
}

/** How to ask: the prompt (a sentence, or one made from the call), and the ask's own options. */
interface AskFields {
  /** The question shown to people; default "Allow <tool name>?". */
  prompt?: string | ((call: ApprovalCall) => string);
  /** Called once the inquiry exists: to log its id or show where to answer it. */
  onCreated?: AskOptions["onCreated"];
  /** Waits on this Waiter's shared streams rather than with long polls of its own. */
  waiter?: AskOptions["waiter"];
}

export type WithApprovalOptions = InquiryFields & AskFields & {
  /** The tool's name, as the key it has in the tools given to generateText/streamText. */
  name: string;
};

export type AnswerApprovalOptions = Omit<InquiryFields, "allowed_decisions"> & AskFields & {
  /** Aborts the asking: waits still open reject with the signal's reason. */
  signal?: AbortSignal;
};

const withApprovalOptions = { own: ["name", "prompt", "onCreated", "waiter"], inquiry: { except: ["tool_call"] } };
const answerApprovalOptions = { own: ["prompt", "onCreated", "waiter", "signal"], inquiry: { except: ["tool_call", "allowed_decisions"] } };

/** reviewRequest makes the approval of one call from the options: the inquiry's fields, less the ask's. */
function reviewRequest(options: WithApprovalOptions | AnswerApprovalOptions, call: ApprovalCall, parametersSchema?: Record<string, unknown>): ToolReviewRequest {
  const { prompt, onCreated: _onCreated, waiter: _waiter, name: _name, signal: _signal, ...inquiry } =
    options as WithApprovalOptions & AnswerApprovalOptions;
  return {
    ...inquiry,
    ...(prompt !== undefined && { prompt: typeof prompt === "function" ? prompt(call) : prompt }),
    tool_call: {
      id: call.toolCallId,
      name: call.toolName,
      arguments: call.input ?? {},
      ...(parametersSchema && { parameters_schema: parametersSchema }),
    },
  };
}

/** The tool's input schema as JSON Schema, when the AI SDK can say it (zod, jsonSchema(), ...). */
async function inputJsonSchema(inputSchema: unknown): Promise<Record<string, unknown> | undefined> {
  if (inputSchema === undefined) return undefined;
  try {
    const schema = await asSchema(inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
    return schema && typeof schema === "object" ? (schema as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * withApproval returns the tool with an execute that first asks a person, through hitl, whether
 * to run it: approve runs the tool's own execute with the model's arguments, edit with the
 * person's (checked by hitl against the tool's input schema, then by the tool's schema again),
 * and reject, a deadline or a cancellation returns, as the tool's result, sentences that tell
 * the model it did not run and why (the person's reason). The call id is the inquiry's
 * idempotency key, so a call asked about twice is one inquiry; the AI SDK's abort signal stops
 * the wait. options.name is the tool's name (execute is not told it); the other options are
 * the inquiry's fields (prompt, assigned_to, timeout_seconds, context, ...). The person may
 * edit the arguments when the tool's input schema can be given as JSON Schema.
 */
export function withApproval<T extends Tool>(hitl: HitlClient, tool: T, options: WithApprovalOptions): T {
  checkClient(hitl, "withApproval");
  if (tool === null || typeof tool !== "object" || !("inputSchema" in tool)) {
    throw new TypeError("withApproval needs an AI SDK tool as its second argument, one made with tool({ inputSchema, execute }) from \"ai\"");
  }
  const execute = tool.execute as ((input: unknown, options: ToolExecutionOptions<unknown>) => unknown) | undefined;
  if (typeof execute !== "function") {
    throw new TypeError("withApproval needs a tool with an execute function: a tool without one is not run by the AI SDK, so there is nothing to approve");
  }
  if ((tool as { isProviderExecuted?: boolean }).isProviderExecuted === true) {
    throw new TypeError("withApproval cannot hold a provider-executed tool: the provider runs it, not your execute");
  }
  checkOptions("withApproval", options, withApprovalOptions);
  if (typeof options?.name !== "string" || options.name.trim() === "") {
    throw new TypeError("withApproval needs the tool's name, the key it has in your tools: withApproval(hitl, tool, { name: \"refund\" })");
  }
  const { name } = options;
  let schema: Promise<Record<string, unknown> | undefined> | undefined;
  // Calls that did not run, by call id: their result is the sentence for the model, which the
  // tool's own toModelOutput (made for its real output) must not be given.
  const notRun = new Map<string, string>();

  const approvedExecute = async (input: unknown, execOptions: ToolExecutionOptions<unknown>) => {
    const call: ApprovalCall = { toolName: name, toolCallId: execOptions.toolCallId, input };
    if (!call.toolCallId) throw new Error(`the AI SDK gave ${name} no tool call id to ask about`);
    schema ??= inputJsonSchema(tool.inputSchema);
    const parametersSchema = await schema;
    const request = reviewRequest(options, call, parametersSchema);
    request.allowed_decisions ??= parametersSchema ? ["approve", "edit", "reject"] : ["approve", "reject"];
    const result = await hitl.reviewToolCall(request, { signal: execOptions.abortSignal, onCreated: options.onCreated, waiter: options.waiter });
    if (!result.run) {
      if (tool.toModelOutput) notRun.set(call.toolCallId, result.content);
      return result.content;
    }
    let args = result.arguments;
    if (result.decision === "edit") args = await validated(tool.inputSchema, args, name);
    return execute(args, execOptions);
  };

  const wrapped = { ...tool, execute: approvedExecute } as T;
  const toModelOutput = tool.toModelOutput;
  if (toModelOutput) {
    (wrapped as Tool).toModelOutput = (opts) => {
      const said = notRun.get(opts.toolCallId);
      if (said === undefined) return toModelOutput(opts);
      notRun.delete(opts.toolCallId);
      return { type: "text", value: said };
    };
  }
  return wrapped;
}

/** validated checks edited arguments with the tool's own schema, and applies its transforms. */
async function validated(inputSchema: unknown, args: unknown, name: string): Promise<unknown> {
  const schema = asSchema(inputSchema as Parameters<typeof asSchema>[0]);
  if (!schema.validate) return args;
  const res = await schema.validate(args);
  if (res.success) return res.value;
  throw new Error(`the arguments a person gave ${name} do not fit its input schema: ${res.error.message}`);
}

/** A tool-approval-request to answer, from a result's content or from messages. */
interface PendingRequest extends ApprovalCall {
  approvalId: string;
}

type ContentLike = { type?: string; [k: string]: unknown };
type ApprovalSource =
  | { content: readonly unknown[] | PromiseLike<readonly unknown[]> }
  | readonly ModelMessage[]
  | readonly unknown[];

/** pendingRequests finds the approval requests nobody (not even the SDK itself) has answered. */
function pendingRequests(items: readonly unknown[]): PendingRequest[] {
  const isMessages = items.length > 0 && items.every((m) => typeof m === "object" && m !== null && "role" in m);
  const calls = new Map<string, ContentLike>();
  const answered = new Set<string>();
  const requests: ContentLike[] = [];
  const parts: ContentLike[] = [];
  if (isMessages) {
    for (const m of items as ModelMessage[]) {
      if (Array.isArray(m.content)) parts.push(...(m.content as ContentLike[]));
    }
  } else {
    for (const p of items) {
      if (typeof p !== "object" || p === null) throw new TypeError("answerApprovalRequests needs content parts or model messages; it was given a list holding " + JSON.stringify(p));
      parts.push(p as ContentLike);
    }
  }
  for (const p of parts) {
    if (p.type === "tool-call") calls.set(String(p.toolCallId), p);
    else if (p.type === "tool-approval-response") answered.add(String(p.approvalId));
    else if (p.type === "tool-approval-request") requests.push(p);
  }
  const pending: PendingRequest[] = [];
  for (const r of requests) {
    const approvalId = String(r.approvalId);
    if (r.isAutomatic || answered.has(approvalId)) continue;
    // In a result's content the request carries its call; in messages it names it by id.
    const call = (r.toolCall as ContentLike | undefined) ?? calls.get(String(r.toolCallId));
    if (!call) throw new Error(`tool approval request ${approvalId} names tool call ${String(r.toolCallId)}, which is not among the messages given`);
    pending.push({ approvalId, toolCallId: String(call.toolCallId), toolName: String(call.toolName), input: call.input });
  }
  return pending;
}

/**
 * answerApprovalRequests answers the AI SDK's own tool approvals through hitl, for apps that
 * set toolApproval ('user-approval') on generateText/streamText or needsApproval on a tool. Give
 * it the result of generateText or streamText (or its content, or the messages so far): each
 * tool-approval-request not yet answered becomes an inquiry about that tool call (its name and
 * input, the call id as the idempotency key, approve or reject), all asked at once and waited
 * for. It returns what to append to the messages before calling the model again: one tool
 * message of tool-approval-response parts (approved, and the reason: the person's, in words
 * the model reads when denied), or no message when there was nothing to answer. A deadline or
 * a cancellation denies. The AI SDK cannot run a tool with changed arguments after an approval,
 * so edit is not offered here: use withApproval for that.
 *
 *   messages.push(...result.responseMessages, ...(await answerApprovalRequests(hitl, result)));
 */
export async function answerApprovalRequests(hitl: HitlClient, source: ApprovalSource, options: AnswerApprovalOptions = {}): Promise<ToolModelMessage[]> {
  checkClient(hitl, "answerApprovalRequests");
  if ((options as { allowed_decisions?: unknown } | null)?.allowed_decisions !== undefined) {
    throw new TypeError("answerApprovalRequests asks approve or reject only: the AI SDK cannot run an approved tool with edited arguments (use withApproval for edits)");
  }
  checkOptions("answerApprovalRequests", options, answerApprovalOptions);
  let items: readonly unknown[];
  if (Array.isArray(source)) items = source;
  else if (source !== null && typeof source === "object" && "content" in source) items = await source.content;
  else throw new TypeError("answerApprovalRequests needs the result of generateText or streamText, its content, or the messages so far");
  if (!Array.isArray(items)) throw new TypeError("answerApprovalRequests needs the result of generateText or streamText, its content, or the messages so far");

  const pending = pendingRequests(items);
  if (pending.length === 0) return [];
  const answers = await Promise.all(pending.map(async (req): Promise<ToolApprovalResponse> => {
    const request = reviewRequest(options, req);
    request.allowed_decisions = ["approve", "reject"];
    const result = await hitl.reviewToolCall(request, { signal: options.signal, onCreated: options.onCreated, waiter: options.waiter });
    const reason = approvalReason(result);
    return { type: "tool-approval-response", approvalId: req.approvalId, approved: result.run === true, ...(reason && { reason }) };
  }));
  return [{ role: "tool", content: answers }];
}

/**
 * approvalReason: when denied, the sentences the model is shown (the person's reason, or the
 * deadline, or the cancellation); when approved, the person's comment, if any, for the record.
 */
function approvalReason(result: ToolResult & { inquiry: Inquiry }): string | undefined {
  if (!result.run) return result.content;
  return result.inquiry.comment ?? undefined;
}
