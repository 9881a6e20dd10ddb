// Writes clients/python/tests/receipt_fixtures.json: receipts signed here with jose (an
// independent JOSE library), the JWKS to check them against, and what a verifier must say of
// each: valid, changed arguments, expired, another issuer, a rotated-out key, a tampered
// payload or header, malformed tokens. The Python client (pure-Python Ed25519) and the
// TypeScript client (node:crypto) both verify every case and must agree with it.
// Ed25519 signatures are deterministic and the keys come from fixed seeds, so the file is the
// same on every run (test/receipt.test.mjs checks the committed one is current).
// Run: node scripts/receipt-fixtures.mjs   (in clients/typescript, after npm ci)
import { CompactSign } from "jose";
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
export const fixturesPath = join(pkg, "..", "python", "tests", "receipt_fixtures.json");

const sha256 = (data) => createHash("sha256").update(data).digest();
const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

/** The canonical form (RFC 8785), as receipt/testdata/canonical.mjs makes it. */
function canon(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
  return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
}
const hashOf = (v) => sha256(Buffer.from(canon(v), "utf8")).toString("hex");

/** An Ed25519 key from a fixed seed, with its public JWK as hitl serves it (kid per the spec). */
function key(name) {
  const seed = sha256(Buffer.from(`hitl receipt fixture key ${name}`));
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const { x } = createPublicKey(privateKey).export({ format: "jwk" });
  const kid = b64u(sha256(Buffer.from(x, "base64url")).subarray(0, 12));
  return { privateKey, jwk: { kty: "OKP", crv: "Ed25519", x, kid, alg: "EdDSA", use: "sig" } };
}

const P = (1n << 255n) - 19n;
const D = (((-121665n * modPow(121666n, P - 2n)) % P) + P) % P;
function modPow(b, e) {
  let r = 1n;
  for (b %= P; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}

/** The encoding of a y for which no x exists: 32 bytes that are no point of the curve. */
function notAPoint() {
  for (let y = 2n; ; y++) {
    const u = (y * y - 1n) % P;
    const v = (D * y * y + 1n) % P;
    const w = (u * modPow(v, P - 2n)) % P;
    if (modPow(w, (P - 1n) / 2n) === P - 1n) {
      const bytes = Buffer.alloc(32);
      for (let i = 0, t = y; i < 32; i++, t >>= 8n) bytes[i] = Number(t & 0xffn);
      return bytes;
    }
  }
}

const L = (1n << 252n) + 27742317777372353535851937790883648493n;

/** sig with S replaced by S + L: the same point equation, a non-canonical S (RFC 8032 forbids it). */
function plusL(signature) {
  const sig = Buffer.from(signature, "base64url");
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  s += L;
  for (let i = 32; i < 64; i++, s >>= 8n) sig[i] = Number(s & 0xffn);
  return b64u(sig);
}

async function sign(k, payload, header = { alg: "EdDSA", kid: k.jwk.kid, typ: "hitl-receipt+jwt" }) {
  const bytes = typeof payload === "string" ? Buffer.from(payload) : Buffer.from(JSON.stringify(payload));
  return new CompactSign(bytes).setProtectedHeader(header).sign(k.privateKey);
}

export async function fixtures() {
  const oldest = key("oldest"), previous = key("previous"), current = key("current");
  const issuer = "https://hitl.example.com";
  const iat = 1795000000;
  const exp = iat + 3600;
  const proposed = { env: "prod", replicas: 3, image: "api:1.4.2", tags: ["a", "b"], ratio: 0.1, note: "é€😀" };
  const edited = { ...proposed, replicas: 2 };
  const editClaims = {
    iss: issuer, sub: "42", jti: "rcpt_4k2p6x7qj3m5n8r9s2t4v6w8y0", iat, exp, decision: "edit",
    decided_by: [{ name: "alice" }], tool: "deploy", args_sha256: hashOf(edited),
    response_sha256: hashOf({ decision: "edit", arguments: edited }),
  };
  const answerClaims = {
    iss: issuer, sub: "43", jti: "rcpt_abcdefghijklmnopqrstuvwxyz", iat, exp, decision: "answer",
    decided_by: [{ name: "bob", relayed_by: "slack-relay", on_behalf_of: "carol" }], template: "venue",
    response_sha256: hashOf("bergen"),
  };
  const fallbackClaims = {
    iss: issuer, sub: "44", jti: "rcpt_zyxwvutsrqponmlkjihgfedcba", iat, exp, decision: "reject", fallback: true,
    decided_by: [{ name: "system" }], tool: "deploy", args_sha256: hashOf(proposed), response_sha256: hashOf({ decision: "reject" }),
  };
  const jwks = { keys: [current.jwk, previous.jwk] };
  const edit = await sign(current, editClaims);
  const [editHeader, editPayload, editSig] = edit.split(".");
  const answer = await sign(current, answerClaims);
  const approve = await sign(current, { ...editClaims, decision: "approve", args_sha256: hashOf(proposed) });
  const strangeKid = { ...current.jwk, x: b64u(notAPoint()) };
  const flipped = Buffer.from(editSig, "base64url");
  flipped[5] ^= 1;
  const otherHeader = b64u(JSON.stringify({ alg: "EdDSA", kid: current.jwk.kid, typ: "hitl-receipt+jwt", x: 1 }));
  const header = (h) => b64u(JSON.stringify(h));

  const ok = (claims) => ({ ok: true, claims });
  const fails = (reason) => ({ ok: false, reason });
  const cases = [
    { name: "valid: an edit, with the issuer and the edited arguments", token: edit, issuer, args: edited, now: iat + 60, expect: ok(editClaims) },
    { name: "valid: no issuer or arguments to check", token: edit, now: iat + 60, expect: ok(editClaims) },
    { name: "valid: the same arguments in another member order, 2 written 2.0", token: edit, args_json: '{"tags":["a","b"],"replicas":2.0,"ratio":1e-1,"note":"\\u00e9\\u20ac\\ud83d\\ude00","image":"api:1.4.2","env":"prod"}', now: iat + 60, expect: ok(editClaims) },
    { name: "valid: an answer, no tool call", token: answer, issuer, now: iat + 60, expect: ok(answerClaims) },
    { name: "valid: a deadline's fallback rejected the proposed arguments", token: await sign(current, fallbackClaims), args: proposed, now: iat + 60, expect: ok(fallbackClaims) },
    { name: "valid: signed with the previous key, still in the JWKS", token: await sign(previous, editClaims), issuer, args: edited, now: iat + 60, expect: ok(editClaims) },
    { name: "valid: read from a file, with its newline", token: `${edit}\n`, issuer, now: iat + 60, expect: ok(editClaims) },
    { name: "valid: the issuer written with a trailing slash", token: edit, issuer: `${issuer}/`, now: iat + 60, expect: ok(editClaims) },
    { name: "changed args: the proposed arguments, not the edited ones", token: edit, args: proposed, now: iat + 60, expect: fails("args_mismatch") },
    { name: "changed args: one value changed", token: approve, args: { ...proposed, env: "staging" }, now: iat + 60, expect: fails("args_mismatch") },
    { name: "args given, but the receipt approves no tool call", token: answer, args: {}, now: iat + 60, expect: fails("no_args_hash") },
    { name: "expired: a second after exp", token: edit, now: exp + 1, expect: fails("expired") },
    { name: "expired: at exp exactly", token: edit, now: exp, expect: fails("expired") },
    { name: "valid: 30 s after exp with 60 s of leeway", token: edit, now: exp + 30, leeway: 60, expect: ok(editClaims) },
    { name: "not yet valid: issued 10 s in the future", token: edit, now: iat - 10, expect: fails("not_yet_valid") },
    { name: "valid: issued 10 s in the future with 30 s of leeway", token: edit, now: iat - 10, leeway: 30, expect: ok(editClaims) },
    { name: "other issuer", token: edit, issuer: "https://hitl.other.example", now: iat + 60, expect: fails("wrong_issuer") },
    { name: "rotated-out key: signed with a key the JWKS dropped", token: await sign(oldest, editClaims), now: iat + 60, expect: fails("unknown_key") },
    { name: "rotated-out key: an empty JWKS", token: edit, jwks: { keys: [] }, now: iat + 60, expect: fails("unknown_key") },
    { name: "rotated-out key: the JWKS's key of that kid is not 32 bytes", token: edit, jwks: { keys: [{ ...current.jwk, x: b64u(Buffer.alloc(31, 1)) }] }, now: iat + 60, expect: fails("unknown_key") },
    { name: "tampered header: a critical extension hitl does not use", token: `${header({ alg: "EdDSA", kid: current.jwk.kid, typ: "hitl-receipt+jwt", crit: ["exp"] })}.${editPayload}.${editSig}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "tampered payload: another receipt's payload under this signature", token: `${editHeader}.${answer.split(".")[1]}.${editSig}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "tampered payload: decision changed", token: `${editHeader}.${b64u(JSON.stringify({ ...editClaims, decision: "approve" }))}.${editSig}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "tampered header: a member added", token: `${otherHeader}.${editPayload}.${editSig}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "tampered header: alg none", token: `${header({ alg: "none", kid: current.jwk.kid, typ: "hitl-receipt+jwt" })}.${editPayload}.`, now: iat + 60, expect: fails("malformed") },
    { name: "tampered header: alg HS256", token: `${header({ alg: "HS256", kid: current.jwk.kid, typ: "hitl-receipt+jwt" })}.${editPayload}.${editSig}`, now: iat + 60, expect: fails("malformed") },
    { name: "tampered header: typ JWT", token: await sign(current, editClaims, { alg: "EdDSA", kid: current.jwk.kid, typ: "JWT" }), now: iat + 60, expect: fails("malformed") },
    { name: "tampered signature: one bit flipped", token: `${editHeader}.${editPayload}.${b64u(flipped)}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "tampered signature: S + L, a non-canonical S", token: `${editHeader}.${editPayload}.${plusL(editSig)}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "a JWKS key that is no curve point", token: edit, jwks: { keys: [strangeKid] }, now: iat + 60, expect: fails("bad_signature") },
    { name: "malformed: empty", token: "", now: iat + 60, expect: fails("malformed") },
    { name: "malformed: two parts", token: `${editHeader}.${editPayload}`, now: iat + 60, expect: fails("malformed") },
    { name: "malformed: four parts", token: `${edit}.${editSig}`, now: iat + 60, expect: fails("malformed") },
    { name: "malformed: header not base64url", token: `e30!.${editPayload}.${editSig}`, now: iat + 60, expect: fails("malformed") },
    { name: "malformed: header not JSON", token: `${b64u("alg=EdDSA")}.${editPayload}.${editSig}`, now: iat + 60, expect: fails("malformed") },
    { name: "malformed: header without kid", token: `${header({ alg: "EdDSA", typ: "hitl-receipt+jwt" })}.${editPayload}.${editSig}`, now: iat + 60, expect: fails("malformed") },
    { name: "malformed: signature padded", token: `${edit}==`, now: iat + 60, expect: fails("malformed") },
    { name: "tampered signature: 63 bytes", token: `${editHeader}.${editPayload}.${b64u(Buffer.from(editSig, "base64url").subarray(0, 63))}`, now: iat + 60, expect: fails("bad_signature") },
    { name: "malformed: a signed payload that is not JSON", token: await sign(current, "not json"), now: iat + 60, expect: fails("malformed") },
    { name: "malformed: a signed payload without exp", token: await sign(current, { ...editClaims, exp: undefined }), now: iat + 60, expect: fails("malformed") },
    { name: "malformed: a signed payload that is an array", token: await sign(current, "[]"), now: iat + 60, expect: fails("malformed") },
  ];
  return {
    comment: "Generated by clients/typescript/scripts/receipt-fixtures.mjs; do not edit. now is in seconds, leeway too; " +
      "a case without jwks uses the top-level one; args_json is arguments as JSON text, to be parsed by the verifier's language.",
    jwks,
    cases,
  };
}

export async function fixturesText() {
  return JSON.stringify(await fixtures(), null, 1) + "\n";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await fixturesText();
  if (!process.argv.includes("--check")) writeFileSync(fixturesPath, text);
  else if (readFileSync(fixturesPath, "utf8") !== text) {
    console.error("clients/python/tests/receipt_fixtures.json is not current: run `node scripts/receipt-fixtures.mjs` in clients/typescript");
    process.exit(1);
  }
}
