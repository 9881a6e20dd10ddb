// @hitl/client/langgraph: hitl behind LangGraph.js's interrupt(). askHuman, called inside a
// graph node, asks hitl once per interrupt and interrupts the graph, which checkpoints and
// stops; resumeWhenAnswered waits for the answers and resumes the thread with them.
//
// Tested with @langchain/langgraph 1.7.3 and @langchain/core 1.4.0.
import { createHash } from "node:crypto";
import { Command, getConfig, interrupt } from "@langchain/langgraph";
import type { StateSnapshot } from "@langchain/langgraph";
import type { HumanInterrupt, HumanResponse } from "@langchain/langgraph/prebuilt";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { HitlClient, InquiryRequest, ToolCall } from "./client.js";
import type { Inquiry } from "./errors.js";
import { toolReviewInquiry, toolReviewResult } from "./toolreview.js";
import type { Waiter } from "./waiter.js";
import { checkClient, checkOptions, describe } from "./options.js";

export type { HumanInterrupt, HumanResponse };

/** What askHuman asks: a hitl inquiry request, or Agent Inbox's HumanInterrupt. */
export type HumanRequest = InquiryRequest | HumanInterrupt;

export interface AskHumanOptions {
  /**
   * Inquiry fields added to the inquiry made from a HumanInterrupt (assigned_to,
   * timeout_seconds, fallback_policy and fallback_value, context, session, ...), or to a plain
   * request's own fields.
   */
  inquiry?: Omit<Partial<InquiryRequest>, "tool_call" | "allowed_decisions">;
  /**
   * The JSON Schema of the HumanInterrupt's args, which an edit must fit; without it an edit
   * may be any JSON object.
   */
  parametersSchema?: Record<string, unknown>;
  /** Aborts creating the inquiry. */
  signal?: AbortSignal;
}

export interface ResumeOptions {
  /** Waits on this Waiter's streams (else one of its own, closed when done). */
  waiter?: Waiter;
  /** Aborts the wait; the thread stays interrupted, to be resumed later. */
  signal?: AbortSignal;
}

/** Where askHuman's inquiry is recorded in the interrupt's value, beside the request. */
export interface HitlInterruptMark {
  id: number;
  /** human_interrupt: answered with a HumanResponse; inquiry: with the inquiry's response. */
  kind: "human_interrupt" | "inquiry";
}

/** The value resumeWhenAnswered resumes an askHuman interrupt with. */
export interface HitlResume {
  hitl_inquiry: { id: number; status: Inquiry["status"]; fallback_applied?: boolean; responded_by?: string | null; reason?: string | null };
  /** What askHuman returns; absent when the inquiry ended without an answer. */
  answer?: unknown;
}

/**
 * InquiryEndedError is what askHuman throws, inside the node, when its inquiry ended without
 * an answer: cancelled (by the asker, an admin, or a person who declined it) or timed out
 * without a fallback value. Catch it in the node to carry on without the answer; uncaught, it
 * fails the run as any error of a node does.
 */
export class InquiryEndedError extends Error {
  readonly inquiryId: number;
  readonly status: "timeout" | "cancelled";
  readonly reason?: string;
  constructor(inquiryId: number, status: "timeout" | "cancelled", reason?: string | null) {
    super(status === "timeout"
      ? `inquiry ${inquiryId} timed out without an answer` + (reason ? `: ${reason}` : "")
      : `inquiry ${inquiryId} was cancelled` + (reason ? `: ${reason}` : ""));
    this.name = "InquiryEndedError";
    this.inquiryId = inquiryId;
    this.status = status;
    this.reason = reason ?? undefined;
  }
}

/** The longest place key used as it is; longer ones are hashed (idempotency keys ≤ 200). */
const MAX_PLAIN_KEY = 150;

/** Scratchpad is the part of LangGraph's per-task scratchpad interrupt() counts with. */
interface Scratchpad {
  interruptCounter: number;
  resume: unknown[];
  nullResume?: unknown;
}

/** The askHuman calls under way, per task: two at once would claim the same interrupt index. */
const busy = new WeakSet<Scratchpad>();

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isHumanInterrupt(request: unknown): request is HumanInterrupt {
  return isObject(request) && "action_request" in request;
}

/** checkRequest refuses, with a sentence for people, what askHuman cannot ask. */
function checkRequest(request: unknown): asserts request is HumanRequest {
  if (!isObject(request)) {
    throw new TypeError("askHuman needs a request: a hitl inquiry request ({ prompt, ... }) or an Agent Inbox HumanInterrupt ({ action_request, config, description })");
  }
  if (isHumanInterrupt(request)) {
    const action = request.action_request;
    if (!isObject(action) || typeof action.action !== "string" || action.action === "") {
      throw new TypeError("askHuman: the HumanInterrupt's action_request needs an action (the name of what is to be done)");
    }
    if (action.args !== undefined && !isObject(action.args)) {
      throw new TypeError(`askHuman: the HumanInterrupt's action_request.args must be an object of arguments, not ${JSON.stringify(action.args)}`);
    }
    const c = request.config;
    if (!isObject(c) || !(c.allow_accept || c.allow_edit || c.allow_respond || c.allow_ignore)) {
      throw new TypeError("askHuman: the HumanInterrupt's config allows no answer: set at least one of allow_accept, allow_edit, allow_respond, allow_ignore");
    }
    return;
  }
  const prompt = (request as InquiryRequest).prompt;
  if ((typeof prompt !== "string" || prompt.trim() === "") && !(request as InquiryRequest).template) {
    throw new TypeError("askHuman needs a request with a prompt (a hitl inquiry request) or an action_request (an Agent Inbox HumanInterrupt); this one has neither");
  }
}

/** The running node's place: the thread, the task's namespace, the index of this interrupt. */
interface Place {
  scratchpad: Scratchpad;
  key: string;
  threadId: string;
  node: string;
  /** Whether LangGraph already holds the resume value for this interrupt. */
  resuming: boolean;
}

function placeOfThisCall(): Place {
  let config: RunnableConfig | undefined;
  try {
    config = getConfig();
  } catch {
    config = undefined;
  }
  const conf = config?.configurable as Record<string, unknown> | undefined;
  const scratchpad = conf?.["__pregel_scratchpad"] as Scratchpad | undefined;
  if (!conf || !scratchpad || typeof scratchpad.interruptCounter !== "number" || !Array.isArray(scratchpad.resume)) {
    throw new Error("askHuman must be called inside a LangGraph node, while the graph runs: outside a graph there is nothing to interrupt");
  }
  if (!conf["__pregel_checkpointer"]) {
    throw new Error("askHuman needs a graph compiled with a checkpointer (graph.compile({ checkpointer })): an interrupted graph resumes from its checkpoint");
  }
  const threadId = conf.thread_id;
  if (threadId === undefined || threadId === null || threadId === "") {
    throw new Error("askHuman needs the run's thread: invoke the graph with { configurable: { thread_id } }");
  }
  // The task's namespace ("node:task-id", nested for subgraphs) is what LangGraph keys its own
  // interrupt ids on: it is the same when the node runs again on resume, and differs when the
  // node runs again at a later step. With the thread and the index, it names this interrupt.
  const ns = String(conf.checkpoint_ns ?? "");
  const index = scratchpad.interruptCounter + 1;
  let key = `langgraph:${threadId}:${ns}:${index}`;
  if (key.length > MAX_PLAIN_KEY) key = "langgraph:sha256:" + createHash("sha256").update(JSON.stringify([String(threadId), ns, index])).digest("hex");
  const node = String(config?.metadata?.langgraph_node ?? ns.split(":")[0]);
  const resuming = index < scratchpad.resume.length || scratchpad.nullResume !== undefined;
  return { scratchpad, key, threadId: String(threadId), node, resuming };
}

/** inquiryFor makes the inquiry (and its idempotency key) that asks request at place. */
function inquiryFor(request: HumanRequest, place: Place, options: AskHumanOptions): { request: InquiryRequest; idempotencyKey: string } {
  const metadata = { ...options.inquiry?.metadata, ...(request as InquiryRequest).metadata, langgraph_thread_id: place.threadId, langgraph_node: place.node };
  if (!isHumanInterrupt(request)) {
    return { request: { ...options.inquiry, ...request, metadata }, idempotencyKey: place.key };
  }
  const c = request.config;
  // allow_ignore is a decision the person takes (do not do it, carry on), so it is hitl's
  // reject, which answers the inquiry; a cancellation would say nobody answered, and fail the
  // inquiry's session.
  const decisions = [
    ...(c.allow_accept ? ["approve" as const] : []),
    ...(c.allow_edit ? ["edit" as const] : []),
    ...(c.allow_respond ? ["respond" as const] : []),
    ...(c.allow_ignore ? ["reject" as const] : []),
  ];
  const call: ToolCall = { id: place.key, name: request.action_request.action, arguments: request.action_request.args ?? {} };
  if (options.parametersSchema) call.parameters_schema = options.parametersSchema;
  else if (c.allow_edit) call.parameters_schema = { type: "object" };
  return toolReviewInquiry({
    ...options.inquiry,
    ...(request.description ? { prompt: request.description } : {}),
    tool_call: call,
    allowed_decisions: decisions,
    metadata,
  });
}

/** answerOf turns the resume value into askHuman's answer (or the error of no answer). */
function answerOf(value: unknown): unknown {
  if (!isObject(value) || !isObject(value.hitl_inquiry)) return value; // resumed by hand: as given
  const resume = value as unknown as HitlResume;
  if ("answer" in resume) return resume.answer;
  const { id, status, reason } = resume.hitl_inquiry;
  throw new InquiryEndedError(id, status === "timeout" ? "timeout" : "cancelled", reason);
}

/**
 * askHuman asks a person, from inside a LangGraph node, and returns the answer. The first time
 * it creates a hitl inquiry and calls LangGraph's interrupt(), so the graph checkpoints and
 * stops (graph.invoke returns with __interrupt__); resumeWhenAnswered(hitl, graph, config)
 * resumes the thread once the inquiry is answered, the node runs again from its start, and
 * this call returns the answer.
 *
 * request is a hitl inquiry request, answered with the inquiry's response (a fallback value
 * when the deadline passed under a fallback policy), or Agent Inbox's HumanInterrupt, answered
 * with a HumanResponse: allow_accept is hitl's approve (type "accept"), allow_edit its edit
 * (type "edit", args the action with the edited arguments), allow_respond its respond (type
 * "response", args the person's text) and allow_ignore its reject (type "ignore", args the
 * person's reason or null). When the inquiry ends without an answer (cancelled, or timed out
 * without a fallback) it throws an InquiryEndedError.
 *
 * One inquiry per interrupt: the inquiry is keyed on the thread, the node's task and the
 * interrupt's index in it, so running the node again asks nothing new. Several askHuman in one
 * node are awaited one after another, as LangGraph's interrupts are; do not wrap askHuman in a
 * try/catch that swallows LangGraph's GraphInterrupt.
 */
export async function askHuman(hitl: HitlClient, request: HumanInterrupt, options?: AskHumanOptions): Promise<HumanResponse>;
export async function askHuman<T = unknown>(hitl: HitlClient, request: InquiryRequest, options?: AskHumanOptions): Promise<T>;
export async function askHuman(hitl: HitlClient, request: HumanRequest, options: AskHumanOptions = {}): Promise<unknown> {
  checkClient(hitl, "askHuman");
  checkRequest(request);
  checkOptions("askHuman", options, {
    own: ["inquiry", "parametersSchema", "signal"],
    misplacedField: (name) => `unknown option "${name}": inquiry fields go under { inquiry: {...} }, as askHuman(hitl, request, { inquiry: { ${name}: ... } })`,
  });
  checkOptions("askHuman's { inquiry }", options.inquiry, {
    own: [],
    inquiry: { except: ["tool_call", "allowed_decisions"] },
    misplacedField: (name) => `"${name}" cannot be set: askHuman makes it from the HumanInterrupt (its action_request and config)`,
  });
  const place = placeOfThisCall();
  if (place.resuming) return answerOf(interrupt(undefined));
  if (busy.has(place.scratchpad)) {
    throw new Error("askHuman was called again in the same node before the first call returned: await each askHuman before the next, as LangGraph's interrupts are counted in order");
  }
  busy.add(place.scratchpad);
  let inquiry: Inquiry;
  try {
    const ask = inquiryFor(request, place, options);
    inquiry = await hitl.createInquiry(ask.request, { idempotencyKey: ask.idempotencyKey, signal: options.signal, retry: true });
  } finally {
    busy.delete(place.scratchpad);
  }
  const hitl_inquiry: HitlInterruptMark = { id: inquiry.id, kind: isHumanInterrupt(request) ? "human_interrupt" : "inquiry" };
  // Throws LangGraph's GraphInterrupt: the graph checkpoints and stops here.
  return answerOf(interrupt({ ...request, hitl_inquiry }));
}

/** resumeOf is the resume value for an ended inquiry asked as kind. */
export function resumeOf(inquiry: Inquiry, kind: HitlInterruptMark["kind"]): HitlResume {
  const hitl_inquiry: HitlResume["hitl_inquiry"] = {
    id: inquiry.id,
    status: inquiry.status,
    ...(inquiry.fallback_applied ? { fallback_applied: true } : {}),
    ...(inquiry.responded_by ? { responded_by: inquiry.responded_by } : {}),
  };
  const ended = (): HitlResume => ({ hitl_inquiry: { ...hitl_inquiry, reason: inquiry.cancel_reason ?? null } });
  if (kind === "inquiry") {
    if (inquiry.status === "responded" || (inquiry.status === "timeout" && inquiry.fallback_applied)) return { hitl_inquiry, answer: inquiry.response };
    return ended();
  }
  if (inquiry.status === "pending") throw new Error(`inquiry ${inquiry.id} is still pending`);
  const result = toolReviewResult(inquiry);
  let answer: HumanResponse;
  switch (result.decision) {
    case "approve":
      answer = { type: "accept", args: null };
      break;
    case "edit":
      answer = { type: "edit", args: { action: inquiry.tool_call?.name ?? "", args: (result.arguments ?? {}) as Record<string, unknown> } };
      break;
    case "respond":
      answer = { type: "response", args: result.message ?? "" };
      break;
    case "reject":
      answer = { type: "ignore", args: result.message ?? null };
      break;
    default:
      return ended();
  }
  return { hitl_inquiry, answer };
}

/** A compiled LangGraph graph (StateGraph, functional API, Pregel): what resuming uses of it. */
export interface ResumableGraph<Result> {
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  // The input is a Command; typed loosely, as each graph types its Command by its own nodes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  invoke(input: any, config?: RunnableConfig): Promise<Result>;
}

/**
 * resumeWhenAnswered resumes a thread interrupted by askHuman: it reads the thread's pending
 * interrupts (graph.getState(config)), waits until each of their hitl inquiries has ended —
 * riding out dropped connections and hitl restarts — and resumes the thread with
 * new Command({ resume }) (a map by interrupt id, so interrupts of parallel nodes resume at
 * once). It returns what graph.invoke returns: the graph may have interrupted again (a second
 * askHuman in the node, or one in a later node); isInterrupted(result) from
 * @langchain/langgraph says so, and then call resumeWhenAnswered again.
 *
 * It works in any process that has the graph with the same checkpointer: the process that
 * asked may have stopped. One process at a time should resume a thread.
 */
export async function resumeWhenAnswered<Result>(hitl: HitlClient, graph: ResumableGraph<Result>, config: RunnableConfig, options: ResumeOptions = {}): Promise<Result> {
  checkClient(hitl, "resumeWhenAnswered");
  if (typeof graph?.getState !== "function" || typeof graph.invoke !== "function") {
    throw new TypeError(`resumeWhenAnswered needs the compiled graph as its second argument, resumeWhenAnswered(hitl, graph, config); it was given ${describe(graph)}`);
  }
  checkOptions("resumeWhenAnswered", options, { own: ["waiter", "signal"] });
  if (config?.configurable?.thread_id === undefined) {
    throw new TypeError("resumeWhenAnswered needs the thread to resume: pass the config the graph was invoked with, { configurable: { thread_id } }");
  }
  const snapshot = await graph.getState(config);
  const pending = snapshot.tasks.flatMap((task) => task.interrupts.map((it) => ({ task, it })));
  if (pending.length === 0) {
    throw new Error(`thread ${config.configurable.thread_id} has no pending interrupt to resume: it finished, or was never interrupted`);
  }
  const asked = pending.map(({ task, it }) => {
    const mark = isObject(it.value) ? it.value.hitl_inquiry : undefined;
    if (!isObject(mark) || typeof mark.id !== "number" || (mark.kind !== "inquiry" && mark.kind !== "human_interrupt")) {
      throw new Error(`the interrupt of node ${task.name} in thread ${config.configurable!.thread_id} was not made by askHuman: resume it yourself with new Command({ resume })`);
    }
    if (pending.length > 1 && !it.id) throw new Error(`the interrupt of node ${task.name} has no id: several interrupts need ids to be resumed at once`);
    return { id: it.id, mark: mark as unknown as HitlInterruptMark };
  });
  const waiter = options.waiter ?? hitl.waiter();
  let ended: Inquiry[];
  try {
    ended = await waiter.waitAll(asked.map((a) => a.mark.id), { signal: options.signal });
  } finally {
    if (!options.waiter) waiter.close();
  }
  const values = asked.map((a, i) => resumeOf(ended[i], a.mark.kind));
  const resume = asked.every((a) => a.id) ? Object.fromEntries(asked.map((a, i) => [a.id!, values[i]])) : values[0];
  return graph.invoke(new Command({ resume }), config);
}
