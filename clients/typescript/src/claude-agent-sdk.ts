// @hitl/client/claude-agent-sdk: a person in hitl decides each permission the Claude Agent SDK
// asks for (its canUseTool callback). The only file of the package that knows the SDK, and only
// its types: the SDK is an optional peer dependency.
import { createHash } from "node:crypto";
import type { CanUseTool, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import type { HitlClient, ToolReviewRequest } from "./client.js";
import type { Inquiry } from "./errors.js";
import { checkClient, checkOptions } from "./options.js";

/** What the SDK tells canUseTool about one request besides the tool's name and input. */
export type PermissionRequestOptions = Parameters<CanUseTool>[2];

/** A JSON Schema, as hitl checks an edited input against it. */
export type JsonSchema = Record<string, unknown>;

/**
 * The inquiry each permission request becomes (prompt, assigned_to, timeout_seconds,
 * fallback_policy, context, ...), and which decisions the person has.
 */
export interface CanUseToolOptions extends Omit<ToolReviewRequest, "tool_call" | "prompt" | "allowed_decisions"> {
  /**
   * The question the person reads. Default: the SDK's own sentence for the request ("Claude
   * wants to …") when it gives one, else "Allow <tool>?".
   */
  prompt?: string | ((toolName: string, input: Record<string, unknown>, options: PermissionRequestOptions) => string);
  /** The decisions offered: approve, edit, reject (the default), and respond. */
  allowed_decisions?: ToolReviewRequest["allowed_decisions"];
  /**
   * The JSON Schema an edited input must fit, per tool (the SDK does not give canUseTool the
   * tool's schema). Default: any JSON object.
   */
  inputSchema?: (toolName: string) => JsonSchema | undefined;
  /** How long each long poll lasts, in seconds (default 30). */
  pollSeconds?: number;
  /** Called once each inquiry exists, with it: to log its id or say where to answer it. */
  onAsked?: (inquiry: Inquiry) => void;
}

/** The schema of an edited input when inputSchema gives none: any object. */
const anyObject: JsonSchema = { type: "object" };

/**
 * canUseTool returns a `canUseTool` for the Claude Agent SDK's query() that asks a person in
 * hitl about each tool use the SDK asks permission for, and waits for the decision: approve
 * allows the use as proposed, edit allows it with the person's input, reject denies it with
 * hitl's sentence saying the person rejected it, and their reason (the model reads it as the
 * tool's result). A deadline or a cancellation
 * in hitl denies it with hitl's sentence saying so. The SDK's abort signal stops the wait.
 *
 * The tool use's id makes it ask once: the same tool use asked about again (a process that
 * restarted and resumed its session) finds the same inquiry. Without an id (older CLIs), the
 * request's id stands in, and without either, a hash of the tool's name and input.
 */
export function canUseTool(hitl: HitlClient, options: CanUseToolOptions = {}): CanUseTool {
  checkClient(hitl, "canUseTool");
  checkOptions("canUseTool", options, { own: ["prompt", "allowed_decisions", "inputSchema", "pollSeconds", "onAsked"], inquiry: { except: ["tool_call"] } });
  const { prompt, inputSchema, pollSeconds, onAsked, allowed_decisions, ...inquiry } = options;
  return async (toolName, input, sdk): Promise<PermissionResult> => {
    const id = sdk.toolUseID || sdk.requestId || derivedId(toolName, input);
    const decisions = allowed_decisions ?? ["approve", "edit", "reject"];
    const result = await hitl.reviewToolCall(
      {
        ...inquiry,
        prompt: typeof prompt === "function" ? prompt(toolName, input, sdk) : prompt ?? sdk.title ?? `Allow ${toolName}?`,
        context: contextOf(inquiry.context, sdk),
        allowed_decisions: decisions,
        tool_call: {
          id,
          name: toolName,
          // Keys in one order, so that the same input asked about again is the same request.
          arguments: canonical(input),
          ...(decisions.includes("edit") ? { parameters_schema: inputSchema?.(toolName) ?? anyObject } : {}),
        },
      },
      { signal: sdk.signal, pollSeconds, onCreated: onAsked },
    );
    if (result.run) {
      const updatedInput = (result.arguments ?? input) as Record<string, unknown>;
      return { behavior: "allow", updatedInput, toolUseID: sdk.toolUseID };
    }
    // hitl's sentence: that a person did not let the tool run, and their reason.
    return { behavior: "deny", message: result.content, toolUseID: sdk.toolUseID };
  };
}

/** derivedId names a tool use that came without an id: the same name and input, the same id. */
function derivedId(toolName: string, input: Record<string, unknown>): string {
  return "sha256-" + createHash("sha256").update(JSON.stringify([toolName, canonical(input)])).digest("hex");
}

/** canonical orders every object's keys, so that equal inputs serialise alike. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/**
 * contextOf is the inquiry's context: the caller's (an object's members, or the value as
 * `context`), with what the SDK says about the request that a person deciding would want.
 */
function contextOf(given: unknown, sdk: PermissionRequestOptions): Record<string, unknown> | undefined {
  const ctx: Record<string, unknown> =
    given === undefined || given === null ? {} : typeof given === "object" && !Array.isArray(given) ? { ...given } : { context: given };
  if (sdk.description) ctx.description ??= sdk.description;
  if (sdk.decisionReason) ctx.decision_reason ??= sdk.decisionReason;
  if (sdk.blockedPath) ctx.blocked_path ??= sdk.blockedPath;
  if (sdk.agentID) ctx.agent_id ??= sdk.agentID;
  if (sdk.mcpServer) ctx.mcp_server ??= sdk.mcpServer;
  return Object.keys(ctx).length ? ctx : undefined;
}
