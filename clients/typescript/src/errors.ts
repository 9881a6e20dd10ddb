import type { components } from "./openapi.js";

export type Problem = components["schemas"]["Problem"];
export type FieldError = components["schemas"]["FieldError"];
export type Inquiry = components["schemas"]["Inquiry"];

/**
 * HitlError is a problem+json answer from the server (RFC 9457): the status, the stable
 * machine-readable code, the sentence for people, the field errors, and on 409 the inquiry
 * as it is now (already answered, cancelled...), so the caller need not fetch it again.
 */
export class HitlError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly fields: FieldError[];
  readonly inquiry?: Inquiry;
  readonly problem: Partial<Problem>;

  constructor(status: number, problem: Partial<Problem>) {
    const detail = problem.detail ?? problem.title ?? `HTTP ${status}`;
    super(`hitl: ${status} ${problem.code ?? ""}: ${detail}`.replace(" : ", ": "));
    this.name = "HitlError";
    this.status = status;
    this.code = problem.code ?? "";
    this.detail = detail;
    this.fields = problem.errors ?? [];
    this.inquiry = problem.inquiry;
    this.problem = problem;
  }
}

/** UnreachableError: the server did not answer for longer than the caller would wait. */
export class UnreachableError extends Error {
  readonly url: string;
  readonly withinMs: number;
  constructor(url: string, withinMs: number, cause: unknown) {
    super(`the hitl server at ${url} did not answer within ${Math.round(withinMs / 1000)} s` +
      (cause instanceof Error ? `: ${reason(cause)}` : ""), { cause });
    this.name = "UnreachableError";
    this.url = url;
    this.withinMs = withinMs;
  }
}

/**
 * reason is what went wrong, in a sentence: fetch says only "fetch failed" and keeps the
 * network's own error (connection refused, host not found, ...) as its cause.
 */
function reason(err: Error): string {
  const cause = err.cause;
  if (err.message === "fetch failed" && cause instanceof Error) {
    const code = (cause as Error & { code?: string }).code;
    return code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
  }
  return err.message;
}
