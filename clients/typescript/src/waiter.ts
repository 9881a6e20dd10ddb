import type { components } from "./openapi.js";
import { HitlError, UnreachableError, type Inquiry, type Problem } from "./errors.js";
import type { HitlClient } from "./client.js";

export type WaitMessage = components["schemas"]["WaitMessage"];

/** How many inquiries one POST /v1/inquiries/wait may name (the server's bound). */
export const MAX_WAIT_IDS = 10_000;

// Streams a Waiter keeps before it merges, and at most while they fit in MAX_WAIT_IDS.
const SOFT_STREAMS = 4;
const HARD_STREAMS = 64;
// How long the ids of a burst of questions gather before they go out in one stream.
const LINGER_MS = 20;

/** The error a wait on a closed Waiter rejects with. */
export class WaiterClosedError extends Error {
  constructor() {
    super("hitl: the waiter is closed");
    this.name = "WaiterClosedError";
  }
}

interface WaitCall {
  resolve(inquiry: Inquiry): void;
  reject(err: unknown): void;
}

/** One open POST /v1/inquiries/wait. */
interface WaitStream {
  ids: number[];
  /** Ids it owns and has not reported. */
  n: number;
  retired: boolean;
  /** Streams whose ids it took over: closed once it is waiting. */
  retire: WaitStream[];
  abort: AbortController;
}

/**
 * A Waiter waits on many inquiries for many callers over few connections, as the Go client's
 * Waiter does: each wait is an id on a shared POST /v1/inquiries/wait stream (at most 10,000 a
 * stream), not a long poll of its own, so a process with thousands of questions open holds a
 * handful of connections, and the server a few dozen bytes a question. The ids of a burst of
 * questions go out together; once there are four streams, a new one takes over the ids of the
 * open streams no larger than it, and those close as soon as it has registered them. Streams
 * are renewed when they end (streamWaitSeconds), and after a dropped connection or a server
 * restart with backoff, never missing an answer: the server registers each id before it reads
 * its state. When the server has not answered for the client's giveUpAfterMs, the waits still
 * open reject with an UnreachableError. Use one Waiter for the whole process; close() it when
 * done.
 */
export class Waiter {
  /** How long each stream lasts before it is renewed, in seconds (the server's most: 300). */
  streamWaitSeconds = 300;

  private readonly calls = new Map<number, Set<WaitCall>>();
  /** The stream an id is registered on; null: queued for the next. */
  private readonly owner = new Map<number, WaitStream | null>();
  private queued: number[] = [];
  private readonly streams = new Set<WaitStream>();
  /** Open streams that have not handed their ids to another. */
  private live = 0;
  private closed = false;
  private flushTimer?: ReturnType<typeof setTimeout>;
  private backoffMs = 50;
  private failingSince?: number;

  constructor(private readonly client: HitlClient) {}

  /**
   * wait resolves with the inquiry once it is final, and rejects with a HitlError when it
   * cannot be waited on (not_found: unknown, or not visible to this client's key).
   */
  wait(id: number, options: { signal?: AbortSignal } = {}): Promise<Inquiry> {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.drop(id, call);
        reject(signal!.reason);
      };
      const call: WaitCall = {
        resolve: (inq) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(inq);
        },
        reject: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.add(id, call);
    });
  }

  /** waitAll resolves with every inquiry of ids once all are final, in the order of ids. */
  waitAll(ids: number[], options: { signal?: AbortSignal } = {}): Promise<Inquiry[]> {
    return Promise.all(ids.map((id) => this.wait(id, options)));
  }

  /** close ends every stream; waits still open reject with a WaiterClosedError. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.flushTimer);
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const s of this.streams) s.abort.abort();
    for (const set of calls) for (const c of set) c.reject(new WaiterClosedError());
  }

  private add(id: number, call: WaitCall): void {
    if (this.closed) return call.reject(new WaiterClosedError());
    let set = this.calls.get(id);
    if (!set) this.calls.set(id, (set = new Set()));
    set.add(call);
    if (!this.owner.has(id)) {
      this.owner.set(id, null);
      this.queued.push(id);
      this.schedule(LINGER_MS);
    }
  }

  /** drop forgets a caller that gave up; its id stays on its stream until that ends. */
  private drop(id: number, call: WaitCall): void {
    const set = this.calls.get(id);
    set?.delete(call);
    if (set?.size === 0) this.calls.delete(id);
  }

  private schedule(ms: number): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush();
    }, ms);
  }

  /**
   * flush opens a stream for the queued ids (MAX_WAIT_IDS at most; the rest go next), taking
   * over the ids of streams no larger than the batch once there are SOFT_STREAMS of them.
   */
  private flush(): void {
    const s: WaitStream = { ids: [], n: 0, retired: false, retire: [], abort: new AbortController() };
    const rest: number[] = [];
    for (const id of this.queued) {
      if (!this.owner.has(id) || this.owner.get(id) !== null) continue; // reported meanwhile, or in this batch
      if (!this.calls.has(id)) {
        this.owner.delete(id);
      } else if (s.ids.length >= MAX_WAIT_IDS) {
        rest.push(id);
      } else {
        s.ids.push(id);
        this.owner.set(id, s);
      }
    }
    this.queued = rest;
    if (rest.length > 0) this.schedule(0);
    if (s.ids.length === 0) return;
    while (this.live >= SOFT_STREAMS) {
      let small: WaitStream | undefined;
      for (const o of this.streams) if (!o.retired && (!small || o.n < small.n)) small = o;
      if (!small || s.ids.length + small.n > MAX_WAIT_IDS || (small.n > s.ids.length && this.live < HARD_STREAMS)) break;
      for (const id of small.ids) {
        if (this.owner.get(id) !== small) continue;
        if (!this.calls.has(id)) {
          this.owner.delete(id);
          continue;
        }
        this.owner.set(id, s);
        s.ids.push(id);
      }
      small.retired = true;
      small.n = 0;
      this.live--;
      s.retire.push(small);
    }
    s.n = s.ids.length;
    this.streams.add(s);
    this.live++;
    this.stream(s).then(() => this.ended(s), (err) => this.ended(s, err));
  }

  private async stream(s: WaitStream): Promise<void> {
    for await (const m of this.client.waitMany(s.ids, this.streamWaitSeconds, { signal: s.abort.signal })) {
      switch (m.type) {
        case "inquiry":
          if (m.inquiry) this.report(m.inquiry.id, m.inquiry);
          break;
        case "error":
          if (m.id !== undefined && m.error) this.report(m.id, undefined, new HitlError(statusOf(m.error.code), { code: m.error.code as Problem["code"], detail: m.error.message }));
          break;
        case "waiting":
          this.backoffMs = 50;
          this.failingSince = undefined;
          for (const o of s.retire) o.abort.abort();
          s.retire = [];
          break;
      }
    }
  }

  /** report gives an id's outcome to its callers, once. */
  private report(id: number, inquiry?: Inquiry, err?: unknown): void {
    const set = this.calls.get(id);
    this.calls.delete(id);
    const o = this.owner.get(id);
    if (o) o.n--;
    this.owner.delete(id);
    for (const c of set ?? []) {
      if (inquiry) c.resolve(inquiry);
      else c.reject(err);
    }
  }

  /**
   * ended requeues the ids a stream still owned (after a backoff when it failed), or, when the
   * server refused the wait for good or stayed unreachable too long, gives its callers why.
   */
  private ended(s: WaitStream, err?: unknown): void {
    this.streams.delete(s);
    if (!s.retired) this.live--;
    s.abort.abort();
    // It failed before it took their ids over: theirs are requeued too.
    for (const o of s.retire) o.abort.abort();
    s.retire = [];
    if (this.closed) return;
    const cutShort = err !== undefined && !(s.retired && s.abort.signal.aborted);
    let failure: unknown;
    if (cutShort) {
      if (err instanceof HitlError && err.status < 500 && err.status !== 429) {
        failure = err;
      } else {
        this.failingSince ??= Date.now();
        if (Date.now() - this.failingSince >= this.client.giveUpAfterMs) failure = new UnreachableError(this.client.url, this.client.giveUpAfterMs, err);
      }
    }
    let requeue = false;
    for (const id of s.ids) {
      if (this.owner.get(id) !== s) continue;
      const set = this.calls.get(id);
      if (failure !== undefined) {
        this.calls.delete(id);
        this.owner.delete(id);
        for (const c of set ?? []) c.reject(failure);
      } else if (!set) {
        this.owner.delete(id);
      } else {
        this.owner.set(id, null);
        this.queued.push(id);
        requeue = true;
      }
    }
    if (!requeue) return;
    let delay = 0;
    if (cutShort) {
      delay = this.backoffMs;
      this.backoffMs = Math.min(2 * this.backoffMs, 2_000);
    }
    this.schedule(delay);
  }
}

/** statusOf is the HTTP status the API gives a problem code, for errors that came in a line. */
function statusOf(code: string): number {
  switch (code) {
    case "not_found":
      return 404;
    case "forbidden":
      return 403;
    case "invalid":
      return 400;
  }
  return 500;
}
