// request_user_input as an MCP task (the 2025-11-25 tasks utility), with the MCP TypeScript
// SDK's task API as the client, over stdio with `hitl mcp` and over streamable HTTP at /mcp
// (in a session): the call returns a task at once, the SDK polls tasks/get until a
// person answers in hitl, and tasks/result is the tool's result; tasks/cancel cancels the
// inquiry; tasks/list lists the key's tasks; a status notification says when a task ends.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError, TaskStatusNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { TestServer } from "./server.mjs";

let server, human;

before(async () => {
  server = await TestServer.start();
  human = await server.client("mcp-tasks-human", "responder");
});

after(() => server.stop());

const inquiryOf = (taskId) => Number(taskId.replace(/^inquiry-/, ""));

// Each transport's tests run as an agent key of their own, whose tasks they list.
const transports = {
  "over stdio (hitl mcp)": { transport: (token) => new StdioClientTransport({
    command: process.env.HITL_BIN, args: ["mcp"], env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token }, stderr: "inherit" }) },
  "over streamable HTTP (/mcp)": {
    transport: (token) => new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }) },
};

for (const [name, { transport, skip }] of Object.entries(transports)) describe(name, { skip }, () => {
  let client;
  const notified = []; // the notifications/tasks/status the client received

  before(async () => {
    const token = await server.key(`mcp-tasks-${name.includes("stdio") ? "stdio" : "http"}`, "agent");
    client = new Client({ name: "hitl-tasks-test", version: "1.0.0" });
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => { notified.push(n.params); });
    await client.connect(transport(token));
  });

  after(() => client?.close());

  /** startTask calls request_user_input as a task, and returns the task the server created. */
  async function startTask(args) {
    const { task } = await client.request({ method: "tools/call", params: { name: "request_user_input", arguments: args } },
      CreateTaskResultSchema, { task: { ttl: 3_600_000 } });
    assert.equal(task.status, "working");
    assert.match(task.taskId, /^inquiry-\d+$/);
    return task;
  }

  test("announced: the tasks capability, and request_user_input may run as a task", async () => {
    assert.deepEqual(client.getServerCapabilities().tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools(); // also tells the SDK which tools run as tasks
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.request_user_input.execution, { taskSupport: "optional" });
    assert.equal(byName.get_user_input.execution, undefined);
  });

  test("callToolStream: created, polled while the person decides, then the answer as the tool's result", async () => {
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({ name: "request_user_input",
      arguments: { prompt: "Deploy 2.0 to production?", request_type: "approval" } });
    const seen = [];
    let created, result;
    for await (const message of stream) {
      seen.push(message.type === "taskStatus" ? message.task.status : message.type);
      if (message.type === "taskCreated") created = message.task;
      if (message.type === "taskStatus" && message.task.status === "working" && seen.filter((s) => s === "working").length === 1) {
        // The person answers in hitl while the SDK polls.
        const inq = await human.getInquiry(inquiryOf(created.taskId));
        assert.equal(inq.status, "pending");
        assert.equal(inq.prompt, "Deploy 2.0 to production?");
        await human.respond(inq.id, { approved: true }, "ship it");
      }
      if (message.type === "error") throw message.error;
      if (message.type === "result") result = message.result;
    }
    assert.deepEqual(seen, ["taskCreated", "working", "completed", "result"]);
    assert.equal(result.structuredContent.status, "responded");
    assert.deepEqual(result.structuredContent.answer, { approved: true });
    assert.equal(result.structuredContent.comment, "ship it");
    assert.equal(result._meta["io.modelcontextprotocol/related-task"].taskId, created.taskId);

    const task = await client.experimental.tasks.getTask(created.taskId);
    assert.equal(task.status, "completed");
    assert.equal(task.createdAt, created.createdAt);
    assert.equal(task.pollInterval, 5000);
    assert.equal(task.ttl, null);
    const note = notified.find((n) => n.taskId === created.taskId);
    assert.equal(note?.status, "completed", `a status notification for ${created.taskId}: ${JSON.stringify(notified)}`);
  });

  test("tasks/result waits until the person answers", async () => {
    const task = await startTask({ prompt: "Which region?", request_type: "selection", options: ["eu-west", "us-east"] });
    const pending = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    let settled = false;
    pending.finally(() => { settled = true; });
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, "working");
    assert.equal(settled, false, "tasks/result returned before the answer");
    await human.respond(inquiryOf(task.taskId), "eu-west");
    const result = await pending;
    assert.equal(result.structuredContent.answer, "eu-west");
    assert.match(result.content[0].text, /^The human answered: "eu-west"/);
  });

  test("tasks/cancel cancels the inquiry; an ended task cannot be cancelled, an unknown one is not found", async () => {
    const task = await startTask({ prompt: "Rotate every key now?" });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, "cancelled");
    assert.equal((await human.getInquiry(inquiryOf(task.taskId))).status, "cancelled");
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, "cancelled");

    await assert.rejects(client.experimental.tasks.cancelTask(task.taskId),
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /already cancelled/.test(e.message));
    await assert.rejects(client.experimental.tasks.getTask("inquiry-999999"),
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /no task "inquiry-999999"/.test(e.message));
    await assert.rejects(client.experimental.tasks.getTaskResult("not-a-task", CallToolResultSchema),
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  });

  test("tasks/list lists this key's tasks, newest first", async () => {
    const newest = await startTask({ prompt: "Listed?" });
    const { tasks, nextCursor } = await client.experimental.tasks.listTasks();
    assert.equal(nextCursor, undefined);
    assert.equal(tasks[0].taskId, newest.taskId);
    assert.equal(tasks[0].status, "working");
    assert.deepEqual(tasks.map((t) => t.status).sort(), ["cancelled", "completed", "completed", "working"]);
    await client.experimental.tasks.cancelTask(newest.taskId);
  });
});
