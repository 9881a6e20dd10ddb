// Checks shared by the framework adapters, so that a mistake in how an adapter is called is
// told to the developer when they call it, in a sentence, rather than to the model as a tool
// error at run time, or not at all: checkClient for the HitlClient argument, checkOptions for
// option names (the inquiry's fields come from the OpenAPI document, see openapi-fields.ts).
import { inquiryRequestFields } from "./openapi-fields.js";
import type { HitlClient } from "./client.js";

/** The names of an inquiry request's fields, from hitl's OpenAPI document. */
export const inquiryFields: ReadonlySet<string> = new Set(inquiryRequestFields);

/** describe says in a few words what a value is, for an error. */
export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "function") return `a function${v.name ? ` (${v.name})` : ""}`;
  if (typeof v === "object") {
    const name = (v as object).constructor?.name;
    return name && name !== "Object" ? `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}` : "an object";
  }
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  return String(v);
}

/**
 * checkClient throws a TypeError unless hitl is a HitlClient (by shape, so that a second copy
 * of @hitl/client works too): the mistake of leaving the client out, which shifts every other
 * argument one place.
 */
export function checkClient(hitl: unknown, fn: string): asserts hitl is HitlClient {
  const c = hitl as Partial<HitlClient> | null | undefined;
  if (typeof c?.reviewToolCall !== "function" || typeof c.createInquiry !== "function" || typeof c.waiter !== "function") {
    throw new TypeError(`${fn} needs a HitlClient as its first argument (new HitlClient({ url, token })); it was given ${describe(hitl)}`);
  }
}

/** What a function accepts as options, for checkOptions. */
export interface AcceptedOptions {
  /** The function's own options. */
  own: readonly string[];
  /** The inquiry fields it passes on: all of them but these, or none when absent. */
  inquiry?: { except: readonly string[] };
  /**
   * What to say of an option that is an inquiry field the function does not take here (e.g.
   * where inquiry fields go); default: that the function sets it itself.
   */
  misplacedField?: (name: string) => string;
}

function normalized(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** suggestion is the accepted name an unknown one was probably meant to be: camelCase for snake_case, or a typo away. */
function suggestion(name: string, accepted: readonly string[]): string | undefined {
  const n = normalized(name);
  const same = accepted.find((a) => normalized(a) === n);
  if (same) return same;
  let best: string | undefined;
  let bestDistance = 3;
  for (const a of accepted) {
    const d = distance(n, normalized(a));
    if (d < bestDistance) [best, bestDistance] = [a, d];
  }
  return best;
}

/**
 * checkOptions throws a TypeError naming the first option fn does not know, what it was
 * probably meant to be, and what fn accepts. options may be undefined (no options).
 */
export function checkOptions(fn: string, options: unknown, accepted: AcceptedOptions): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${fn}: its options must be an object ({ ... }), not ${describe(options)}`);
  }
  const fields = accepted.inquiry ? inquiryRequestFields.filter((f) => !accepted.inquiry!.except.includes(f) && !accepted.own.includes(f)) : [];
  const known = [...accepted.own, ...fields];
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    if (inquiryFields.has(name)) {
      throw new TypeError(`${fn}: ${accepted.misplacedField?.(name) ?? `option "${name}" is not accepted: ${fn} sets the inquiry's ${name} itself`}`);
    }
    const meant = suggestion(name, known);
    const list = [...accepted.own, ...(fields.length ? [`the inquiry's fields (${fields.join(", ")})`] : [])].join(", ");
    throw new TypeError(`${fn}: unknown option "${name}"${meant ? ` (did you mean ${meant}?)` : ""}; it accepts ${list}`);
  }
}
