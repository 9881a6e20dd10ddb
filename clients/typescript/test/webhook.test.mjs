// verifyWebhook against hitl's real deliveries, and the Standard Webhooks spec's example.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { once } from "node:events";
import { verifyWebhook } from "../dist/index.js";
import { TestServer } from "./server.mjs";

let server, receiver, deliveries;

before(async () => {
  server = await TestServer.start();
  deliveries = [];
  let arrived;
  deliveries.next = new Promise((r) => { arrived = r; });
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      arrived();
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
});

after(async () => {
  receiver.close();
  await server.stop();
});

test("verifyWebhook accepts hitl's own delivery and refuses a wrong secret, a changed body, an old one", async () => {
  const hook = await server.admin.request("POST", "/v1/webhooks", {
    body: { url: `http://127.0.0.1:${receiver.address().port}/hook`, events: ["inquiry.created"] },
  });
  assert.match(hook.secret, /^whsec_/);
  const agent = await server.client("ts-hook-agent", "agent");
  const inq = await agent.createInquiry({ prompt: "Deliver me?" });
  await deliveries.next;
  const { headers, body } = deliveries[0];
  assert.equal(JSON.parse(body.toString()).data.id, inq.id);

  assert.equal(verifyWebhook(hook.secret, headers, body), true);
  assert.equal(verifyWebhook(hook.secret, headers, body.toString()), true, "a string body verifies as its bytes do");
  assert.equal(verifyWebhook("whsec_" + Buffer.alloc(32, 7).toString("base64"), headers, body), false, "another secret");
  assert.equal(verifyWebhook(hook.secret, headers, body.toString().replace("Deliver", "Forge")), false, "a changed body");
  const later = new Date(Number(headers["webhook-timestamp"]) * 1000 + 10 * 60 * 1000);
  assert.equal(verifyWebhook(hook.secret, headers, body, { now: later }), false, "ten minutes later: a replay");
  assert.equal(verifyWebhook(hook.secret, { ...headers, "webhook-signature": undefined }, body), false, "no signature");
});

test("verifyWebhook on the Standard Webhooks specification's example", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const headers = new Headers({
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  });
  const body = '{"test": 2432232314}';
  const now = new Date(1614265330 * 1000);
  assert.equal(verifyWebhook(secret, headers, body, { now }), true);
  assert.equal(verifyWebhook(secret, headers, '{"test": 2432232315}', { now }), false);
});
