// MCP elicitation with the MCP TypeScript SDK as the client: request_user_input with
// answer_in_client also asks the person at the client (elicitation/create) while the inquiry
// goes to its assignees in hitl; the first answer wins. Over stdio (`hitl mcp`) and over
// streamable HTTP (/mcp on `hitl serve`, in a session bound to its key).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { TestServer } from "./server.mjs";

let server, annToken, otherToken, person;

before(async () => {
  server = await TestServer.start();
  // ann's key asks through her agent, and she answers in its client: she may answer.
  annToken = (await server.admin.request("POST", "/v1/keys", { body: { name: "ann", roles: ["agent", "responder"] } })).token;
  otherToken = await server.key("other-agent", "agent");
  person = await server.client("pat", "responder");
});

after(() => server.stop());

const transports = {
  stdio: (token) => new StdioClientTransport({
    command: process.env.HITL_BIN, args: ["mcp"], env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token }, stderr: "inherit",
  }),
  http: (token) => new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
};

/** connect starts a client that takes form elicitations (and URL ones with url set); each is
 * handled by onElicit(request, extra). */
async function connect(transport, onElicit, { url = false } = {}) {
  const elicitation = url ? { form: {}, url: {} } : { form: {} };
  const client = new Client({ name: "hitl-elicitation-test", version: "1.0.0" }, { capabilities: { elicitation } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => onElicit(request, extra));
  await client.connect(transport);
  return client;
}

/** ask calls request_user_input with answer_in_client and returns its structured result. */
async function ask(client, args) {
  const res = await client.callTool({ name: "request_user_input", arguments: { ...args, answer_in_client: true } });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  return res.structuredContent;
}

/** pendingByPrompt is the pending inquiry with this prompt, once it exists. */
async function pendingByPrompt(prompt) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await person.listInquiries({ status: "pending" });
    const inq = page.data.find((i) => i.prompt === prompt);
    if (inq) return inq;
    if (Date.now() > deadline) throw new Error(`nobody asked ${JSON.stringify(prompt)}`);
    await delay(25);
  }
}

/** answerThroughLink opens an answer link's page and posts its form with value in its one text field. */
async function answerThroughLink(link, value) {
  const page = await (await fetch(link)).text();
  const csrf = page.match(/name="csrf" value="([^"]+)"/)?.[1];
  const field = page.match(/<(?:input|textarea)[^>]*name="(answer[^"]*)"/)?.[1];
  assert.ok(csrf && field, `the link's page has a form: ${page.replace(/[\s\S]*<main/, "<main").slice(0, 3000)}`);
  const res = await fetch(link, { method: "POST", redirect: "manual", body: new URLSearchParams({ csrf, [field]: value }) });
  assert.equal(res.status, 303, await res.text());
}

for (const [name, transport] of Object.entries(transports)) {
  test(`${name}: the person at the client answers the form; declines; dismisses and a person answers in hitl`, async () => {
    const seen = [];
    const client = await connect(transport(annToken), async (request) => {
      const { message, requestedSchema, mode } = request.params;
      seen.push({ message, requestedSchema, mode });
      if (message.startsWith("Which region")) return { action: "accept", content: { answer: "eu" } };
      if (message.startsWith("Ship")) return { action: "accept", content: { approved: true, comment: "in the client" } };
      if (message.startsWith("Drop")) return { action: "decline" };
      return { action: "cancel" };
    });
    try {
      // An approval: the default schema is the form.
      const shipped = await ask(client, { prompt: `Ship ${name}?`, request_type: "approval", context: "all checks green" });
      assert.equal(shipped.status, "responded");
      assert.equal(shipped.responded_by, "ann");
      assert.deepEqual(shipped.answer, { approved: true, comment: "in the client" });
      assert.equal(seen[0].mode, "form");
      assert.match(seen[0].message, /all checks green/);
      assert.deepEqual(seen[0].requestedSchema.required, ["approved"]);

      // Options: one enum field with titles; the answer is the chosen value.
      const region = await ask(client, { prompt: `Which region (${name})?`, options: [{ value: "eu", label: "Europe" }, { value: "us", label: "United States" }] });
      assert.equal(region.status, "responded");
      assert.equal(region.answer, "eu");
      assert.deepEqual(seen[1].requestedSchema.properties.answer.oneOf, [{ const: "eu", title: "Europe" }, { const: "us", title: "United States" }]);

      // Decline: the inquiry is declined (cancelled, with the reason).
      const dropped = await ask(client, { prompt: `Drop the table (${name})?` });
      assert.equal(dropped.status, "cancelled");
      const inq = await person.getInquiry(dropped.inquiry_id);
      assert.equal(inq.declined_by, "ann");

      // Cancel (dismissed): still pending, and a person answers in hitl.
      const [waited] = await Promise.all([
        ask(client, { prompt: `Rename the service (${name})?` }),
        (async () => {
          const pending = await pendingByPrompt(`Rename the service (${name})?`);
          while (seen.length < 4) await delay(25); // the client has been asked and dismissed it
          assert.equal((await person.getInquiry(pending.id)).status, "pending");
          await person.respond(pending.id, "call it billing");
        })(),
      ]);
      assert.equal(waited.status, "responded");
      assert.equal(waited.responded_by, "pat");
      assert.equal(waited.answer, "call it billing");
    } finally {
      await client.close();
    }
  });

  test(`${name}: a person answers in hitl first, and the outstanding elicitation is cancelled`, async () => {
    let aborted = false;
    const client = await connect(transport(annToken), (_request, extra) => new Promise((resolve) => {
      extra.signal.addEventListener("abort", () => { aborted = true; resolve({ action: "cancel" }); });
    }));
    try {
      const prompt = `Restart the cache (${name})?`;
      const [result] = await Promise.all([
        ask(client, { prompt }),
        pendingByPrompt(prompt).then((inq) => person.respond(inq.id, "yes, now")),
      ]);
      assert.equal(result.status, "responded");
      assert.equal(result.responded_by, "pat");
      const deadline = Date.now() + 10_000;
      while (!aborted && Date.now() < deadline) await delay(25);
      assert.ok(aborted, "the client's elicitation handler was told the request was cancelled");
    } finally {
      await client.close();
    }
  });

  test(`${name}: a sensitive field is asked through a one-time answer link (URL mode), and completion is notified`, async () => {
    let elicited;
    const completed = [];
    let answered;
    const client = await connect(transport(annToken), (request) => {
      elicited = request.params;
      // The person consents, then answers on the page the link opens (here: fetch does).
      answered = answerThroughLink(request.params.url, "s3cr3t");
      return { action: "accept" };
    }, { url: true });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => { completed.push(n.params.elicitationId); });
    try {
      const result = await ask(client, {
        prompt: `The deploy token (${name})?`,
        response_schema: { type: "object", properties: { token: { type: "string", writeOnly: true, title: "Token" } }, required: ["token"] },
      });
      await answered;
      assert.equal(elicited.mode, "url");
      assert.match(elicited.url, new RegExp(`^${server.url}/a/`));
      assert.ok(elicited.elicitationId);
      assert.equal(result.status, "responded");
      assert.equal(result.responded_by, "ann");
      assert.deepEqual(result.answer, { token: "s3cr3t" });
      const deadline = Date.now() + 10_000;
      while (!completed.includes(elicited.elicitationId) && Date.now() < deadline) await delay(25);
      assert.deepEqual(completed, [elicited.elicitationId]);
      // The link answered once: the inquiry is final, so it answers no more.
      const again = await fetch(elicited.url);
      assert.doesNotMatch(await again.text(), /name="csrf"/);
    } finally {
      await client.close();
    }
  });

  test(`${name}: an agent's key may not be asked its own question in its client`, async () => {
    const client = await connect(transport(otherToken), () => { throw new Error("an agent's key was asked"); });
    try {
      const res = await client.callTool({ name: "request_user_input", arguments: { prompt: "Mine?", answer_in_client: true } });
      assert.equal(res.isError, true);
      assert.match(res.content[0].text, /responder role/);
    } finally {
      await client.close();
    }
  });
}

test("http: a session is its key's: another key naming it is refused, and DELETE ends it", async () => {
  const transport = transports.http(annToken);
  const client = await connect(transport, () => ({ action: "cancel" }));
  const sessionId = transport.sessionId;
  assert.ok(sessionId, "initialize returned an Mcp-Session-Id");
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": sessionId };
  const list = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });

  const stolen = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, Authorization: `Bearer ${otherToken}` }, body: list });
  assert.equal(stolen.status, 404);
  assert.match(stolen.headers.get("content-type"), /application\/json/);
  const body = await stolen.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.match(body.error.message, /session not found/);

  // Still ann's.
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "request_user_input"));

  await transport.terminateSession(); // DELETE /mcp
  const after = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, Authorization: `Bearer ${annToken}` }, body: list });
  assert.equal(after.status, 404);
  await client.close();
});
