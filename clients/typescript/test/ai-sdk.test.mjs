// @hitl/client/ai-sdk with the real AI SDK (`ai`) and its scripted mock language model: the
// model calls a tool, a person decides through a real hitl server, and the model's next call
// sees what came of it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, tool, jsonSchema, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { withApproval, answerApprovalRequests } from "@hitl/client/ai-sdk";
import { inquiryRequestFields } from "../dist/openapi-fields.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { TestServer } from "./server.mjs";

let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("ai-sdk-agent", "agent");
  human = await server.client("ai-sdk-human", "responder");
});

after(async () => {
  await server.stop();
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model turn that calls one tool. */
function callsTool(toolCallId, toolName, input) {
  return {
    content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

/** A model turn that answers in words. */
function says(text) {
  return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
}

/** A scripted model: each doGenerate call gives the next turn; doGenerateCalls records the prompts. */
function model(...turns) {
  return new MockLanguageModelV4({ doGenerate: turns });
}

/** The tool results in the prompt of the model's last call. */
function toolResultsSeen(m) {
  const prompt = m.doGenerateCalls.at(-1).prompt;
  return prompt.filter((msg) => msg.role === "tool").flatMap((msg) => msg.content).filter((p) => p.type === "tool-result");
}

function refundTool(ran) {
  return tool({
    description: "Refund an order",
    inputSchema: z.object({ order_id: z.string(), amount: z.number().max(1000) }),
    execute: async (args, options) => {
      ran.push({ args, toolCallId: options.toolCallId });
      return { refunded: args.amount, order_id: args.order_id };
    },
  });
}

/** As a person in the inbox: answer each inquiry once it is asked, with answer(inquiry). */
function person(answer) {
  const asked = [];
  const done = [];
  return { asked, done, onCreated: (inq) => { asked.push(inq); done.push(answer(inq)); } };
}

test("approve: the tool runs with the model's arguments, and the model sees its output", async () => {
  const ran = [];
  const p = person((inq) => human.respond(inq.id, { decision: "approve" }));
  const refund = withApproval(agent, refundTool(ran), { name: "refund", assigned_to: "ai-sdk-human", onCreated: p.onCreated });
  const m = model(callsTool("call-approve", "refund", { order_id: "A-1", amount: 499 }), says("Refunded."));
  const result = await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund order A-1" });
  await Promise.all(p.done);
  assert.equal(result.text, "Refunded.");
  assert.deepEqual(ran, [{ args: { order_id: "A-1", amount: 499 }, toolCallId: "call-approve" }]);
  const [inq] = p.asked;
  assert.equal(inq.prompt, "Allow refund?");
  assert.equal(inq.tool_call.id, "call-approve");
  assert.equal(inq.tool_call.name, "refund");
  assert.deepEqual(inq.tool_call.arguments, { order_id: "A-1", amount: 499 });
  assert.equal(inq.tool_call.parameters_schema.properties.amount.maximum, 1000, "the zod schema, as JSON Schema");
  assert.deepEqual(inq.allowed_decisions, ["approve", "edit", "reject"]);
  assert.deepEqual(toolResultsSeen(m)[0].output, { type: "json", value: { refunded: 499, order_id: "A-1" } });
});

test("edit: the person's arguments reach execute; arguments outside the schema are refused and they try again", async () => {
  const ran = [];
  const refused = [];
  const p = person(async (inq) => {
    await assert.rejects(human.respond(inq.id, { decision: "edit", args: { order_id: "A-2", amount: 5000 } }), (err) => {
      refused.push(err);
      return err.status === 422;
    });
    await human.respond(inq.id, { decision: "edit", args: { order_id: "A-2", amount: 250 } });
  });
  const refund = withApproval(agent, refundTool(ran), { name: "refund", prompt: ({ input }) => `Refund ${input.amount} on ${input.order_id}?`, onCreated: p.onCreated });
  const m = model(callsTool("call-edit", "refund", { order_id: "A-2", amount: 900 }), says("Refunded 250."));
  await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund order A-2" });
  await Promise.all(p.done);
  assert.equal(refused.length, 1);
  assert.equal(p.asked[0].prompt, "Refund 900 on A-2?");
  assert.deepEqual(ran.map((r) => r.args), [{ order_id: "A-2", amount: 250 }]);
  assert.deepEqual(toolResultsSeen(m)[0].output, { type: "json", value: { refunded: 250, order_id: "A-2" } });
});

test("reject: the tool does not run and the model's next call sees the person's reason", async () => {
  const ran = [];
  const p = person((inq) => human.respond(inq.id, { decision: "reject", message: "no receipt on file" }));
  const refund = withApproval(agent, refundTool(ran), { name: "refund", onCreated: p.onCreated });
  const m = model(callsTool("call-reject", "refund", { order_id: "A-3", amount: 700 }), says("I could not refund it."));
  const result = await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund order A-3" });
  await Promise.all(p.done);
  assert.deepEqual(ran, []);
  assert.equal(result.text, "I could not refund it.");
  const [seen] = toolResultsSeen(m);
  assert.equal(seen.toolCallId, "call-reject");
  assert.equal(seen.output.type, "text");
  assert.match(seen.output.value, /rejected your call of refund/);
  assert.match(seen.output.value, /Their reason: no receipt on file/);
});

test("reject with a tool that has its own toModelOutput: the model still gets the reason, in words", async () => {
  const ran = [];
  const p = person((inq) => human.respond(inq.id, { decision: "reject", message: "wrong order" }));
  const base = refundTool(ran);
  const refund = withApproval(agent, { ...base, toModelOutput: ({ output }) => ({ type: "text", value: `refunded ${output.refunded}` }) }, { name: "refund", onCreated: p.onCreated });
  const m = model(callsTool("call-reject-tmo", "refund", { order_id: "A-4", amount: 10 }), says("Not refunded."));
  await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund A-4" });
  await Promise.all(p.done);
  assert.deepEqual(ran, []);
  assert.match(toolResultsSeen(m)[0].output.value, /Their reason: wrong order/);
});

test("cancelled: the tool does not run and the model is told why", async () => {
  const ran = [];
  const p = person((inq) => agent.cancel(inq.id, "the customer withdrew the request"));
  const refund = withApproval(agent, refundTool(ran), { name: "refund", onCreated: p.onCreated });
  const m = model(callsTool("call-cancel", "refund", { order_id: "A-5", amount: 20 }), says("Cancelled."));
  await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund A-5" });
  await Promise.all(p.done);
  assert.deepEqual(ran, []);
  assert.match(toolResultsSeen(m)[0].output.value, /cancelled before the human decided: the customer withdrew the request\. Do not run refund/);
});

test("deadline: nobody decides in time, the tool does not run and the model is told", async () => {
  const ran = [];
  const p = person(async () => {});
  const refund = withApproval(agent, refundTool(ran), { name: "refund", timeout_seconds: 1, onCreated: p.onCreated });
  const m = model(callsTool("call-timeout", "refund", { order_id: "A-6", amount: 20 }), says("Nobody answered."));
  await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund A-6" });
  assert.deepEqual(ran, []);
  assert.equal((await agent.getInquiry(p.asked[0].id)).status, "timeout");
  assert.match(toolResultsSeen(m)[0].output.value, /Nobody decided about your call of refund before the deadline/);
});

test("the same tool call id asked twice is one inquiry", async () => {
  const ran = [];
  const p = person((inq) => (p.asked.length === 1 ? human.respond(inq.id, { decision: "approve" }) : undefined));
  const refund = withApproval(agent, refundTool(ran), { name: "refund", onCreated: p.onCreated });
  for (let i = 0; i < 2; i++) {
    const m = model(callsTool("call-same", "refund", { order_id: "A-7", amount: 30 }), says("Done."));
    await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund A-7" });
  }
  await Promise.all(p.done);
  assert.equal(p.asked.length, 2);
  assert.equal(p.asked[1].id, p.asked[0].id, "the second ask found the first inquiry");
  const page = await agent.listInquiries({ status: "responded", limit: 200 });
  assert.equal(page.data.filter((q) => q.tool_call?.id === "call-same").length, 1);
});

test("the AI SDK's abort signal stops the wait, and the tool does not run", async () => {
  const ran = [];
  const controller = new AbortController();
  const p = person(async () => controller.abort(new Error("the user closed the chat")));
  const refund = withApproval(agent, refundTool(ran), { name: "refund", onCreated: p.onCreated });
  const m = model(callsTool("call-abort", "refund", { order_id: "A-8", amount: 40 }), says("unreachable"));
  await assert.rejects(generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), prompt: "Refund A-8", abortSignal: controller.signal }));
  assert.deepEqual(ran, []);
  assert.equal(m.doGenerateCalls.length, 1, "the model was not called again");
  assert.equal((await agent.getInquiry(p.asked[0].id)).status, "pending");
  await agent.cancel(p.asked[0].id, "test over");
});

test("a tool whose schema is plain JSON Schema (jsonSchema()) is asked about with it", async () => {
  const ran = [];
  const p = person((inq) => human.respond(inq.id, { decision: "edit", args: { env: "staging" } }));
  const deploy = withApproval(agent, tool({
    inputSchema: jsonSchema({ type: "object", properties: { env: { enum: ["staging", "prod"] } }, required: ["env"], additionalProperties: false }),
    execute: async (args) => { ran.push(args); return `deployed to ${args.env}`; },
  }), { name: "deploy", onCreated: p.onCreated });
  const m = model(callsTool("call-deploy", "deploy", { env: "prod" }), says("Deployed."));
  await generateText({ model: m, tools: { deploy }, stopWhen: stepCountIs(3), prompt: "Deploy" });
  await Promise.all(p.done);
  assert.deepEqual(ran, [{ env: "staging" }]);
  assert.deepEqual(p.asked[0].tool_call.parameters_schema.properties.env, { enum: ["staging", "prod"] });
  assert.deepEqual(toolResultsSeen(m)[0].output, { type: "text", value: "deployed to staging" });
});

// The AI SDK's own approval: toolApproval on generateText (or needsApproval on the tool) ends the
// call with tool-approval-request parts; answerApprovalRequests answers them through hitl.

test("toolApproval, approved through hitl: the second generateText runs the tool", async () => {
  const ran = [];
  const refund = refundTool(ran);
  const m = model(callsTool("call-sdk-approve", "refund", { order_id: "B-1", amount: 100 }), says("Refunded 100."));
  const messages = [{ role: "user", content: "Refund B-1" }];
  const first = await generateText({ model: m, tools: { refund }, toolApproval: { refund: "user-approval" }, stopWhen: stepCountIs(3), messages });
  assert.deepEqual(ran, [], "the SDK waits for the approval");
  const p = person((inq) => human.respond(inq.id, { decision: "approve" }, "receipt checked"));
  const answer = await answerApprovalRequests(agent, first, { assigned_to: "ai-sdk-human", onCreated: p.onCreated });
  await Promise.all(p.done);
  const approvalId = first.content.find((c) => c.type === "tool-approval-request").approvalId;
  assert.deepEqual(answer, [{ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true, reason: "receipt checked" }] }]);
  assert.equal(p.asked[0].tool_call.id, "call-sdk-approve");
  assert.equal(p.asked[0].tool_call.name, "refund");
  assert.deepEqual(p.asked[0].tool_call.arguments, { order_id: "B-1", amount: 100 });
  assert.deepEqual(p.asked[0].allowed_decisions, ["approve", "reject"]);
  messages.push(...first.responseMessages, ...answer);
  const second = await generateText({ model: m, tools: { refund }, toolApproval: { refund: "user-approval" }, stopWhen: stepCountIs(3), messages });
  assert.deepEqual(ran.map((r) => r.args), [{ order_id: "B-1", amount: 100 }]);
  assert.equal(second.text, "Refunded 100.");
  assert.deepEqual(await answerApprovalRequests(agent, [...messages, ...second.responseMessages]), [], "nothing left to answer");
});

test("needsApproval, denied through hitl: the tool does not run and the model sees the denial", async () => {
  const ran = [];
  const refund = tool({ ...refundTool(ran), needsApproval: true });
  const m = model(callsTool("call-sdk-deny", "refund", { order_id: "B-2", amount: 800 }), says("It was not approved."));
  const messages = [{ role: "user", content: "Refund B-2" }];
  const first = await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), messages });
  messages.push(...first.responseMessages);
  const p = person((inq) => human.respond(inq.id, { decision: "reject", message: "over the limit for this customer" }));
  // The messages so far work as well as the result.
  const answer = await answerApprovalRequests(agent, messages, { prompt: ({ input }) => `Refund ${input.amount} on ${input.order_id}?`, onCreated: p.onCreated });
  await Promise.all(p.done);
  assert.equal(p.asked[0].prompt, "Refund 800 on B-2?");
  assert.equal(answer[0].content[0].approved, false);
  messages.push(...answer);
  const second = await generateText({ model: m, tools: { refund }, stopWhen: stepCountIs(3), messages });
  assert.deepEqual(ran, []);
  assert.equal(second.text, "It was not approved.");
  const [seen] = toolResultsSeen(m);
  assert.equal(seen.output.type, "execution-denied");
  assert.match(seen.output.reason, /Their reason: over the limit for this customer/);
});

test("streamText: its result's approval requests are answered too", async () => {
  const ran = [];
  const refund = refundTool(ran);
  const chunks = [
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId: "call-stream", toolName: "refund", input: JSON.stringify({ order_id: "B-3", amount: 5 }) },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
  ];
  const m = new MockLanguageModelV4({
    doStream: async () => ({ stream: new ReadableStream({ start(c) { for (const ch of chunks) c.enqueue(ch); c.close(); } }) }),
  });
  const result = streamText({ model: m, tools: { refund }, toolApproval: { refund: "user-approval" }, prompt: "Refund B-3" });
  const p = person((inq) => human.respond(inq.id, { decision: "reject" }));
  const answer = await answerApprovalRequests(agent, result, { onCreated: p.onCreated });
  await Promise.all(p.done);
  assert.equal(p.asked[0].tool_call.id, "call-stream");
  assert.equal(answer[0].content[0].approved, false);
  assert.match(answer[0].content[0].reason, /rejected your call of refund/);
});

test("an asker that stops waiting and asks again from the saved messages finds the same inquiry, answered meanwhile", async () => {
  const refund = refundTool([]);
  const m = model(callsTool("call-sdk-resume", "refund", { order_id: "B-5", amount: 5 }));
  const first = await generateText({ model: m, tools: { refund }, toolApproval: { refund: "user-approval" }, prompt: "Refund B-5" });
  const saved = JSON.parse(JSON.stringify([{ role: "user", content: "Refund B-5" }, ...first.responseMessages]));
  // The first process gives up waiting (it stopped); a person answers while nobody waits.
  const controller = new AbortController();
  const asked = [];
  await assert.rejects(answerApprovalRequests(agent, saved, { signal: controller.signal, onCreated: (inq) => { asked.push(inq); controller.abort(new Error("process stopped")); } }), /process stopped/);
  await human.respond(asked[0].id, { decision: "approve" });
  // The next process starts from the saved messages.
  const again = [];
  const [msg] = await answerApprovalRequests(agent, saved, { onCreated: (inq) => again.push(inq) });
  assert.equal(again[0].id, asked[0].id);
  assert.equal(msg.content[0].approved, true);
});

test("a cancelled approval request is a denial that says so", async () => {
  const refund = refundTool([]);
  const m = model(callsTool("call-sdk-cancel", "refund", { order_id: "B-4", amount: 5 }));
  const first = await generateText({ model: m, tools: { refund }, toolApproval: { refund: "user-approval" }, prompt: "Refund B-4" });
  const p = person((inq) => agent.cancel(inq.id, "shift ended"));
  const [msg] = await answerApprovalRequests(agent, first, { onCreated: p.onCreated });
  await Promise.all(p.done);
  assert.equal(msg.content[0].approved, false);
  assert.match(msg.content[0].reason, /cancelled before the human decided: shift ended/);
});

test("bad input is refused with a sentence that says what to do", async () => {
  const t = refundTool([]);
  assert.throws(() => withApproval(agent, t, {}), /needs the tool's name.*withApproval\(hitl, tool, \{ name: "refund" \}\)/);
  assert.throws(() => withApproval(agent, t), /needs the tool's name/);
  assert.throws(() => withApproval(agent, t, { name: "  " }), /needs the tool's name/);
  assert.throws(() => withApproval(agent, async () => 1, { name: "f" }), /needs an AI SDK tool as its second argument/);
  assert.throws(() => withApproval(agent, undefined, { name: "f" }), /needs an AI SDK tool/);
  assert.throws(() => withApproval(agent, tool({ inputSchema: z.object({}), outputSchema: z.string() }), { name: "f" }), /needs a tool with an execute function/);
  assert.throws(() => withApproval({}, t, { name: "refund" }), /needs a HitlClient as its first argument/);
  await assert.rejects(answerApprovalRequests(agent, "hello"), /needs the result of generateText or streamText/);
  await assert.rejects(answerApprovalRequests(agent, [], { allowed_decisions: ["approve", "edit"] }), /approve or reject only.*use withApproval for edits/);
  await assert.rejects(answerApprovalRequests(undefined, []), /needs a HitlClient/);
  await assert.rejects(
    answerApprovalRequests(agent, [{ role: "assistant", content: [{ type: "tool-approval-request", approvalId: "ap-1", toolCallId: "nowhere" }] }]),
    /names tool call nowhere, which is not among the messages given/,
  );
  assert.deepEqual(await answerApprovalRequests(agent, []), []);
});

test("a misspelt option or a forgotten hitl argument is a TypeError when the tool is made, never a tool error the model reads", async () => {
  const t = refundTool([]);
  assert.throws(() => withApproval(agent, t, { name: "refund", assignedTo: "group:support" }), (err) =>
    err instanceof TypeError &&
    /^withApproval: unknown option "assignedTo" \(did you mean assigned_to\?\); it accepts name, prompt, onCreated, waiter, the inquiry's fields \(.*\bassigned_to\b.*\)$/.test(err.message));
  assert.throws(() => withApproval(agent, t, { name: "refund", on_created: () => {} }), /unknown option "on_created" \(did you mean onCreated\?\)/);
  assert.throws(() => withApproval(agent, t, { name: "refund", tool_call: {} }), /withApproval: option "tool_call" is not accepted: withApproval sets the inquiry's tool_call itself/);
  assert.throws(() => withApproval(agent, t, null), /withApproval: its options must be an object/);
  assert.throws(() => withApproval(t, { name: "refund" }), /^TypeError: withApproval needs a HitlClient as its first argument \(new HitlClient\(\{ url, token \}\)\); it was given an object$/);
  await assert.rejects(answerApprovalRequests(agent, [], { timeoutSeconds: 60 }), /^TypeError: answerApprovalRequests: unknown option "timeoutSeconds" \(did you mean timeout_seconds\?\)/);
  await assert.rejects(answerApprovalRequests([], {}), /answerApprovalRequests needs a HitlClient as its first argument.*it was given an array/);

  // Every field of an inquiry request in hitl's OpenAPI document is accepted (but the call itself).
  const all = Object.fromEntries(inquiryRequestFields.filter((f) => f !== "tool_call").map((f) => [f, undefined]));
  assert.ok(withApproval(agent, t, { ...all, name: "refund" }));
  const { allowed_decisions: _, ...allButDecisions } = all;
  assert.deepEqual(await answerApprovalRequests(agent, [], allButDecisions), []);

  // The tool made with a good option asks as before; the model never saw a 400.
  const ran = [];
  const m = model(callsTool("call-options-ok", "refund", { order_id: "C-1", amount: 3 }), says("ok"));
  const p = person((inq) => human.respond(inq.id, { decision: "approve" }));
  await generateText({ model: m, tools: { refund: withApproval(agent, refundTool(ran), { name: "refund", assigned_to: "ai-sdk-human", onCreated: p.onCreated }) }, prompt: "Refund C-1", stopWhen: stepCountIs(3) });
  await Promise.all(p.done);
  assert.deepEqual(ran.map((r) => r.args), [{ order_id: "C-1", amount: 3 }]);
  assert.equal(p.asked[0].assigned_to[0], "ai-sdk-human");
});

test("the example in examples/ai-sdk runs: a person approves one refund and rejects the other", async () => {
  const token = await server.key("example-refund-bot", "agent");
  const child = spawn(process.execPath, [fileURLToPath(new URL("../examples/ai-sdk/index.mjs", import.meta.url))], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const lines = [];
  const answered = [];
  // The person reads the example's output and answers each inquiry it names.
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    const asked = /inquiry (\d+):/.exec(line);
    if (!asked) continue;
    const id = Number(asked[1]);
    answered.push(answered.length === 0
      ? human.respond(id, { decision: "edit", args: { order_id: "12345", amount: 200 } })
      : human.respond(id, { decision: "reject", message: "order 67890 was already refunded" }));
  }
  const [code] = await exited;
  await Promise.all(answered);
  assert.equal(code, 0, lines.join("\n"));
  assert.equal(answered.length, 2);
  assert.ok(lines.includes("withApproval: Refunded 200 on order 12345."), lines.join("\n"));
  assert.ok(lines.some((l) => /^answerApprovalRequests: I did not refund it: .*order 67890 was already refunded/.test(l)), lines.join("\n"));
  assert.match(lines[0], /Refund \$499 on order 12345\?/);
});
