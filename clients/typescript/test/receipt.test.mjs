// verifyReceipt on receipts signed by jose (an independent JOSE library): every case of the
// fixture file the Python client verifies too, each cross-checked with jose's own jwtVerify,
// and RFC 8785 canonical JSON against the vectors every hitl verifier passes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateKeyPair, exportJWK, SignJWT, jwtVerify, createLocalJWKSet } from "jose";
import { verifyReceipt, ReceiptError, canonicalJSON, argsSha256 } from "../dist/index.js";
import { fixturesText, fixturesPath } from "../scripts/receipt-fixtures.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const vectors = JSON.parse(readFileSync(join(pkg, "..", "..", "receipt", "testdata", "canonical.json"), "utf8"));
const fixtures = JSON.parse(readFileSync(fixturesPath, "utf8"));

/** outcome is what verifyReceipt says of a fixture case: { ok, claims } or { ok: false, reason }. */
function outcome(c) {
  try {
    const claims = verifyReceipt(c.token, {
      jwks: c.jwks ?? fixtures.jwks,
      issuer: c.issuer,
      args: c.args_json !== undefined ? JSON.parse(c.args_json) : c.args,
      now: new Date(c.now * 1000),
      leewaySeconds: c.leeway,
    });
    return { ok: true, claims };
  } catch (err) {
    if (!(err instanceof ReceiptError)) throw err;
    return { ok: false, reason: err.reason, message: err.message };
  }
}

test("canonicalJSON and argsSha256 pass every vector of receipt/testdata/canonical.json", () => {
  assert.ok(vectors.length >= 30);
  for (const v of vectors) {
    const value = JSON.parse(v.input);
    assert.equal(canonicalJSON(value), v.canonical, `canonical form of ${v.input}`);
    assert.equal(argsSha256(value), v.sha256, `sha256 of ${v.input}`);
  }
});

test("canonicalJSON refuses what has no JSON form, rather than hashing something else", () => {
  for (const value of [NaN, Infinity, -Infinity, undefined, 1n, () => 1, "\ud800", { a: "x\udc00" }, [Symbol("s")]]) {
    assert.throws(() => canonicalJSON(value), TypeError);
  }
  assert.equal(canonicalJSON({ b: undefined, a: new Date(0) }), '{"a":"1970-01-01T00:00:00.000Z"}', "as JSON.stringify: undefined members left out, toJSON used");
});

test("the committed fixture file is what scripts/receipt-fixtures.mjs makes", async () => {
  assert.ok((await fixturesText()) === readFileSync(fixturesPath, "utf8"),
    "clients/python/tests/receipt_fixtures.json is not current: run `node scripts/receipt-fixtures.mjs` in clients/typescript");
});

test("verifyReceipt says of every fixture case what the fixture expects", () => {
  assert.ok(fixtures.cases.length >= 30);
  const reasons = new Set();
  for (const c of fixtures.cases) {
    const got = outcome(c);
    if (c.expect.ok) assert.deepEqual(got, c.expect, c.name);
    else assert.equal(got.reason, c.expect.reason, `${c.name}: ${got.message ?? "it verified"}`);
    reasons.add(got.ok ? "valid" : got.reason);
  }
  assert.deepEqual([...reasons].sort(), ["args_mismatch", "bad_signature", "expired", "malformed", "no_args_hash", "not_yet_valid", "unknown_key", "valid", "wrong_issuer"]);
});

test("the failure messages are the spec's, for people", () => {
  const byName = (prefix) => outcome(fixtures.cases.find((c) => c.name.startsWith(prefix)));
  const kid = fixtures.jwks.keys[0].kid;
  assert.match(byName("malformed: two parts").message, /^the receipt is not a compact JWS hitl issued: it has 2 parts, not 3$/);
  assert.match(byName("tampered header: alg none").message, /^the receipt is not a compact JWS hitl issued: its alg is "none", not "EdDSA"$/);
  assert.match(byName("rotated-out key: an empty").message, new RegExp(`^signed with key ${kid}, which the JWKS does not hold \\(rotated out\\?\\)$`));
  assert.equal(byName("tampered payload: decision").message, "the signature does not match: the receipt was changed");
  assert.equal(byName("other issuer").message, "issued by https://hitl.example.com, not https://hitl.other.example");
  assert.equal(byName("expired: a second").message, "expired at 2026-11-18T12:06:40Z");
  assert.equal(byName("not yet valid").message, "issued in the future (2026-11-18T11:06:40Z)");
  assert.equal(byName("changed args: one").message, "the arguments differ from those approved");
  assert.equal(byName("args given").message, "arguments were given but the receipt approves no tool call");
});

// Where jose parts from hitl's verifiers by design: it decodes base64url leniently (padding
// dropped), where hitl's, as Go's go-jose, hold to RFC 7515's base64url without padding; and it
// compares the issuer as written, where hitl's ignore a trailing slash on the expected one.
const joseDiffers = new Set(["malformed: signature padded", "valid: the issuer written with a trailing slash"]);

test("jose's jwtVerify, against the same JWKS, agrees on every case but the arguments (which it does not know)", async () => {
  for (const c of fixtures.cases) {
    if (joseDiffers.has(c.name)) continue;
    const mine = outcome({ ...c, args: undefined, args_json: undefined });
    let theirs;
    try {
      const { payload } = await jwtVerify(c.token, createLocalJWKSet(c.jwks ?? fixtures.jwks), {
        issuer: c.issuer,
        typ: "hitl-receipt+jwt",
        algorithms: ["EdDSA"],
        currentDate: new Date(c.now * 1000),
        clockTolerance: c.leeway ?? 0,
        maxTokenAge: 10 * 365 * 86400, // makes jose check that iat is not in the future
        requiredClaims: ["iss", "sub", "jti", "iat", "exp"],
      });
      theirs = { ok: true, claims: payload };
    } catch (err) {
      theirs = { ok: false, error: err.code ?? err.message };
    }
    assert.equal(mine.ok, theirs.ok, `${c.name}: mine ${mine.reason ?? "valid"}, jose ${theirs.error ?? "valid"}`);
    if (mine.ok) assert.deepEqual(theirs.claims, mine.claims, c.name);
  }
});

test("a receipt jose's SignJWT makes with a fresh key verifies, and fails once the key is rotated out", async () => {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const jwk = { ...(await exportJWK(publicKey)), kid: "fresh-key", alg: "EdDSA", use: "sig" };
  const args = { path: "/tmp/x", recursive: true };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ decision: "approve", decided_by: [{ name: "alice" }], tool: "rm", args_sha256: argsSha256(args) })
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "hitl-receipt+jwt" })
    .setIssuer("http://127.0.0.1:7447").setSubject("7").setJti("rcpt_aaaaaaaaaaaaaaaaaaaaaaaaaa")
    .setIssuedAt(now).setExpirationTime(now + 600)
    .sign(privateKey);
  const claims = verifyReceipt(token, { jwks: JSON.stringify({ keys: [jwk] }), issuer: "http://127.0.0.1:7447", args: { recursive: true, path: "/tmp/x" } });
  assert.equal(claims.sub, "7");
  assert.equal(claims.tool, "rm");
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [] } }), (err) => err instanceof ReceiptError && err.reason === "unknown_key");
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [jwk] }, now: new Date((now + 600) * 1000) }), (err) => err.reason === "expired");
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [jwk] }, args: { path: "/" } }), (err) => err.reason === "args_mismatch");
  assert.throws(() => verifyReceipt(token, { jwks: "not json" }), TypeError);
  assert.throws(() => verifyReceipt(token, {}), TypeError);
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [jwk] }, now: new Date("not a date") }), TypeError, "an invalid now never passes for a valid time");
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [jwk] }, leewaySeconds: NaN }), TypeError);
  assert.throws(() => verifyReceipt(token, { jwks: { keys: [jwk] }, leewaySeconds: -1 }), TypeError);
});
