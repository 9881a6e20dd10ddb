// @hitl/client/openai-agents: hitl behind the OpenAI Agents SDK's tool approvals. A tool with
// needsApproval stops the run with result.interruptions; approveInterruptions asks a person in
// hitl about each call, waits, and applies the decisions to the run state, which the caller
// passes back to run(). Tested with @openai/agents 0.20.0.
import { RunState } from "@openai/agents";
import type { Agent, RunToolApprovalItem } from "@openai/agents";
import type { HitlClient, ToolResult, ToolReviewRequest } from "./client.js";
import type { Inquiry } from "./errors.js";
import type { components } from "./openapi.js";
import type { Waiter } from "./waiter.js";
import { checkClient, checkOptions, describe } from "./options.js";

export type ToolDecision = components["schemas"]["ToolDecision"];

/** One tool call the run waits on, as it is put to the person. */
export interface PendingToolCall {
  /** The call's id (the model's call id): the inquiry's idempotency key. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments the model proposed, parsed from JSON. */
  arguments: unknown;
  /** The name of the agent that made the call. */
  agent: string;
  /** The SDK's approval item. */
  item: RunToolApprovalItem;
}

/** The inquiry fields a caller may set: who answers, by when, where, ... */
type InquiryFields = Omit<
  ToolReviewRequest,
  "tool_call" | "prompt" | "context" | "session" | "allowed_decisions" | "request_type" | "response_schema" | "options" | "multiple"
>;

export interface ApproveInterruptionsOptions extends InquiryFields {
  /** What the person is asked; default "Allow AGENT to call TOOL?". A function gets each call. */
  prompt?: string | ((call: PendingToolCall) => string);
  /** Shown to the person with the call; the agent's name is added as "agent". */
  context?: Record<string, unknown>;
  /** What the person may decide; default approve, edit (for function tools) and reject. */
  allowed_decisions?: ToolDecision[];
  /**
   * The hitl session (one agent run) to keep the serialized run state in, saved before anyone
   * is asked; the inquiries are asked within it. loadRunState(hitl, agent, session) in another
   * process, after a crash or a restart, gets the state back, and approveInterruptions on it
   * finds the same inquiries (each call asks once).
   */
  session?: string;
  /**
   * The agent the run started with. An edit rebuilds the run state from its serialized form,
   * which resolves agents from this one; default the state's current agent, which is enough
   * unless the run went through a handoff.
   */
  agent?: Agent<any, any>;
  /** Stops waiting (the state is left as it was). */
  signal?: AbortSignal;
  /** Waits on this Waiter's shared streams (see HitlClient.waiter()). */
  waiter?: Waiter;
  /** Called once each inquiry exists: to log its id or say where to answer it. */
  onAsked?: (inquiry: Inquiry, call: PendingToolCall) => void;
}

/** The shape of a session's state as approveInterruptions saves it. */
export const RUN_STATE_FORMAT = "@openai/agents RunState";
interface SavedState {
  format: string;
  run_state: string;
}

type AnyState = RunState<any, Agent<any, any>>;

/** The RunState class: the one of @openai/agents that the app's run() comes from. */
export type RunStateClass = Pick<typeof RunState, "fromString" | "fromStringWithContext">;

export interface LoadRunStateOptions {
  /** Stops the request. */
  signal?: AbortSignal;
  /**
   * The RunState class to read the state with: pass the one your app imports from
   * @openai/agents (import { RunState } from "@openai/agents") when the app and @hitl/client
   * may resolve different copies of the SDK; run() takes only a state of its own copy's class.
   * Default: the copy @hitl/client resolves.
   */
  RunState?: RunStateClass;
}

const approveOptions = {
  own: ["prompt", "context", "allowed_decisions", "session", "agent", "signal", "waiter", "onAsked"],
  inquiry: { except: ["tool_call", "request_type", "response_schema", "options", "multiple"] },
};

/**
 * approveInterruptions asks a person in hitl about each tool call the run is waiting on
 * (result.interruptions), waits for the decisions and applies them: approve runs the tool with
 * the proposed arguments, edit with the person's arguments, reject does not run it and tells
 * the model the person's message. A deadline or a cancellation with nobody deciding rejects
 * the call with hitl's sentence saying so. It returns the state to pass back to run(agent,
 * state): a new one when a person edited arguments, else result's own. A result without
 * interruptions comes back as its state, with nothing asked.
 */
export async function approveInterruptions<S extends AnyState>(
  hitl: HitlClient,
  result: { state: S } | S,
  options: ApproveInterruptionsOptions = {},
): Promise<S> {
  checkClient(hitl, "approveInterruptions");
  checkOptions("approveInterruptions", options, approveOptions);
  let state = stateOf(result);
  const items = state.getInterruptions();
  if (items.length === 0) return state;
  const calls = await Promise.all(items.map((item) => pendingCall(item, state)));
  const { prompt, context, allowed_decisions, session, agent, signal, waiter, onAsked, ...fields } = options;
  if (session !== undefined) await saveRunState(hitl, session, state, { signal });

  // One failed question (a refusal, the server out of reach) stops the waits on the others.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal!.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const asked = calls.map(({ call, schema }) => {
    const decisions: ToolDecision[] = allowed_decisions ?? (schema ? ["approve", "edit", "reject"] : ["approve", "reject"]);
    return hitl
      .reviewToolCall(
        {
          ...fields,
          origin: fields.origin ?? call.agent,
          prompt: typeof prompt === "function" ? prompt(call) : prompt ?? `Allow ${call.agent} to call ${call.name}?`,
          context: { ...context, agent: call.agent },
          session,
          tool_call: { id: call.id, name: call.name, arguments: call.arguments, ...(schema ? { parameters_schema: schema } : {}) },
          allowed_decisions: decisions,
        },
        { signal: stop.signal, waiter, onCreated: onAsked && ((inquiry) => onAsked(inquiry, call)) },
      )
      .catch((err: unknown) => {
        stop.abort(err);
        throw err;
      });
  });
  let decided: ToolResult[];
  try {
    decided = await Promise.all(asked);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }

  // In 0.20 an approval is bound to the call's arguments as the run recorded them, so edited
  // arguments are written into the serialized state, and the state is read back.
  const edits = new Map<string, string>();
  calls.forEach(({ call }, i) => {
    const r = decided[i];
    if (r.run && r.decision === "edit" && JSON.stringify(r.arguments) !== JSON.stringify(call.arguments)) {
      edits.set(call.id, JSON.stringify(r.arguments));
    }
  });
  if (edits.size > 0) state = (await withEditedArguments(state, edits, agent)) as S;

  const byId = new Map(state.getInterruptions().map((item) => [callId(item), item]));
  calls.forEach(({ call }, i) => {
    const item = byId.get(call.id);
    if (!item) throw new Error(`the run state no longer waits on tool call ${call.id} (${call.name})`);
    const r: ToolResult = decided[i];
    if (r.run) state.approve(item);
    // hitl's sentence, as for the AI SDK: that the tool did not run, and the person's reason.
    else state.reject(item, { message: r.content });
  });
  return state;
}

/**
 * saveRunState keeps the run's serialized state in the hitl session named key (creating the
 * session), for loadRunState to read back in another process. approveInterruptions does this
 * itself when given { session }.
 */
export async function saveRunState(hitl: HitlClient, key: string, result: { state: AnyState } | AnyState, options: { signal?: AbortSignal } = {}): Promise<void> {
  checkClient(hitl, "saveRunState");
  checkKey("saveRunState", key, "saveRunState(hitl, key, result)");
  checkOptions("saveRunState", options, { own: ["signal"] });
  const state = stateOf(result);
  const saved: SavedState = { format: RUN_STATE_FORMAT, run_state: state.toString() };
  await hitl.putSession(key, { agent: state.currentAgent?.name, state: saved }, options);
}

/**
 * loadRunState reads back the run state saved in the hitl session named key, for the agent the
 * run started with. Pass it to approveInterruptions (with the same options as before: the
 * inquiries already asked are found again, answered or not), then to run(agent, state).
 * options.RunState is the app's RunState class, when the app may have its own copy of the SDK.
 */
export async function loadRunState<TAgent extends Agent<any, any>>(
  hitl: HitlClient,
  agent: TAgent,
  key: string,
  options: LoadRunStateOptions = {},
): Promise<RunState<any, TAgent>> {
  checkClient(hitl, "loadRunState");
  const a = agent as Partial<Agent<any, any>> | null | undefined;
  if (typeof a !== "object" || a === null || typeof a.name !== "string" || !Array.isArray(a.tools)) {
    throw new TypeError(`loadRunState needs the agent the run started with as its second argument, loadRunState(hitl, agent, key); it was given ${describe(agent)}`);
  }
  checkKey("loadRunState", key, "loadRunState(hitl, agent, key)");
  checkOptions("loadRunState", options, { own: ["signal", "RunState"] });
  const Class = options.RunState ?? RunState;
  if (typeof Class?.fromString !== "function") {
    throw new TypeError(`loadRunState: option RunState must be the RunState class of @openai/agents (import { RunState } from "@openai/agents"), not ${describe(Class)}`);
  }
  const session = await hitl.getSession(key, { signal: options.signal });
  const saved = session.state as Partial<SavedState> | null | undefined;
  if (!saved || saved.format !== RUN_STATE_FORMAT || typeof saved.run_state !== "string") {
    throw new Error(`hitl session "${key}" holds no saved @openai/agents run state (approveInterruptions saves it when given { session: "${key}" })`);
  }
  return (await Class.fromString(agent, saved.run_state)) as unknown as RunState<any, TAgent>;
}

function checkKey(fn: string, key: unknown, usage: string): void {
  if (typeof key !== "string" || key === "") {
    throw new TypeError(`${fn} needs the hitl session's key (a non-empty string), ${usage}; it was given ${describe(key)}`);
  }
}

function stateOf<S extends AnyState>(result: { state: S } | S): S {
  const candidate = ((result as { state?: unknown })?.state ?? result) as Partial<AnyState> | undefined;
  // By shape rather than instanceof, so that a second copy of the SDK in node_modules works too.
  if (typeof candidate?.getInterruptions !== "function" || typeof candidate.approve !== "function" || typeof candidate.reject !== "function") {
    throw new TypeError("expected the result of run() from @openai/agents, or its state (a RunState)");
  }
  return candidate as S;
}

function callId(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  return raw.callId ?? raw.id ?? "";
}

/** pendingCall reads an approval item: the call, and the tool's parameters schema. */
async function pendingCall(item: RunToolApprovalItem, state: AnyState): Promise<{ call: PendingToolCall; schema?: Record<string, unknown> }> {
  const id = callId(item);
  const name = item.name ?? item.rawItem.type;
  if (!id) throw new Error(`the approval item for ${name} has no call id`);
  const call: PendingToolCall = { id, name, arguments: parseArguments(item), agent: item.agent.name, item };
  if (item.rawItem.type !== "function_call") return { call };
  const schema = (await functionTool(item, state)).parameters as Record<string, unknown>;
  return { call, schema };
}

function parseArguments(item: RunToolApprovalItem): unknown {
  const text = item.arguments;
  if (text === undefined) return (item.rawItem as { action?: unknown }).action ?? null;
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch {
    throw new Error(`the arguments of tool call ${callId(item)} (${item.name}) are not JSON: ${text.slice(0, 200)}`);
  }
}

async function functionTool(item: RunToolApprovalItem, state: AnyState): Promise<{ parameters: unknown }> {
  const agent = item.agent;
  const find = (tools: readonly { type: string; name?: string }[]) =>
    tools.find((t) => t.type === "function" && t.name === item.name) as { parameters: unknown } | undefined;
  let tool = find(agent.tools);
  if (!tool) {
    try {
      tool = find(await agent.getAllTools(state._context));
    } catch {
      // the agent's dynamic tools (MCP servers) could not be listed: said below.
    }
  }
  if (!tool) {
    const names = agent.tools.map((t: { name?: string }) => t.name).filter(Boolean).join(", ") || "none";
    throw new Error(`agent "${agent.name}" has no function tool named "${item.name}" (its tools: ${names}): give approveInterruptions the state of a run of the agent that made the call`);
  }
  return tool;
}

/** withEditedArguments rebuilds state with the calls' arguments replaced (call id → JSON text). */
async function withEditedArguments(state: AnyState, edits: Map<string, string>, agent?: Agent<any, any>): Promise<AnyState> {
  const json = JSON.parse(state.toString()) as unknown;
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const o = node as Record<string, unknown>;
    if (typeof o.callId === "string" && edits.has(o.callId) && typeof o.arguments === "string" && (o.type === undefined || o.type === "function_call")) {
      o.arguments = edits.get(o.callId);
      found.add(o.callId);
    }
    Object.values(o).forEach(visit);
  };
  visit(json);
  for (const id of edits.keys()) {
    if (!found.has(id)) throw new Error(`tool call ${id} is not in the serialized run state: cannot apply the person's edit`);
  }
  const starting = agent ?? state.currentAgent;
  // The state's own class: the app's copy of the SDK, whose run() takes only its own RunState.
  const own = state.constructor as Partial<RunStateClass> | undefined;
  const Class = typeof own?.fromStringWithContext === "function" ? (own as RunStateClass) : RunState;
  try {
    return await Class.fromStringWithContext(starting, JSON.stringify(json), state._context);
  } catch (err) {
    throw new Error(`could not rebuild the run state with the person's edited arguments (${err instanceof Error ? err.message : String(err)}); if the run went through a handoff, pass { agent } the agent it started with`, { cause: err });
  }
}
