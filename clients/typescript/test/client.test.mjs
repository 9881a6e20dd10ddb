// The client against a real hitl server: asking, errors, the event stream, restarts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { HitlClient, HitlError } from "../dist/index.js";
import { TestServer, freePort } from "./server.mjs";

let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("ts-agent", "agent");
  human = await server.client("ts-human", "responder");
});

after(async () => {
  await server.stop();
});

test("ask returns the inquiry once another client answers it", async () => {
  const answered = [];
  const inquiry = await agent.ask(
    { prompt: "Refund $499 for order 12345?", request_type: "approval", context: { order_id: "12345" } },
    { onCreated: (inq) => answered.push(human.respond(inq.id, { approved: true }, "ok")) },
  );
  await Promise.all(answered);
  assert.equal(inquiry.status, "responded");
  assert.deepEqual(inquiry.response, { approved: true });
  assert.equal(inquiry.comment, "ok");
  assert.equal(inquiry.responded_by, "ts-human");
});

test("ask with the same idempotency key returns the first inquiry, not a second", async () => {
  const first = await agent.createInquiry({ prompt: "Ship it?" }, { idempotencyKey: "ship-1" });
  await human.respond(first.id, "yes");
  const again = await agent.ask({ prompt: "Ship it?" }, { idempotencyKey: "ship-1" });
  assert.equal(again.id, first.id);
  assert.equal(again.response, "yes");
});

test("ask survives the server being killed and restarted mid-wait", async () => {
  const { promise: created, resolve } = Promise.withResolvers?.() ?? resolvers();
  const asking = agent.ask(
    { prompt: "Rotate the production keys?", request_type: "approval" },
    { pollSeconds: 60, onCreated: (inq) => resolve(inq.id) },
  );
  const id = await created;
  // The ask is waiting by now (or about to): kill the server under it, as a crash would.
  await server.restart();
  // The server came back on the same database: the inquiry is still there, pending.
  assert.equal((await human.getInquiry(id)).status, "pending");
  await human.respond(id, { approved: false, comment: "not today" });
  const inquiry = await asking;
  assert.equal(inquiry.id, id);
  assert.equal(inquiry.status, "responded");
  assert.deepEqual(inquiry.response, { approved: false, comment: "not today" });
});

function resolvers() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

test("ask aborts when its signal does", async () => {
  const controller = new AbortController();
  const asking = agent.ask({ prompt: "Never answered?" }, { signal: controller.signal, onCreated: () => controller.abort() });
  await assert.rejects(asking, { name: "AbortError" });
});

test("ask returns a cancelled inquiry as it ended", async () => {
  const inquiry = await agent.ask({ prompt: "Rename the service?" }, {
    onCreated: (inq) => { agent.cancel(inq.id, "decided without it"); },
  });
  assert.equal(inquiry.status, "cancelled");
  assert.equal(inquiry.cancel_reason, "decided without it");
});

test("HitlError carries the problem: 404", async () => {
  const err = await human.getInquiry(987654).catch((e) => e);
  assert.ok(err instanceof HitlError);
  assert.equal(err.status, 404);
  assert.equal(err.code, "not_found");
  assert.ok(err.detail.length > 0);
});

test("HitlError carries the problem: 422 with every field error", async () => {
  const inq = await agent.createInquiry({ prompt: "Approve the budget?", request_type: "approval" });
  const err = await human.respond(inq.id, { approved: "yes" }).catch((e) => e);
  assert.ok(err instanceof HitlError);
  assert.equal(err.status, 422);
  assert.equal(err.code, "invalid_response");
  assert.ok(err.fields.some((f) => f.path === "/approved"), JSON.stringify(err.fields));
});

test("HitlError carries the problem: 400 for a request the server refuses", async () => {
  const err = await agent.createInquiry({ prompt: "" }).catch((e) => e);
  assert.ok(err instanceof HitlError);
  assert.equal(err.status, 400);
  assert.equal(err.code, "invalid");
});

test("HitlError carries the problem: 409 with the inquiry as it is now", async () => {
  const inq = await agent.createInquiry({ prompt: "Which venue?", options: ["oslo", "bergen"] });
  await human.respond(inq.id, "bergen");
  const err = await agent.cancel(inq.id).catch((e) => e);
  assert.ok(err instanceof HitlError);
  assert.equal(err.status, 409);
  assert.equal(err.code, "conflict");
  assert.equal(err.inquiry.id, inq.id);
  assert.equal(err.inquiry.status, "responded");
  assert.equal(err.inquiry.response, "bergen");
});

test("listInquiries, wait and me", async () => {
  const inq = await agent.createInquiry({ prompt: "List me?", session: "ts-list" });
  const page = await human.listInquiries({ status: "pending", session: "ts-list" });
  assert.deepEqual(page.data.map((i) => i.id), [inq.id]);
  const still = await agent.wait(inq.id, 0);
  assert.equal(still.status, "pending");
  const me = await human.me();
  assert.equal(me.name, "ts-human");
  assert.deepEqual(me.roles, ["responder"]);
});

test("events yields events and resumes after a restart with none lost or repeated", async () => {
  const controller = new AbortController();
  const stream = agent.events({ type: "inquiry.created", signal: controller.signal })[Symbol.asyncIterator]();
  const a = await agent.createInquiry({ prompt: "Event A?", session: "ts-events" });
  let ev;
  do {
    ev = (await stream.next()).value;
  } while (ev.inquiry_id !== a.id);
  assert.equal(ev.type, "inquiry.created");
  assert.equal(ev.data.prompt, "Event A?");
  const seqA = ev.seq;

  await server.restart();
  const b = await agent.createInquiry({ prompt: "Event B?", session: "ts-events" });
  const next = (await stream.next()).value;
  assert.equal(next.inquiry_id, b.id, "the first event after the restart is B's: none lost, none repeated");
  assert.ok(next.seq > seqA);
  controller.abort();
  await assert.rejects(stream.next(), { name: "AbortError" });

  // A new iterator started after A's seq begins with what came after it.
  const resumed = agent.events({ after: seqA, type: "inquiry.created" });
  for await (const e of resumed) {
    assert.equal(e.inquiry_id, b.id);
    break;
  }
});

test("ask gives up with an UnreachableError when no server answers for giveUpAfterMs", async () => {
  const nobody = new HitlClient({ url: `http://127.0.0.1:${await freePort()}`, token: "t", giveUpAfterMs: 300 });
  await assert.rejects(nobody.ask({ prompt: "Anyone?" }), (err) => {
    assert.equal(err.name, "UnreachableError");
    // The network's own reason, not fetch's "fetch failed".
    assert.match(err.message, /did not answer within 0 s: .*ECONNREFUSED/);
    return true;
  });
});
