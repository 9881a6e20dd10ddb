import { randomUUID } from "node:crypto";
import type { components, paths } from "./openapi.js";
import { loadCredentials, type Environment } from "./credentials.js";
import { HitlError, UnreachableError, type Inquiry } from "./errors.js";
import { Waiter, type WaitMessage } from "./waiter.js";
import type { ReceiptRedemption } from "./receipt.js";
import { toolReviewInquiry, toolReviewResult, type ToolReviewRequest, type ToolReviewResult } from "./toolreview.js";

export type InquiryRequest = components["schemas"]["InquiryRequest"];
export type Principal = components["schemas"]["Principal"];
export type Event = components["schemas"]["Event"];
export type ToolCall = components["schemas"]["ToolCall"];
export type ToolResult = components["schemas"]["ToolResult"];
export type Session = components["schemas"]["Session"];
export type SessionRequest = components["schemas"]["SessionRequest"];
export type { ToolReviewRequest, ToolReviewResult };
export type ListInquiriesQuery = NonNullable<paths["/v1/inquiries"]["get"]["parameters"]["query"]>;
export interface InquiryPage {
  data: Inquiry[];
  next_cursor: string | null;
}

/** How long a wait stream may stay silent (the server pings every 15 s) before it is dropped. */
const SILENT_STREAM_MS = 45_000;

/** The server a client commands by default when nothing else names one, as the CLI does. */
export const DEFAULT_URL = "http://127.0.0.1:7447";

export interface HitlClientOptions {
  /** The server; else HITL_URL, else the credentials file's, else http://127.0.0.1:7447. */
  url?: string;
  /** The API token; else HITL_TOKEN, else the credentials file's. */
  token?: string;
  /**
   * How long ask() and events() keep retrying while the server does not answer (network
   * errors, 5xx), in milliseconds, before they throw an UnreachableError; default 15 s, as the
   * Go client's GiveUpAfter. Each answer from the server starts the count again, so a server
   * that restarts within it is ridden out.
   */
  giveUpAfterMs?: number;
  /** Environment to read HITL_URL, HITL_TOKEN and the credentials path from (tests). */
  env?: Environment;
}

export interface AskOptions {
  /** Aborts the ask: creating, waiting and any backoff between tries. */
  signal?: AbortSignal;
  /** Identifies this question across retries and restarts of the asker; random when absent. */
  idempotencyKey?: string;
  /** How long each long poll lasts, in seconds (default 30, at most 300). */
  pollSeconds?: number;
  /** Called once the inquiry exists, with it: to log its id or show where to answer it. */
  onCreated?: (inquiry: Inquiry) => void;
  /**
   * Waits for the answer on this Waiter's shared streams rather than with long polls of its
   * own (see HitlClient.waiter()); pollSeconds does not apply then.
   */
  waiter?: Waiter;
}

export interface EventsOptions {
  /** Start after this event seq (0: from the beginning of the log the caller may see). */
  after?: number;
  /** Only events of these types, sessions or inquiry (server-side filters). */
  type?: string;
  session?: string;
  inquiryId?: number;
  signal?: AbortSignal;
}

/** Whether a failure is worth trying again: the network, or the server's 5xx and 429. */
function retryable(err: unknown): boolean {
  if (err instanceof HitlError) return err.status >= 500 || err.status === 429;
  return !(err instanceof Error && err.name === "AbortError");
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** errorFrom turns a refusal into a HitlError, with its problem details when it has them. */
async function errorFrom(res: Response): Promise<HitlError> {
  const text = await res.text();
  try {
    return new HitlError(res.status, JSON.parse(text));
  } catch {
    return new HitlError(res.status, { detail: text.trim() || res.statusText });
  }
}

/**
 * Retry paces the tries of one call that fails: backoff doubling from 100 ms to 2 s, and an
 * UnreachableError once failures have lasted giveUpAfterMs.
 */
class Retry {
  private failingSince?: number;
  private backoffMs = 100;
  constructor(private readonly url: string, private readonly giveUpAfterMs: number) {}

  /** after throws err when it is not worth another try, else waits before the next one. */
  async after(err: unknown, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    if (!retryable(err)) throw err;
    this.failingSince ??= Date.now();
    if (Date.now() - this.failingSince >= this.giveUpAfterMs) throw new UnreachableError(this.url, this.giveUpAfterMs, err);
    await sleep(this.backoffMs, signal);
    this.backoffMs = Math.min(this.backoffMs * 2, 2_000);
  }
}

/**
 * HitlClient talks to a hitl server's HTTP API (v1). Every method throws a HitlError for a
 * problem+json answer; ask() and events() also ride out dropped connections and restarts.
 */
export class HitlClient {
  readonly url: string;
  readonly token: string;
  readonly giveUpAfterMs: number;

  constructor(options: HitlClientOptions = {}) {
    const env = options.env ?? process.env;
    let url = options.url || env.HITL_URL;
    let token = options.token || env.HITL_TOKEN;
    if (!url || !token) {
      const file = loadCredentials(env);
      url ||= file.url;
      token ||= file.token;
    }
    if (!token) {
      throw new Error("no hitl token: pass { token }, set HITL_TOKEN, or run 'hitl serve' on this machine once to write the credentials file");
    }
    this.url = (url || DEFAULT_URL).replace(/\/+$/, "");
    this.token = token;
    this.giveUpAfterMs = options.giveUpAfterMs ?? 15_000;
  }

  /** request sends one call and returns the decoded JSON answer, or throws a HitlError. */
  async request<T>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: "application/json", ...options.headers };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(this.url + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    if (!res.ok) throw await errorFrom(res);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * createInquiry asks a question (POST /v1/inquiries); the same idempotencyKey returns the
   * first. With retry (and an idempotencyKey) it rides out dropped connections, restarts, 5xx
   * and 429 as ask() does, without asking twice.
   */
  createInquiry(request: InquiryRequest, options: { idempotencyKey?: string; signal?: AbortSignal; retry?: boolean } = {}): Promise<Inquiry> {
    const { idempotencyKey, signal } = options;
    const headers: Record<string, string> = {};
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    const once = () => this.request<Inquiry>("POST", "/v1/inquiries", { body: request, headers, signal });
    if (!options.retry) return once();
    if (!idempotencyKey) throw new TypeError("createInquiry retries only with an idempotencyKey: without one a retry could ask twice");
    return this.retrying(once, signal);
  }

  getInquiry(id: number, options: { signal?: AbortSignal } = {}): Promise<Inquiry> {
    return this.request("GET", `/v1/inquiries/${id}`, options);
  }

  /** listInquiries returns one page; pass its next_cursor as cursor for the next. */
  listInquiries(query: ListInquiriesQuery = {}, options: { signal?: AbortSignal } = {}): Promise<InquiryPage> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null) params.set(k, String(v));
    }
    const qs = params.toString();
    return this.request("GET", "/v1/inquiries" + (qs ? `?${qs}` : ""), options);
  }

  /** respond answers an inquiry; the answer must fit its schema or options (else 422). */
  respond(id: number, response: unknown, comment?: string, options: { signal?: AbortSignal } = {}): Promise<Inquiry> {
    const body: Record<string, unknown> = { response };
    if (comment !== undefined) body.comment = comment;
    return this.request("POST", `/v1/inquiries/${id}/respond`, { body, signal: options.signal });
  }

  cancel(id: number, reason?: string, options: { signal?: AbortSignal } = {}): Promise<Inquiry> {
    return this.request("POST", `/v1/inquiries/${id}/cancel`, { body: reason === undefined ? {} : { reason }, signal: options.signal });
  }

  /** wait long-polls: the inquiry as soon as it ends, or still pending after timeoutSeconds. */
  wait(id: number, timeoutSeconds = 30, options: { signal?: AbortSignal } = {}): Promise<Inquiry> {
    return this.request("GET", `/v1/inquiries/${id}/wait?timeout=${timeoutSeconds}s`, options);
  }

  /**
   * putSession creates or updates the session (one agent run) named key: its agent, and its
   * state, the agent's serialized execution state kept for resuming the run (PUT
   * /v1/sessions/{key}). A finished session cannot be updated (409).
   */
  putSession(key: string, session: SessionRequest, options: { signal?: AbortSignal } = {}): Promise<Session> {
    return this.request("PUT", `/v1/sessions/${encodeURIComponent(key)}`, { body: session, signal: options.signal });
  }

  /** getSession returns the session named key, with its saved state (404 when unknown). */
  getSession(key: string, options: { signal?: AbortSignal } = {}): Promise<Session> {
    return this.request("GET", `/v1/sessions/${encodeURIComponent(key)}`, options);
  }

  /** completeSession marks the run finished, with its result (409 when it already is). */
  completeSession(key: string, result?: unknown, options: { signal?: AbortSignal } = {}): Promise<Session> {
    return this.request("POST", `/v1/sessions/${encodeURIComponent(key)}/complete`, { body: result === undefined ? {} : { result }, signal: options.signal });
  }

  /**
   * jwks is the server's receipt signing keys (GET /.well-known/jwks.json), the current key
   * first and the previous one second: what verifyReceipt checks a receipt against. Fetch it
   * once and keep it for a few minutes (the server says max-age=300), not once per receipt.
   */
  jwks(options: { signal?: AbortSignal } = {}): Promise<components["schemas"]["JWKS"]> {
    return this.request("GET", "/.well-known/jwks.json", options);
  }

  /**
   * redeemReceipt marks a receipt used (POST /v1/receipts/{jti}/redeem), for an executor that
   * runs an approved call once only: the first redemption answers who redeemed it when; any
   * later one, on any node, throws a HitlError 409 ("already redeemed at ... by ..."), as does an
   * expired receipt; an unknown jti a 404.
   */
  redeemReceipt(jti: string, options: { signal?: AbortSignal } = {}): Promise<ReceiptRedemption> {
    return this.request("POST", `/v1/receipts/${encodeURIComponent(jti)}/redeem`, options);
  }

  /** me is who the token belongs to: name, roles and groups. */
  me(options: { signal?: AbortSignal } = {}): Promise<Principal> {
    return this.request("GET", "/v1/me", options);
  }

  /**
   * retrying runs call until it succeeds, backing off on network errors, 5xx and 429, and
   * gives up with an UnreachableError when failures have lasted giveUpAfterMs.
   */
  private async retrying<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const retry = new Retry(this.url, this.giveUpAfterMs);
    for (;;) {
      signal?.throwIfAborted();
      try {
        return await call();
      } catch (err) {
        await retry.after(err, signal);
      }
    }
  }

  /**
   * ask creates the inquiry and waits until it ends, then returns it as it ended: status
   * responded (response is the answer), timeout (response is the fallback value when a
   * fallback policy applied) or cancelled. Dropped connections and server restarts are
   * retried: the idempotency key makes sure a retried create never asks twice, and the wait
   * resumes by id.
   */
  async ask(request: InquiryRequest, options: AskOptions = {}): Promise<Inquiry> {
    const { signal } = options;
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    let inquiry = await this.createInquiry(request, { idempotencyKey, signal, retry: true });
    options.onCreated?.(inquiry);
    if (options.waiter && inquiry.status === "pending") return options.waiter.wait(inquiry.id, { signal });
    const pollSeconds = options.pollSeconds ?? 30;
    while (inquiry.status === "pending") {
      const id = inquiry.id;
      inquiry = await this.retrying(() => this.wait(id, pollSeconds, { signal }), signal);
    }
    return inquiry;
  }

  /**
   * reviewToolCall asks a person to decide about a call of one of the model's tools before it
   * runs, as the Go client's ReviewToolCall: request is the approval (prompt, assignees,
   * deadline, ...) of request.tool_call, which gives the call's id, name and arguments, and, to
   * let the person edit the arguments, the tool's parameters_schema with "edit" among
   * allowed_decisions (the default is approve or reject). It waits as ask() does and returns the tool result bound to the call: run says
   * whether to run the tool, with arguments (the proposed ones or the person's edit); when run
   * is false, message and content say why not, or what the person answered instead. A deadline
   * or a cancellation is a result with run false. The call's id is the idempotency key, so an
   * asker that retries after a crash gets the same inquiry, never a second one.
   */
  async reviewToolCall(request: ToolReviewRequest, options: Omit<AskOptions, "idempotencyKey"> = {}): Promise<ToolReviewResult> {
    const review = toolReviewInquiry(request);
    return toolReviewResult(await this.ask(review.request, { ...options, idempotencyKey: review.idempotencyKey }));
  }

  /**
   * waitMany waits on many inquiries with one request (POST /v1/inquiries/wait, at most
   * 10,000 ids) and yields each line the server sends but its pings, in order: each final
   * inquiry once, an error for each id that cannot be waited on, "waiting" once all are
   * registered, and "end" last (with the ids still pending), after which it returns. A stream
   * that breaks before its end throws: wait again (a Waiter does that for you).
   */
  async *waitMany(ids: number[], timeoutSeconds = 300, options: { signal?: AbortSignal } = {}): AsyncGenerator<WaitMessage, void, undefined> {
    const outer = options.signal;
    const controller = new AbortController();
    const onAbort = () => controller.abort(outer!.reason);
    outer?.throwIfAborted();
    outer?.addEventListener("abort", onAbort, { once: true });
    // The server pings every 15 s while it waits: silence well beyond that means the server
    // or the connection is gone, which a half-open TCP connection would not say.
    let silence: ReturnType<typeof setTimeout> | undefined;
    const listen = () => {
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(new Error("the wait stream fell silent")), SILENT_STREAM_MS);
    };
    try {
      listen();
      const res = await fetch(this.url + "/v1/inquiries/wait", {
        method: "POST",
        headers: { Authorization: `Bearer ${this.token}`, Accept: "application/x-ndjson", "Content-Type": "application/json" },
        body: JSON.stringify({ ids, timeout: `${timeoutSeconds}s` }),
        signal: controller.signal,
      });
      if (!res.ok) throw await errorFrom(res);
      for await (const line of readLines(res.body!)) {
        listen();
        if (line === "") continue;
        const message = JSON.parse(line) as WaitMessage;
        if (message.type === "ping") continue;
        yield message;
        if (message.type === "end") return;
      }
      throw new Error("the wait stream ended before its end line");
    } finally {
      clearTimeout(silence);
      outer?.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }

  /** waiter returns a Waiter: many waits of this client over a few shared streams. */
  waiter(): Waiter {
    return new Waiter(this);
  }

  /**
   * events yields the events the caller may see from GET /v1/events/stream (Server-Sent
   * Events), oldest first, starting after `after`. When the connection drops or the server
   * restarts it reconnects with Last-Event-ID, so no event is lost or repeated. Break out of
   * the loop, or abort the signal, to stop.
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<Event, void, undefined> {
    let after = options.after ?? 0;
    const params = new URLSearchParams();
    if (options.type) params.set("type", options.type);
    if (options.session) params.set("session", options.session);
    if (options.inquiryId !== undefined) params.set("inquiry_id", String(options.inquiryId));
    const path = "/v1/events/stream" + (params.size ? `?${params}` : "");
    const outer = options.signal;
    let retry = new Retry(this.url, this.giveUpAfterMs);
    for (;;) {
      outer?.throwIfAborted();
      // Our own controller, so that leaving the loop early closes the connection.
      const controller = new AbortController();
      const onAbort = () => controller.abort(outer!.reason);
      outer?.addEventListener("abort", onAbort, { once: true });
      try {
        const res = await fetch(this.url + path, {
          headers: { Authorization: `Bearer ${this.token}`, Accept: "text/event-stream", "Last-Event-ID": String(after) },
          signal: controller.signal,
        });
        if (!res.ok) throw await errorFrom(res);
        retry = new Retry(this.url, this.giveUpAfterMs);
        for await (const message of parseSSE(res.body!)) {
          if (message.event === "reset") {
            // The server says where to resume (we fell behind, or asked after an unknown seq).
            after = Number(JSON.parse(message.data).resume_after);
            break;
          }
          if (message.event === "start" || message.data === "") continue;
          const event = JSON.parse(message.data) as Event;
          after = event.seq;
          yield event;
        }
      } catch (err) {
        await retry.after(err, outer);
      } finally {
        outer?.removeEventListener("abort", onAbort);
        controller.abort();
      }
    }
  }
}

interface SSEMessage {
  event: string;
  data: string;
  id?: string;
}

/** readLines yields a streamed body's lines, without their ends (\n, \r\n or \r). */
async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      yield line;
    }
  }
}

/** parseSSE splits a text/event-stream body into its messages (comments are heartbeats). */
async function* parseSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEMessage> {
  let message: SSEMessage = { event: "message", data: "" };
  let hasData = false;
  for await (const line of readLines(body)) {
    if (line === "") {
      if (hasData) yield message;
      message = { event: "message", data: "" };
      hasData = false;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") message.event = value;
    else if (field === "id") message.id = value;
    else if (field === "data") {
      message.data = hasData ? `${message.data}\n${value}` : value;
      hasData = true;
    }
  }
}
