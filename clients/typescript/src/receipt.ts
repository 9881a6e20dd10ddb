// Decision receipts: hitl signs each decision (an EdDSA JWT, "hitl-receipt+jwt") so that an
// executor can check, offline and with the server's public keys only, that a person approved
// exactly these arguments. verifyReceipt makes the same checks, with the same failure codes,
// as the Go (receipt.Verify), Python (hitl.verify_receipt) and CLI (hitl receipt verify)
// verifiers. node:crypto does the Ed25519; nothing else is needed at run time.
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import type { components } from "./openapi.js";

/**
 * One key of a JWKS: what verifyReceipt reads of it. The server's own (HitlClient.jwks()) are
 * Ed25519 keys; a JWKS from elsewhere may hold others, which are skipped.
 */
export interface ReceiptJwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
  use?: string;
}

/** The server's JWKS: the current signing key first, the previous one (if any) second. */
export interface ReceiptJwks {
  keys: ReceiptJwk[];
}

/** A person (or a rule, or the system) whose answer decided. */
export interface ReceiptDecider {
  name: string;
  relayed_by?: string;
  on_behalf_of?: string;
  rule?: string;
  author?: string;
}

/** What a receipt says: who decided what about which inquiry, and until when it holds. */
export interface ReceiptClaims {
  iss: string;
  /** The inquiry's id, in decimal. */
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  decision: "approve" | "edit" | "reject" | "answer";
  fallback?: boolean;
  decided_by?: ReceiptDecider[];
  tool?: string;
  template?: string;
  /** Hex SHA-256 of the canonical JSON of the arguments as approved (tool calls only). */
  args_sha256?: string;
  /** Hex SHA-256 of the canonical JSON of the inquiry's response. */
  response_sha256?: string;
  [claim: string]: unknown;
}

/** What POST /v1/receipts/{jti}/redeem answers the first time. */
export type ReceiptRedemption = components["schemas"]["ReceiptRedemption"];

export type ReceiptErrorReason =
  | "malformed"
  | "unknown_key"
  | "bad_signature"
  | "wrong_issuer"
  | "expired"
  | "not_yet_valid"
  | "args_mismatch"
  | "no_args_hash";

/** ReceiptError: why a receipt does not verify; reason is a stable code, the message for people. */
export class ReceiptError extends Error {
  readonly reason: ReceiptErrorReason;
  constructor(reason: ReceiptErrorReason, message: string) {
    super(message);
    this.name = "ReceiptError";
    this.reason = reason;
  }
}

export interface VerifyReceiptOptions {
  /** The server's JWKS document, as GET /.well-known/jwks.json serves it (an object or its JSON text). */
  jwks: ReceiptJwks | string;
  /** The server's public URL the receipt must be issued by (a trailing slash ignored); unchecked when absent or "". */
  issuer?: string;
  /** The arguments about to be run: they must be those approved (args_sha256). */
  args?: unknown;
  /** The time to check exp and iat against; now when absent. */
  now?: Date;
  /** How far exp may have passed, and iat lie ahead, in seconds (clock skew); default 0. */
  leewaySeconds?: number;
}

const TYPE = "hitl-receipt+jwt";

function malformed(detail: string): ReceiptError {
  return new ReceiptError("malformed", `the receipt is not a compact JWS hitl issued: ${detail}`);
}

/**
 * base64url decodes as Go's base64.RawURLEncoding does (go-jose, on the server): the URL
 * alphabet, no padding. Buffer.from alone would skip any other character silently.
 */
function base64url(part: string, what: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(part) || part.length % 4 === 1) throw malformed(`its ${what} is not base64url`);
  return Buffer.from(part, "base64url");
}

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw malformed(`its ${what} is not JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw malformed(`its ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** rfc3339 writes a NumericDate as Go's time.RFC3339 does in UTC ("2026-11-26T18:00:00Z"). */
function rfc3339(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** publicKey is the Ed25519 key of kid in jwks, undefined when it holds none (as Go's receipt.Verify: a key of the kid that is no 32-byte Ed25519 key is skipped). */
function publicKey(jwks: ReceiptJwks, kid: string): KeyObject | undefined {
  for (const jwk of jwks.keys) {
    if (!jwk || jwk.kid !== kid || jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") continue;
    if (!/^[A-Za-z0-9_-]{43}$/.test(jwk.x)) continue; // 32 bytes
    try {
      return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
    } catch {
      continue;
    }
  }
  return undefined;
}

function checkClaims(claims: Record<string, unknown>): ReceiptClaims {
  for (const name of ["iss", "sub", "jti", "decision"]) {
    if (typeof claims[name] !== "string") throw malformed(`claim ${name} is missing or not a string`);
  }
  for (const name of ["iat", "exp"]) {
    if (!Number.isFinite(claims[name])) throw malformed(`claim ${name} is missing or not a number`);
  }
  if (claims.args_sha256 !== undefined && typeof claims.args_sha256 !== "string") throw malformed("claim args_sha256 is not a string");
  return claims as ReceiptClaims;
}

/**
 * verifyReceipt checks a receipt hitl issued and returns its claims: a compact JWS with alg
 * EdDSA and typ hitl-receipt+jwt, signed by a key of jwks (found by kid), issued by issuer
 * (when given), not expired and not issued in the future (beyond leewaySeconds), and, when
 * args are given, approving exactly those arguments (args_sha256). Otherwise it throws a
 * ReceiptError whose reason says why: malformed, unknown_key, bad_signature, wrong_issuer,
 * expired, not_yet_valid, args_mismatch or no_args_hash.
 */
export function verifyReceipt(token: string, options: VerifyReceiptOptions): ReceiptClaims {
  if (typeof token !== "string") throw malformed("it is not a string");
  const parts = token.trim().split(".");
  if (parts.length !== 3) throw malformed(`it has ${parts.length} part${parts.length === 1 ? "" : "s"}, not 3`);
  const header = jsonObject(base64url(parts[0], "header"), "header");
  if (header.alg !== "EdDSA") throw malformed(`its alg is ${JSON.stringify(header.alg ?? null)}, not "EdDSA"`);
  if (header.typ !== TYPE) throw malformed(`its typ is ${JSON.stringify(header.typ ?? null)}, not "${TYPE}"`);
  if (typeof header.kid !== "string" || header.kid === "") throw malformed("it names no key (kid)");
  const payload = base64url(parts[1], "payload");
  const signature = base64url(parts[2], "signature");

  const jwks = typeof options.jwks === "string" ? parseJwks(options.jwks) : options.jwks;
  if (!jwks || !Array.isArray(jwks.keys)) throw new TypeError("verifyReceipt needs the server's JWKS: { keys: [...] }");
  const key = publicKey(jwks, header.kid);
  if (!key) throw new ReceiptError("unknown_key", `signed with key ${header.kid}, which the JWKS does not hold (rotated out?)`);
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`, "ascii");
  if (signature.length !== 64 || !verify(null, signed, key, signature)) {
    throw new ReceiptError("bad_signature", "the signature does not match: the receipt was changed");
  }

  const claims = checkClaims(jsonObject(payload, "payload"));
  const issuer = options.issuer?.replace(/\/$/, ""); // a public URL may be written with its slash
  if (issuer && claims.iss !== issuer) throw new ReceiptError("wrong_issuer", `issued by ${claims.iss}, not ${issuer}`);
  const now = (options.now ?? new Date()).getTime() / 1000;
  const leeway = options.leewaySeconds ?? 0;
  // A NaN would compare false and let an expired receipt through.
  if (!Number.isFinite(now)) throw new TypeError("verifyReceipt's now is not a valid Date");
  if (!Number.isFinite(leeway) || leeway < 0) throw new TypeError("verifyReceipt's leewaySeconds must be a number of seconds, 0 or more");
  if (now >= claims.exp + leeway) throw new ReceiptError("expired", `expired at ${rfc3339(claims.exp)}`);
  if (claims.iat > now + leeway) throw new ReceiptError("not_yet_valid", `issued in the future (${rfc3339(claims.iat)})`);
  if (options.args !== undefined) {
    if (claims.args_sha256 === undefined) {
      throw new ReceiptError("no_args_hash", "arguments were given but the receipt approves no tool call");
    }
    if (argsSha256(options.args) !== claims.args_sha256.toLowerCase()) {
      throw new ReceiptError("args_mismatch", "the arguments differ from those approved");
    }
  }
  return claims;
}

function parseJwks(text: string): ReceiptJwks {
  try {
    return JSON.parse(text) as ReceiptJwks;
  } catch {
    throw new TypeError("the JWKS given to verifyReceipt is not JSON");
  }
}

/**
 * canonicalJSON is the RFC 8785 (JSON Canonicalization Scheme) form of a JSON value: object
 * members sorted by their names' UTF-16 code units, no whitespace, numbers and strings as
 * JSON.stringify writes them. It throws a TypeError for what JSON cannot hold (undefined,
 * functions, NaN, Infinity, bigint) and for strings with lone surrogates.
 */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
    return JSON.stringify(value);
  }
  if (typeof value === "string") {
    if (/[\uD800-\uDFFF]/u.test(value)) throw new TypeError("a string with a lone surrogate has no canonical JSON form");
    return JSON.stringify(value);
  }
  if (typeof (value as { toJSON?: unknown })?.toJSON === "function") return canonicalJSON((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return "[" + value.map(canonicalJSON).join(",") + "]";
  if (typeof value === "object") {
    const object = value as Record<string, unknown>;
    const names = Object.keys(object).filter((k) => object[k] !== undefined).sort();
    return "{" + names.map((k) => canonicalJSON(k) + ":" + canonicalJSON(object[k])).join(",") + "}";
  }
  throw new TypeError(`a ${typeof value} has no JSON form`);
}

/** argsSha256 is what a receipt's args_sha256 holds for these arguments: hex SHA-256 of their canonical JSON. */
export function argsSha256(args: unknown): string {
  return createHash("sha256").update(canonicalJSON(args), "utf8").digest("hex");
}
