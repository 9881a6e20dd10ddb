// Decision receipts end to end against a real hitl server: a person approves or edits a tool
// call through the API, and the receipt on the ended inquiry verifies with verifyReceipt and
// with jose (an independent library) against the JWKS the server serves; redeeming it works
// once; and what an executor must refuse is refused.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { jwtVerify, createLocalJWKSet, decodeProtectedHeader } from "jose";
import { verifyReceipt, ReceiptError, argsSha256, HitlError } from "../dist/index.js";
import { TestServer } from "./server.mjs";

let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("ts-receipt-agent", "agent");
  human = await server.client("ts-receipt-human", "responder");
});

after(() => server.stop());

const parameters = {
  type: "object",
  required: ["service", "replicas"],
  properties: { service: { type: "string" }, replicas: { type: "integer", minimum: 1, maximum: 10 } },
};

/**
 * decided asks about a deploy with ask(), which the person answers through the API as soon as
 * it exists, and returns the proposed arguments and the inquiry as ask() returned it, ended.
 */
async function decided(id, answer, extra = {}) {
  const proposed = { service: "api", replicas: 3, note: "été ☃" };
  let answered;
  const inquiry = await agent.ask({
    prompt: `Deploy ${id}?`,
    request_type: "approval",
    tool_call: { id, name: "deploy", arguments: proposed, parameters_schema: { ...parameters, properties: { ...parameters.properties, note: { type: "string" } } } },
    allowed_decisions: ["approve", "edit", "reject"],
    ...extra,
  }, { onCreated: (inq) => { answered = human.respond(inq.id, answer); } });
  await answered;
  return { proposed, inquiry };
}

const reason = (r) => (err) => err instanceof ReceiptError && err.reason === r;

test("an approval's receipt verifies with verifyReceipt and with jose against the served JWKS", async () => {
  const { proposed, inquiry } = await decided("call-ts-approve", { decision: "approve" });
  assert.equal(typeof inquiry.receipt, "string", "an ended, decided inquiry carries its receipt");

  // The JWKS needs no token, and may be cached for five minutes.
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("cache-control") ?? "", /max-age=300/);
  const served = await res.json();
  const jwks = await agent.jwks();
  assert.deepEqual(jwks, served);
  assert.equal(jwks.keys[0].kty, "OKP");
  assert.equal(jwks.keys[0].crv, "Ed25519");
  const kid = decodeProtectedHeader(inquiry.receipt).kid;
  assert.equal(kid, jwks.keys[0].kid, "signed with the current key, the first");
  assert.equal(kid, createHash("sha256").update(Buffer.from(jwks.keys[0].x, "base64url")).digest().subarray(0, 12).toString("base64url"));

  const claims = verifyReceipt(inquiry.receipt, { jwks, issuer: server.url, args: proposed });
  assert.equal(claims.iss, server.url);
  assert.equal(claims.sub, String(inquiry.id));
  assert.match(claims.jti, /^rcpt_[a-z2-7]{26}$/);
  assert.equal(claims.decision, "approve");
  assert.deepEqual(claims.decided_by, [{ name: "ts-receipt-human" }]);
  assert.equal(claims.tool, "deploy");
  assert.equal(claims.args_sha256, argsSha256(proposed));
  assert.equal(claims.response_sha256, argsSha256(inquiry.response));
  assert.equal(claims.exp - claims.iat, 3600, "the server's default validity: an hour");

  const { payload, protectedHeader } = await jwtVerify(inquiry.receipt, createLocalJWKSet(served), {
    issuer: server.url, typ: "hitl-receipt+jwt", algorithms: ["EdDSA"], requiredClaims: ["exp", "iat", "jti", "sub"],
  });
  assert.equal(protectedHeader.alg, "EdDSA");
  assert.deepEqual(payload, claims, "jose reads the same claims");
});

test("an edit's receipt approves the edited arguments, not the proposed ones; the same receipt everywhere", async () => {
  const edited = { service: "api", replicas: 5, note: "été ☃" };
  const { proposed, inquiry } = await decided("call-ts-edit", { decision: "edit", args: edited });
  const jwks = await agent.jwks();
  const claims = verifyReceipt(inquiry.receipt, { jwks, issuer: server.url, args: { note: "été ☃", replicas: 5.0, service: "api" } });
  assert.equal(claims.decision, "edit");
  assert.equal(claims.args_sha256, argsSha256(inquiry.tool_result.arguments));
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks, args: proposed }), reason("args_mismatch"));
  assert.equal((await agent.getInquiry(inquiry.id)).receipt, inquiry.receipt, "GET has the receipt ask() returned");
  assert.equal((await agent.wait(inquiry.id, 1)).receipt, inquiry.receipt, "so does the wait's result");
});

test("a receipt is redeemed once: 200, then 409 with when and by whom; an unknown one is 404", async () => {
  const { inquiry } = await decided("call-ts-redeem", { decision: "approve" });
  const { jti } = verifyReceipt(inquiry.receipt, { jwks: await agent.jwks() });
  const first = await agent.redeemReceipt(jti);
  assert.equal(first.jti, jti);
  assert.equal(first.inquiry_id, inquiry.id);
  assert.equal(first.redeemed_by, "ts-receipt-agent");
  assert.ok(!Number.isNaN(Date.parse(first.redeemed_at)));
  const again = await human.redeemReceipt(jti).catch((err) => err);
  assert.ok(again instanceof HitlError, String(again));
  assert.equal(again.status, 409);
  assert.match(again.detail, /already redeemed at .* by ts-receipt-agent$/);
  const unknown = await agent.redeemReceipt("rcpt_aaaaaaaaaaaaaaaaaaaaaaaaaa").catch((err) => err);
  assert.equal(unknown.status, 404);
});

test("what an executor refuses: another issuer, an expired receipt, a changed payload, arguments for an answer", async () => {
  const { inquiry } = await decided("call-ts-refuse", { decision: "reject", message: "not today" });
  const jwks = await agent.jwks();
  const claims = verifyReceipt(inquiry.receipt, { jwks });
  assert.equal(claims.decision, "reject");
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks, issuer: "https://hitl.example.com" }), reason("wrong_issuer"));
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks, now: new Date(claims.exp * 1000) }), reason("expired"));
  assert.doesNotThrow(() => verifyReceipt(inquiry.receipt, { jwks, now: new Date(claims.exp * 1000), leewaySeconds: 5 }));
  const [h, p, s] = inquiry.receipt.split(".");
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, "base64url")), decision: "approve" })).toString("base64url");
  assert.throws(() => verifyReceipt(`${h}.${forged}.${s}`, { jwks }), reason("bad_signature"));
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks: { keys: jwks.keys.slice(1) } }), reason("unknown_key"));

  const answer = await agent.createInquiry({ prompt: "Which venue?", options: ["oslo", "bergen"] });
  await human.respond(answer.id, "bergen");
  const answered = await agent.getInquiry(answer.id);
  const answerClaims = verifyReceipt(answered.receipt, { jwks, issuer: server.url });
  assert.equal(answerClaims.decision, "answer");
  assert.equal(answerClaims.response_sha256, argsSha256("bergen"));
  assert.throws(() => verifyReceipt(answered.receipt, { jwks, args: {} }), reason("no_args_hash"));

  const cancelled = await agent.createInquiry({ prompt: "Withdrawn?" });
  assert.equal((await agent.cancel(cancelled.id, "not needed")).receipt, undefined, "a cancelled inquiry has no receipt");
});

test("the example in examples/receipt runs: a person edits the deploy, the executor verifies and redeems once", async () => {
  const token = await server.key("example-deployer", "agent");
  const child = spawn(process.execPath, [fileURLToPath(new URL("../examples/receipt/index.mjs", import.meta.url))], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const lines = [];
  let answered;
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    const asked = /inquiry (\d+) \(/.exec(line);
    if (asked) answered = human.respond(Number(asked[1]), { decision: "edit", args: { service: "api", replicas: 5 } });
  }
  const [code] = await exited;
  await answered;
  const out = lines.join("\n");
  assert.equal(code, 0, out);
  assert.match(out, /receipt rcpt_[a-z2-7]{26}: edit by ts-receipt-human for inquiry \d+/);
  assert.match(out, /redeemed at .* by example-deployer; deploying \{"service":"api","replicas":5\}/);
  assert.match(out, /with replicas 9 instead: args_mismatch: the arguments differ from those approved/);
  assert.match(out, /redeemed again: 409: .*already redeemed at .* by example-deployer/);
});

test("a receipt valid for a second: once past its exp, verifyReceipt says expired and redeeming is a 409", async () => {
  const { inquiry } = await decided("call-ts-short", { decision: "approve" }, { receipt_valid_for: "1s" });
  const jwks = await agent.jwks();
  const claims = verifyReceipt(inquiry.receipt, { jwks, leewaySeconds: 5 }); // leeway: a slow machine may have taken the second already
  assert.equal(claims.exp - claims.iat, 1);
  await delay(claims.exp * 1000 - Date.now() + 20); // real time must pass: the server's clock decides the redeem
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks }), reason("expired"));
  const late = await agent.redeemReceipt(claims.jti).catch((err) => err);
  assert.ok(late instanceof HitlError, String(late));
  assert.equal(late.status, 409);
  assert.match(late.detail, /expired at /);
});

// Last: it retires the keys the other tests' receipts were signed with.
test("after one rotation a receipt still verifies (the previous key is served); after two it is unknown_key", async () => {
  const { proposed, inquiry } = await decided("call-ts-rotate", { decision: "approve" });
  const rotate = () => server.admin.request("POST", "/v1/signing-keys/rotate");
  const before = await agent.jwks();
  await rotate();
  const once_ = await agent.jwks();
  assert.equal(once_.keys.length, 2);
  assert.equal(once_.keys[1].kid, before.keys[0].kid, "the old current key is now the previous one");
  assert.equal(verifyReceipt(inquiry.receipt, { jwks: once_, issuer: server.url, args: proposed }).sub, String(inquiry.id));
  await rotate();
  const twice = await agent.jwks();
  assert.ok(!twice.keys.some((k) => k.kid === before.keys[0].kid), "the key before the previous one is dropped");
  assert.throws(() => verifyReceipt(inquiry.receipt, { jwks: twice }), reason("unknown_key"));
  await assert.rejects(jwtVerify(inquiry.receipt, createLocalJWKSet(twice)), (err) => err.code === "ERR_JWKS_NO_MATCHING_KEY", "jose agrees");
  const { inquiry: fresh } = await decided("call-ts-rotated", { decision: "approve" });
  assert.equal(decodeProtectedHeader(fresh.receipt).kid, twice.keys[0].kid, "new receipts are signed with the new key");
  assert.equal(verifyReceipt(fresh.receipt, { jwks: twice }).decision, "approve");
});
