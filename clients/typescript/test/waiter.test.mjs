// The Waiter: many waits over a few shared POST /v1/inquiries/wait streams.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { HitlClient, HitlError, UnreachableError, WaiterClosedError } from "../dist/index.js";
import { TestServer } from "./server.mjs";

let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("waiter-agent", "agent");
  human = await server.client("waiter-human", "responder");
});

after(async () => {
  await server.stop();
});

/** streamsOpened counts the wait streams fetch opens while fn runs. */
async function streamsOpened(fn) {
  const real = globalThis.fetch;
  let opened = 0;
  globalThis.fetch = (url, init) => {
    if (String(url).endsWith("/v1/inquiries/wait") && init?.method === "POST") opened++;
    return real(url, init);
  };
  try {
    await fn();
  } finally {
    globalThis.fetch = real;
  }
  return opened;
}

async function pendingInquiries(n, prompt) {
  return Promise.all(Array.from({ length: n }, (_, i) => agent.createInquiry({ prompt: `${prompt} #${i}` })));
}

/** until polls cond: what waits on a server's state checks it rather than sleeping. */
async function until(cond, what) {
  const deadline = Date.now() + 10_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

test("a burst of 300 waits goes out as one stream, and each caller gets its own answer", async () => {
  const inquiries = await pendingInquiries(300, "Burst");
  const waiter = agent.waiter();
  let results;
  const opened = await streamsOpened(async () => {
    const all = waiter.waitAll(inquiries.map((q) => q.id));
    await Promise.all(inquiries.map((q, i) => human.respond(q.id, `answer ${i}`)));
    results = await all;
  });
  waiter.close();
  assert.equal(opened, 1, "one stream for the whole burst");
  assert.deepEqual(results.map((r) => r.response), inquiries.map((_, i) => `answer ${i}`));
  assert.ok(results.every((r) => r.status === "responded"));
});

test("an inquiry already final resolves at once; an unknown id rejects alone with not_found", async () => {
  const [done, open] = await pendingInquiries(2, "Mixed");
  await human.respond(done.id, "early");
  const waiter = agent.waiter();
  const unknown = waiter.wait(987654321);
  const early = await waiter.wait(done.id);
  assert.equal(early.response, "early");
  await assert.rejects(unknown, (err) => err instanceof HitlError && err.status === 404 && err.code === "not_found");
  const later = waiter.wait(open.id);
  await human.respond(open.id, "later");
  assert.equal((await later).response, "later");
  waiter.close();
});

test("waits that arrive in waves are merged onto fewer streams and none is lost", async () => {
  const waiter = agent.waiter();
  const waits = [];
  const ids = [];
  let opened = 0;
  const real = globalThis.fetch;
  globalThis.fetch = (url, init) => {
    if (String(url).endsWith("/v1/inquiries/wait")) opened++;
    return real(url, init);
  };
  try {
    for (let wave = 0; wave < 7; wave++) {
      const [q] = await pendingInquiries(1, `Wave ${wave}`);
      ids.push(q.id);
      waits.push(waiter.wait(q.id));
      // Each wave gets a stream of its own: past four, a new one takes the others' ids over.
      await until(() => opened > wave, `wave ${wave}'s stream opens`);
    }
  } finally {
    globalThis.fetch = real;
  }
  assert.equal(opened, 7, "each wave opened a stream");
  // Past four, each new stream took an older one's ids over and the older one closed once the
  // new one was waiting: seven streams opened, four left open.
  await until(() => waiter.streams.size === 4, "the streams taken over are closed");
  for (const id of ids) await human.respond(id, `w${id}`);
  const results = await Promise.all(waits);
  assert.deepEqual(results.map((r) => r.response), ids.map((id) => `w${id}`));
  waiter.close();
});

test("waits ride out a server killed and restarted under them", async () => {
  const inquiries = await pendingInquiries(20, "Restart");
  const waiter = agent.waiter();
  const all = waiter.waitAll(inquiries.map((q) => q.id));
  await human.respond(inquiries[0].id, "before the crash");
  await server.restart();
  await Promise.all(inquiries.slice(1).map((q) => human.respond(q.id, "after the crash")));
  const results = await all;
  assert.equal(results[0].response, "before the crash");
  assert.ok(results.slice(1).every((r) => r.response === "after the crash"));
  waiter.close();
});

test("ask({ waiter }) creates the inquiry and waits for it on the waiter's stream", async () => {
  const waiter = agent.waiter();
  const answering = [];
  const inquiry = await agent.ask({ prompt: "Through the waiter?" }, { waiter, onCreated: (q) => answering.push(human.respond(q.id, "yes")) });
  await Promise.all(answering);
  assert.equal(inquiry.response, "yes");
  waiter.close();
});

test("an aborted wait rejects with its reason and leaves the others waiting", async () => {
  const [a, b] = await pendingInquiries(2, "Abort");
  const waiter = agent.waiter();
  const controller = new AbortController();
  const aborted = waiter.wait(a.id, { signal: controller.signal });
  const kept = waiter.wait(b.id);
  controller.abort(new Error("the run was stopped"));
  await assert.rejects(aborted, /the run was stopped/);
  await human.respond(b.id, "still here");
  assert.equal((await kept).response, "still here");
  waiter.close();
});

test("close() rejects the waits still open, and later waits, with WaiterClosedError", async () => {
  const [q] = await pendingInquiries(1, "Close");
  const waiter = agent.waiter();
  const open = waiter.wait(q.id);
  waiter.close();
  await assert.rejects(open, WaiterClosedError);
  await assert.rejects(waiter.wait(q.id), WaiterClosedError);
});

test("a server gone for longer than giveUpAfterMs rejects the waits with UnreachableError", async () => {
  const [q] = await pendingInquiries(1, "Gone");
  const impatient = new HitlClient({ url: server.url, token: agent.token, giveUpAfterMs: 300 });
  const waiter = impatient.waiter();
  const waiting = waiter.wait(q.id);
  await server.kill();
  try {
    await assert.rejects(waiting, UnreachableError);
  } finally {
    await server.spawn();
    waiter.close();
  }
});
