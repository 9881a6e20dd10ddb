// @hitl/client/claude-agent-sdk with the real Claude Agent SDK: query() drives the `claude`
// binary the SDK ships, against a local fake of Anthropic's API that asks to use the Write tool;
// a person in hitl allows, edits or denies it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { once } from "node:events";
import { canUseTool } from "../dist/claude-agent-sdk.js";
import { TestServer } from "./server.mjs";
import { claudeTurn, toolResultText } from "./claude-turn.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("claude-agent", "agent");
  human = await server.client("claude-human", "responder");
});

after(() => server.stop()); // removes server.dir, where the agents work too

/**
 * run runs one agent turn whose Write canUseTool asks hitl about with options; onAsked (the
 * person) answers. It returns claudeTurn's findings and the inquiry.
 */
async function run(name, options, onAsked) {
  const asked = [];
  const answered = [];
  const r = await claudeTurn(server.dir, `toolu_${name}`, {
    canUseTool: canUseTool(agent, { ...options, onAsked: (inq) => { asked.push(inq); answered.push(onAsked(inq)); } }),
  });
  await Promise.all(answered);
  assert.equal(asked.length, 1, "one inquiry for the one tool use");
  return { ...r, inquiry: await agent.getInquiry(asked[0].id) };
}

test("approve: the tool runs with the proposed input", async () => {
  const r = await run("approve", { assigned_to: "claude-human" }, (inq) => human.respond(inq.id, { decision: "approve" }));
  assert.equal(r.written, "proposed\n");
  assert.notEqual(r.toolResult.is_error, true);
  const inq = r.inquiry;
  assert.equal(inq.request_type, "approval");
  assert.equal(inq.tool_call.id, "toolu_approve", "the SDK's tool use id");
  assert.equal(inq.tool_call.name, "Write");
  assert.deepEqual(inq.tool_call.arguments, { file_path: r.file, content: "proposed\n" });
  assert.deepEqual(inq.allowed_decisions, ["approve", "edit", "reject"]);
  assert.deepEqual(inq.assigned_to, ["claude-human"]);
  assert.equal(inq.tool_result.decision, "approve");
});

test("edit: the tool runs with the person's input", async () => {
  const r = await run("edit", { prompt: "Write the release notes?" }, (inq) =>
    human.respond(inq.id, { decision: "edit", args: { file_path: inq.tool_call.arguments.file_path, content: "edited by a person\n" } }));
  assert.equal(r.written, "edited by a person\n");
  assert.equal(r.inquiry.prompt, "Write the release notes?");
  assert.equal(r.inquiry.tool_result.decision, "edit");
});

test("reject: the tool does not run and the model reads hitl's sentence with the person's reason", async () => {
  const r = await run("reject", {}, (inq) => human.respond(inq.id, { decision: "reject", message: "not in the release branch" }));
  assert.equal(r.written, null, "the file was not written");
  assert.equal(r.toolResult.is_error, true);
  assert.equal(toolResultText(r.toolResult), "The human rejected your call of Write. Do not run Write. Their reason: not in the release branch");
});

test("nobody answers by the deadline: denied with hitl's sentence", async () => {
  const r = await run("deadline", { timeout_seconds: 1 }, () => undefined);
  assert.equal(r.written, null);
  assert.equal(r.inquiry.status, "timeout");
  assert.equal(r.toolResult.is_error, true);
  assert.equal(toolResultText(r.toolResult), r.inquiry.tool_result.content);
  assert.match(toolResultText(r.toolResult), /deadline|answer/i);
});

test("cancelled in hitl: denied with the reason", async () => {
  const r = await run("cancel", {}, (inq) => server.admin.cancel(inq.id, "the release was called off"));
  assert.equal(r.written, null);
  assert.equal(r.inquiry.status, "cancelled");
  assert.match(toolResultText(r.toolResult), /the release was called off/);
});

// The returned function alone, as the SDK calls it, for what a real turn cannot show cheaply.
const sdkOptions = (over = {}) => ({ signal: new AbortController().signal, toolUseID: "toolu_direct", requestId: "req-1", ...over });

test("the same tool use asked about twice (a restarted process) is one inquiry", async () => {
  const ids = [];
  const decide = canUseTool(agent, { onAsked: (inq) => { ids.push(inq.id); if (ids.length === 1) human.respond(inq.id, { decision: "approve" }); } });
  const first = await decide("Bash", { command: "ls" }, sdkOptions({ toolUseID: "toolu_twice" }));
  const second = await decide("Bash", { command: "ls" }, sdkOptions({ toolUseID: "toolu_twice" }));
  assert.deepEqual(first, { behavior: "allow", updatedInput: { command: "ls" }, toolUseID: "toolu_twice" });
  assert.deepEqual(second, first);
  assert.equal(ids[0], ids[1]);
});

test("without a tool use id, the request id, then the name and input, make the key", async () => {
  const ids = [];
  const decide = canUseTool(agent, { onAsked: (inq) => { ids.push(inq); if (inq.status === "pending") human.respond(inq.id, { decision: "reject", message: "no" }); } });
  const a = await decide("Bash", { command: "rm -rf build", cwd: "/x" }, sdkOptions({ toolUseID: undefined, requestId: undefined }));
  const b = await decide("Bash", { cwd: "/x", command: "rm -rf build" }, sdkOptions({ toolUseID: undefined, requestId: undefined }));
  const c = await decide("Bash", { command: "ls" }, sdkOptions({ toolUseID: undefined, requestId: "req-only" }));
  assert.deepEqual(a, { behavior: "deny", message: "The human rejected your call of Bash. Do not run Bash. Their reason: no", toolUseID: undefined });
  assert.deepEqual(b, a);
  assert.equal(ids[0].id, ids[1].id, "the same name and input, in any key order");
  assert.match(ids[0].tool_call.id, /^sha256-[0-9a-f]{64}$/);
  assert.equal(ids[2].tool_call.id, "req-only");
  assert.equal(c.behavior, "deny");
});

test("the SDK's abort signal stops the wait", async () => {
  const controller = new AbortController();
  const decide = canUseTool(agent, { onAsked: () => controller.abort(new Error("the turn was interrupted")) });
  await assert.rejects(decide("Bash", { command: "sleep 1" }, sdkOptions({ toolUseID: "toolu_abort", signal: controller.signal })), /interrupted/);
});

test("a misspelt option or a forgotten hitl argument is a TypeError when canUseTool is made", () => {
  assert.throws(() => canUseTool(agent, { assignedTo: "group:ops" }), (err) =>
    err instanceof TypeError &&
    /^canUseTool: unknown option "assignedTo" \(did you mean assigned_to\?\); it accepts prompt, allowed_decisions, inputSchema, pollSeconds, onAsked, the inquiry's fields \(.*assigned_to/.test(err.message));
  assert.throws(() => canUseTool(agent, { input_schema: () => undefined }), /unknown option "input_schema" \(did you mean inputSchema\?\)/);
  assert.throws(() => canUseTool({ prompt: "Allow?" }), /^TypeError: canUseTool needs a HitlClient as its first argument \(new HitlClient\(\{ url, token \}\)\); it was given an object$/);
  assert.equal(typeof canUseTool(agent, { assigned_to: "group:ops", timeout_seconds: 60, onAsked: () => {} }), "function");
});

test("the SDK's sentence is the prompt, its details the context", async () => {
  let asked;
  const decide = canUseTool(agent, { context: { ticket: "OPS-7" }, allowed_decisions: ["approve", "reject"], onAsked: (inq) => { asked = inq; human.respond(inq.id, { decision: "approve" }); } });
  await decide("Read", { file_path: "/etc/hosts" }, sdkOptions({ toolUseID: "toolu_title", title: "Claude wants to read /etc/hosts", blockedPath: "/etc/hosts", decisionReason: "outside the working directory" }));
  assert.equal(asked.prompt, "Claude wants to read /etc/hosts");
  assert.deepEqual(asked.context, { ticket: "OPS-7", blocked_path: "/etc/hosts", decision_reason: "outside the working directory" });
  assert.deepEqual(asked.allowed_decisions, ["approve", "reject"]);
  assert.equal(asked.tool_call.parameters_schema, undefined, "no schema without edit");
});

test("the example runs: a person edits the note before it is written", async () => {
  const token = await server.key("claude-example-agent", "agent");
  const child = spawn(process.execPath, ["examples/claude-agent-sdk/index.mjs"], {
    cwd: pkg, env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  const answered = [];
  child.stderr.on("data", (d) => {
    stderr += d;
    const m = /asked inquiry (\d+)/.exec(stderr);
    if (m && answered.length === 0) {
      answered.push(human.getInquiry(Number(m[1])).then((inq) =>
        human.respond(inq.id, { decision: "edit", args: { ...inq.tool_call.arguments, content: "Deploy v2.5.0 on Monday.\n" } })));
    }
  });
  const [code] = await once(child, "exit");
  await Promise.all(answered);
  assert.equal(code, 0, stderr);
  const out = JSON.parse(stdout.trim().split("\n").pop());
  assert.equal(out.written, "Deploy v2.5.0 on Monday.\n");
  assert.match(out.model_said, /^The tool said: /);
});

test("a deadline with an approving fallback allows the tool use", async () => {
  const decide = canUseTool(agent, { timeout_seconds: 1, fallback_policy: "complete_with_fallback", fallback_value: { decision: "approve" } });
  const r = await decide("Bash", { command: "make test" }, sdkOptions({ toolUseID: "toolu_fallback" }));
  assert.deepEqual(r, { behavior: "allow", updatedInput: { command: "make test" }, toolUseID: "toolu_fallback" });
});
