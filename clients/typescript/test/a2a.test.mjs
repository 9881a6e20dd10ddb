// hitl as an A2A agent, driven by the official A2A client (@a2a-js/sdk 1.3.0) as it comes (A2A
// 1.0) and with its legacyCompat (A2A 0.3): the card fetched and parsed, messages sent and
// streamed to the answer a person gives in hitl, push notifications received by a local
// receiver, a decline, a cancel, and bad requests answered with JSON-RPC errors, never an HTML
// page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { AgentCard, Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { TestServer } from "./server.mjs";

let server, agentToken, alice;
const clients = {}; // by protocol version: { client, sent } (sent: the JSON-RPC methods on the wire)

/** withKey is fetch with the agent's hitl key, as A2A's bearer scheme says; it notes each method sent. */
function withKey(token, sent = []) {
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${token}`);
    if (typeof init.body === "string") sent.push(JSON.parse(init.body).method);
    return fetch(url, { ...init, headers });
  };
}

/**
 * clientFor is the SDK's client of hitl. "1.0": the SDK as it comes, from the card's URL. "0.3":
 * the card as a 0.3 client reads it (url and preferredTransport, without 1.0's
 * supportedInterfaces), through the SDK's legacyCompat.
 */
async function clientFor(token, version, sent = []) {
  if (version === "1.0") {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withKey(token, sent) })],
    }));
    return factory.createFromUrl(server.url); // the card needs no key
  }
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    transports: [new JsonRpcTransportFactory({ legacyCompat, fetchImpl: withKey(token, sent) })],
  }));
  const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
  delete card.supportedInterfaces;
  return factory.createFromAgentCard(card);
}

/** message is a user message: the question as text, and how to ask as a data part. */
function message(text, data, contextId) {
  const parts = [{ content: { $case: "text", value: text } }];
  if (data) parts.push({ content: { $case: "data", value: data } });
  return { messageId: randomUUID(), role: Role.ROLE_USER, parts, ...(contextId ? { contextId } : {}) };
}

before(async () => {
  server = await TestServer.start();
  agentToken = await server.key("a2a-ts-agent", "agent");
  alice = await server.client("alice", "responder");
  await server.admin.request("PUT", "/v1/templates/refund", { body: { prompt: "Refund order {{.order}}?" } });
  for (const version of ["1.0", "0.3"]) {
    const sent = [];
    clients[version] = { client: await clientFor(agentToken, version, sent), sent };
  }
});

after(async () => {
  await server.stop();
});

test("the Agent Card is served to anyone, as JSON", async () => {
  const res = await fetch(`${server.url}/.well-known/agent-card.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^application\/json/);
  const card = await res.json();
  assert.equal(card.url, `${server.url}/a2a`);
  assert.equal(card.preferredTransport, "JSONRPC");
  const { type, scheme, description } = card.securitySchemes.hitlApiKey;
  assert.deepEqual({ type, scheme }, { type: "http", scheme: "bearer" });
  assert.match(description, /hitl keys create NAME --role agent/);
  assert.deepEqual(card.supportedInterfaces.map((i) => i.protocolVersion), ["1.0", "0.3"]);
});

test("the one card tells 1.0 and 0.3 readers alike that a bearer key is needed", async () => {
  const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
  // 1.0: the SDK's own AgentCard.fromJSON reads the protobuf JSON names.
  const v1 = AgentCard.fromJSON(card);
  // 0.3: the SDK's legacyCompat resolver, given the card as a 0.3 client sees it.
  const legacy = { ...card };
  delete legacy.supportedInterfaces;
  const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true }, fetchImpl: async () => Response.json(legacy) });
  const v03 = await resolver.resolve(server.url);
  for (const [version, parsed] of [["1.0", v1], ["0.3", v03]]) {
    const scheme = parsed.securitySchemes.hitlApiKey?.scheme;
    assert.equal(scheme?.$case, "httpAuthSecurityScheme", `${version}: ${JSON.stringify(parsed.securitySchemes)}`);
    assert.equal(scheme.value.scheme, "bearer", version);
    assert.deepEqual(parsed.securityRequirements, [{ schemes: { hitlApiKey: { list: [] } } }], version);
  }
});

for (const version of ["1.0", "0.3"]) {

test(`${version}: the SDK reads the card, and with a key the extended card`, async () => {
  const { client, sent } = clients[version];
  const card = client.agentCard;
  assert.equal(card.name, "hitl");
  assert.equal(card.supportedInterfaces[0].url, `${server.url}/a2a`);
  assert.equal(card.supportedInterfaces[0].protocolBinding, "JSONRPC");
  assert.match(card.supportedInterfaces[0].protocolVersion, version === "1.0" ? /^1\.0$/ : /^0\.3/);
  assert.equal(card.capabilities.streaming, true);
  assert.equal(card.capabilities.pushNotifications, true);
  assert.deepEqual(card.skills.map((s) => s.id), ["ask-a-person", "ask-a-group"]);
  // The extended card, parsed by the SDK itself, adds a skill per template.
  const extended = await client.getAgentCard();
  assert.ok(extended.skills.some((s) => s.id === "template-refund"), JSON.stringify(extended.skills));
  const scheme = extended.securitySchemes.hitlApiKey.scheme;
  assert.equal(scheme.$case, "httpAuthSecurityScheme");
  assert.equal(scheme.value.scheme, "bearer");
  assert.ok(sent.includes(version === "1.0" ? "GetExtendedAgentCard" : "agent/getAuthenticatedExtendedCard"), String(sent));
});

test(`${version}: a message streams to completion when a person answers in hitl`, async () => {
  const { client, sent } = clients[version];
  const events = [];
  const stream = client.sendMessageStream({
    message: message("Ship release 7 today?", { assigned_to: ["alice"], response_schema: { type: "string" } }, `ts-release-7-${version}`),
  });
  for await (const ev of stream) {
    events.push(ev.payload);
    if (ev.payload.$case === "statusUpdate" && ev.payload.value.status.state === TaskState.TASK_STATE_WORKING) {
      const id = Number(ev.payload.value.taskId);
      const inq = await alice.getInquiry(id);
      assert.equal(inq.prompt, "Ship release 7 today?");
      assert.equal(inq.session, `ts-release-7-${version}`);
      await alice.respond(id, "yes, after the freeze", "checked the dashboard");
    }
  }
  assert.deepEqual(events.map((e) => e.$case), ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
  assert.equal(events[0].value.status.state, TaskState.TASK_STATE_SUBMITTED);
  assert.equal(events[0].value.contextId, `ts-release-7-${version}`);
  const [data, text] = events[2].value.artifact.parts;
  assert.deepEqual(data.content, { $case: "data", value: "yes, after the freeze" });
  assert.deepEqual(text.content, { $case: "text", value: "yes, after the freeze" });
  assert.equal(events[3].value.status.state, TaskState.TASK_STATE_COMPLETED);

  // The task stays readable: getTask after the end.
  const task = await client.getTask({ id: events[0].value.id });
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(task.metadata.hitl.responded_by, "alice");
  assert.equal(task.metadata.hitl.comment, "checked the dashboard");
});

test(`${version}: push notifications reach a local receiver with the config's token`, async () => {
  const { client, sent } = clients[version];
  const pushes = [];
  let arrived;
  const next = new Promise((r) => { arrived = r; });
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      pushes.push({ path: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      res.writeHead(200).end();
      arrived();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const hook = `http://127.0.0.1:${receiver.address().port}`;
  try {
    const task = await client.sendMessage({
      message: message("Approve the vendor invoice?", { assigned_to: ["alice"] }),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${hook}/given`, token: "ts-token-1", id: "", tenant: "" } },
    });
    const set = await client.createTaskPushNotificationConfig({ taskId: task.id, id: "later", url: `${hook}/later`, token: "ts-token-2", tenant: "" });
    assert.equal(set.id, "later");
    const list = await client.listTaskPushNotificationConfig({ taskId: task.id, tenant: "", pageSize: 0, pageToken: "" });
    assert.deepEqual(list.configs.map((c) => c.url).sort(), [`${hook}/given`, `${hook}/later`]);
    const one = await client.getTaskPushNotificationConfig({ taskId: task.id, id: "later", tenant: "" });
    assert.equal(one.token, "ts-token-2");
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "later", tenant: "" });

    await alice.respond(Number(task.id), "approved");
    await next;
    assert.equal(pushes.length, 1, JSON.stringify(pushes));
    const [push] = pushes;
    assert.equal(push.path, "/given");
    assert.equal(push.headers["x-a2a-notification-token"], "ts-token-1");
    // As A2A's own servers post it: in 1.0 a StreamResponse holding the task, in 0.3 the task.
    const pushed = version === "1.0" ? push.body.task : push.body;
    assert.equal(pushed.id, task.id);
    assert.equal(pushed.status.state, version === "1.0" ? "TASK_STATE_COMPLETED" : "completed");
    assert.equal(pushed.artifacts[0].parts[1].text, "approved");
  } finally {
    receiver.close();
  }
});

test(`${version}: a person who declines rejects the task with their reason`, async () => {
  const { client, sent } = clients[version];
  const task = await client.sendMessage({ message: message("Drop the audit table?", { assigned_to: ["alice"] }), configuration: { returnImmediately: true } });
  assert.equal(task.status.state, TaskState.TASK_STATE_SUBMITTED);
  await alice.request("POST", `/v1/inquiries/${task.id}/decline`, { body: { reason: "not without a backup" } });
  const got = await client.getTask({ id: task.id });
  assert.equal(got.status.state, TaskState.TASK_STATE_REJECTED);
  assert.equal(got.status.message.parts[0].content.value, "not without a backup");
});

test(`${version}: the agent cancels its task, once`, async () => {
  const { client, sent } = clients[version];
  const task = await client.sendMessage({ message: message("Restart the workers?"), configuration: { returnImmediately: true } });
  const cancelled = await client.cancelTask({ id: task.id });
  assert.equal(cancelled.status.state, TaskState.TASK_STATE_CANCELED);
  assert.equal((await alice.getInquiry(Number(task.id))).status, "cancelled");
  await assert.rejects(client.cancelTask({ id: task.id }), (err) => err.envelopeCode === -32002);
  // resubscribe to the ended task: its state, at once.
  const events = [];
  for await (const ev of client.resubscribeTask({ id: task.id })) events.push(ev.payload);
  assert.equal(events.at(-1).value.status.state, TaskState.TASK_STATE_CANCELED);
});

test(`${version}: bad requests get JSON-RPC errors with A2A's codes, never an HTML page`, async () => {
  const { client, sent } = clients[version];
  await assert.rejects(client.getTask({ id: "999999" }), (err) => err.envelopeCode === -32001);
  await assert.rejects(client.getTask({ id: "not-a-task" }), (err) => err.envelopeCode === -32001);
  await assert.rejects(client.sendMessage({ message: message("Go?", { deadline: "5pm" }), configuration: { returnImmediately: true } }),
    (err) => err.envelopeCode === -32602 && /unknown member "deadline"/.test(err.message));
  const file = { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "url", value: "https://example.com/a.pdf" }, mediaType: "application/pdf", filename: "a.pdf" }] };
  await assert.rejects(client.sendMessage({ message: file, configuration: { returnImmediately: true } }), (err) => err.envelopeCode === -32005);

  const post = (body, headers = { Authorization: `Bearer ${agentToken}` }) =>
    fetch(`${server.url}/a2a`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
  for (const [body, code] of [
    ["{not json", -32700],
    [JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "1" } }]), -32600],
    [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: {} }), -32601],
    [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: {} }), -32602],
  ]) {
    const res = await post(body);
    assert.equal(res.status, 200, body);
    assert.match(res.headers.get("content-type"), /^application\/json/);
    const reply = await res.json();
    assert.equal(reply.jsonrpc, "2.0");
    assert.equal(reply.error.code, code, `${body}: ${JSON.stringify(reply)}`);
  }
  const anonymous = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "1" } }), {});
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get("content-type"), /json/);
  assert.ok((await anonymous.json()).detail);
  await assert.rejects((await clientFor("not-a-key", version)).getTask({ id: "1" }), /401/);
});
}

test("the example in examples/a2a runs: it streams its question to the answer", async () => {
  const child = spawn(process.execPath, [fileURLToPath(new URL("../examples/a2a/index.mjs", import.meta.url)), "Rotate the TLS keys tonight?"], {
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentToken },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (b) => { out += b; });
  const exited = once(child, "exit");
  let inq;
  for (const deadline = Date.now() + 15_000; !inq; ) {
    const page = await alice.listInquiries({ status: "pending" });
    inq = page.data.find((i) => i.prompt === "Rotate the TLS keys tonight?");
    if (!inq && Date.now() > deadline) throw new Error(`the example asked nothing: ${out}`);
    if (!inq) await new Promise((r) => setTimeout(r, 50));
  }
  await alice.respond(inq.id, "yes");
  const [code] = await exited;
  assert.equal(code, 0, out);
  assert.match(out, new RegExp(`task ${inq.id} in context a2a-`));
  assert.match(out, /answer: "yes"/);
  assert.match(out, /TASK_STATE_COMPLETED\n$/);
});
