// @hitl/client/openai-agents with the real @openai/agents package (0.20.0) and a scripted
// model: a person approves, edits or rejects the model's tool calls in hitl.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RunState, run } from "@openai/agents";
import { approveInterruptions, loadRunState, saveRunState } from "@hitl/client/openai-agents";
import { HitlClient, HitlError } from "@hitl/client";
import { TestServer } from "./server.mjs";
import { ScriptedModel, supportAgent } from "./openai-agents-fixture.mjs";

let server, agentKey, hitl, human;

before(async () => {
  server = await TestServer.start();
  agentKey = await server.key("support-bot", "agent");
  hitl = await server.client("support-bot-2", "agent");
  human = await server.client("ada", "responder");
});

after(async () => {
  await server.stop();
});

const refundCall = (id, args = { order_id: "A-1", amount: 499 }) => ({ id, name: "refund", arguments: args });

/** started runs the support agent until it stops at the given calls. */
async function started(calls) {
  const ran = [];
  const model = new ScriptedModel(calls);
  const agent = supportAgent(model, ran);
  const first = await run(agent, "Refund order A-1");
  return { ran, model, agent, first };
}

/** answering answers each inquiry once asked, as a person would; await done after. */
function answering(answer) {
  const pending = [];
  return {
    onAsked: (inquiry, call) => pending.push(answer(inquiry, call)),
    done: () => Promise.all(pending),
  };
}

test("approve: the tool runs with the proposed arguments", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-approve")]);
  assert.equal(first.interruptions.length, 1);

  const person = answering((inq) => human.respond(inq.id, { decision: "approve" }));
  const asked = [];
  const state = await approveInterruptions(hitl, first, {
    onAsked: (inq, call) => (asked.push({ inq, call }), person.onAsked(inq, call)),
    assigned_to: ["ada"],
    context: { ticket: "T-9" },
  });
  await person.done();
  assert.equal(state, first.state, "without an edit the result's own state");
  const second = await run(agent, state);

  assert.deepEqual(ran, [{ tool: "refund", args: { order_id: "A-1", amount: 499 } }]);
  assert.equal(second.finalOutput, "refund: refunded 499 on A-1");
  const { inq, call } = asked[0];
  assert.equal(call.agent, "support");
  assert.equal(inq.prompt, "Allow support to call refund?");
  assert.equal(inq.origin, "support");
  assert.deepEqual(inq.context, { ticket: "T-9", agent: "support" });
  assert.deepEqual(inq.assigned_to, ["ada"]);
  assert.deepEqual(inq.allowed_decisions, ["approve", "edit", "reject"]);
  assert.deepEqual(inq.tool_call.arguments, { order_id: "A-1", amount: 499 });
  assert.equal(inq.tool_call.id, "call-approve");
  assert.equal(inq.tool_call.parameters_schema.properties.amount.maximum, 1000, "the tool's own schema");
});

test("edit: the tool runs with the person's arguments; arguments outside the schema get 422 and the person tries again", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-edit")]);
  const refused = [];
  const person = answering(async (inq) => {
    await assert.rejects(human.respond(inq.id, { decision: "edit", args: { order_id: "A-1", amount: 5000 } }), (err) => {
      refused.push(err);
      return err instanceof HitlError && err.status === 422;
    });
    await human.respond(inq.id, { decision: "edit", args: { order_id: "A-1", amount: 250 } });
  });
  const state = await approveInterruptions(hitl, first, { onAsked: person.onAsked });
  await person.done();
  assert.equal(refused.length, 1);
  assert.notEqual(state, first.state, "an edit makes a new state");
  const second = await run(agent, state);
  assert.deepEqual(ran, [{ tool: "refund", args: { order_id: "A-1", amount: 250 } }]);
  assert.equal(second.finalOutput, "refund: refunded 250 on A-1");
});

test("reject: the tool does not run and the model is told, in hitl's sentence, that it did not run and the person's reason", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-reject")]);
  const person = answering((inq) => human.respond(inq.id, { decision: "reject", message: "no receipt, no refund" }));
  const state = await approveInterruptions(hitl, first, { onAsked: person.onAsked });
  await person.done();
  const second = await run(agent, state);
  assert.deepEqual(ran, []);
  const said = "The human rejected your call of refund. Do not run refund. Their reason: no receipt, no refund";
  assert.equal(model.toolOutputs()["call-reject"], said);
  assert.equal(second.finalOutput, `refund: ${said}`);
});

test("a deadline with nobody deciding rejects the call, and the model is told so", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-timeout")]);
  const asked = [];
  const state = await approveInterruptions(hitl, first, { timeout_seconds: 1, onAsked: (inq) => asked.push(inq) });
  assert.equal((await hitl.getInquiry(asked[0].id)).status, "timeout");
  await run(agent, state);
  assert.deepEqual(ran, []);
  assert.match(model.toolOutputs()["call-timeout"], /^Nobody decided about your call of refund before the deadline\. Do not run refund/);
});

test("a deadline under a fallback policy: the fallback decides", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-fallback")]);
  const state = await approveInterruptions(hitl, first, {
    timeout_seconds: 1,
    fallback_policy: "complete_with_fallback",
    fallback_value: { decision: "reject", message: "no answer in time: refunds wait for a person" },
  });
  await run(agent, state);
  assert.deepEqual(ran, []);
  assert.equal(model.toolOutputs()["call-fallback"],
    "Nobody decided before the deadline, so the decision set in advance applies. The human rejected your call of refund. Do not run refund. Their reason: no answer in time: refunds wait for a person");
});

test("a cancelled inquiry rejects the call, and the model is told so", async () => {
  const { ran, model, agent, first } = await started([refundCall("call-cancel")]);
  const person = answering((inq) => hitl.cancel(inq.id, "the customer withdrew"));
  const state = await approveInterruptions(hitl, first, { onAsked: person.onAsked });
  await person.done();
  await run(agent, state);
  assert.deepEqual(ran, []);
  assert.match(model.toolOutputs()["call-cancel"], /cancelled before the human decided: the customer withdrew\. Do not run refund/);
});

test("two calls at once: both are asked together, each decided on its own (waiting on one Waiter)", async () => {
  const ran = [];
  const model = new ScriptedModel([
    refundCall("call-two-refund"),
    { id: "call-two-notify", name: "notify_customer", arguments: { order_id: "A-1", text: "Refunded." } },
  ]);
  const agent = supportAgent(model, ran);
  const first = await run(agent, "Refund order A-1 and tell the customer");
  assert.equal(first.interruptions.length, 2);
  const asked = new Set();
  const person = answering(async (inq, call) => {
    asked.add(call.name);
    // Both are pending before either is answered: they were asked together.
    if (asked.size < 2) return;
    const pending = (await hitl.listInquiries({ status: "pending" })).data.filter((i) => i.tool_call?.id?.startsWith("call-two-"));
    assert.equal(pending.length, 2);
    for (const p of pending) {
      if (p.tool_call.name === "refund") await human.respond(p.id, { decision: "edit", args: { order_id: "A-1", amount: 300 } });
      else await human.respond(p.id, { decision: "reject", message: "I will call them myself" });
    }
  });
  const waiter = hitl.waiter();
  const state = await approveInterruptions(hitl, first, { onAsked: person.onAsked, waiter }).finally(() => waiter.close());
  await person.done();
  const second = await run(agent, state);
  assert.deepEqual(ran, [{ tool: "refund", args: { order_id: "A-1", amount: 300 } }]);
  assert.equal(model.toolOutputs()["call-two-notify"], "The human rejected your call of notify_customer. Do not run notify_customer. Their reason: I will call them myself");
  assert.match(second.finalOutput, /refunded 300 on A-1/);
});

test("aborting the wait leaves the state as it was: nothing approved or rejected", async () => {
  const { ran, agent, first } = await started([refundCall("call-abort")]);
  const stop = new AbortController();
  await assert.rejects(approveInterruptions(hitl, first, { signal: stop.signal, onAsked: () => stop.abort(new Error("shutting down")) }), /shutting down/);
  assert.equal(first.state.getInterruptions().length, 1);
  // Run again, the call still waits for a decision: the tool does not run.
  const again = await run(agent, first.state);
  assert.equal(again.interruptions.length, 1);
  assert.deepEqual(ran, []);
});

/** child runs test/openai-agents-child.mjs and hands out its JSON lines. */
function child(mode, session, callId) {
  const proc = spawn(process.execPath, ["test/openai-agents-child.mjs", mode, session, callId], {
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentKey },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const exited = once(proc, "exit");
  return {
    proc,
    exited,
    async next() {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the ${mode} process ended (${proc.exitCode}) before saying more`);
      return JSON.parse(value);
    },
  };
}

test("a run interrupted in one process resumes in another: the state comes from the hitl session, the inquiry is the same", async () => {
  const session = "refund-run-restart";
  const first = child("start", session, "call-restart");
  const { asked } = await first.next();
  first.proc.kill("SIGKILL");
  await first.exited;

  const saved = await server.admin.getSession(session);
  assert.equal(saved.status, "awaiting_input");
  assert.equal(saved.agent, "support");

  const second = child("resume", session, "call-restart");
  const again = await second.next();
  assert.equal(again.asked, asked, "the same inquiry, not a second one");
  await human.respond(asked, { decision: "edit", args: { order_id: "A-7", amount: 100 } });
  const done = await second.next();
  await second.exited;
  assert.equal(second.proc.exitCode, 0);
  assert.deepEqual(done.ran, [{ tool: "refund", args: { order_id: "A-7", amount: 100 } }]);
  assert.equal(done.final, "refund: refunded 100 on A-7");
  const inquiries = await server.admin.request("GET", `/v1/sessions/${session}/inquiries`);
  assert.equal(inquiries.data.length, 1);
});

test("a result without interruptions comes back as its state, with nothing asked", async () => {
  const result = await run(supportAgent(new ScriptedModel([])), "Hello");
  assert.equal(result.finalOutput, "nothing to do");
  const before = (await hitl.listInquiries()).data.length;
  const state = await approveInterruptions(hitl, result, { session: "never-saved" });
  assert.equal(state, result.state);
  assert.equal((await hitl.listInquiries()).data.length, before);
  await assert.rejects(hitl.getSession("never-saved"), (err) => err.status === 404);
});

test("bad input is refused with a sentence saying what is wrong", async () => {
  await assert.rejects(approveInterruptions(hitl, { finalOutput: "hi" }), /expected the result of run\(\) from @openai\/agents, or its state/);
  await assert.rejects(approveInterruptions(hitl, undefined), TypeError);

  // The session of another run, and one with no saved state.
  await assert.rejects(loadRunState(hitl, supportAgent(new ScriptedModel([])), "no-such-run"), (err) => err instanceof HitlError && err.status === 404);
  await hitl.putSession("empty-run", { agent: "support" });
  await assert.rejects(loadRunState(hitl, supportAgent(new ScriptedModel([])), "empty-run"), /holds no saved @openai\/agents run state/);

  // hitl refuses one of two questions (an empty prompt): the refusal is thrown, the other wait stops.
  const two = await run(supportAgent(new ScriptedModel([
    refundCall("call-bad-prompt"),
    { id: "call-good-prompt", name: "notify_customer", arguments: { order_id: "A-1", text: "hi" } },
  ])), "Refund order A-1");
  await assert.rejects(
    approveInterruptions(hitl, two, { prompt: (call) => (call.name === "refund" ? "" : "Tell the customer?") }),
    (err) => err instanceof HitlError && err.status === 400 && /prompt/.test(err.message),
  );

  // A state whose agent has lost the tool the call is for: nothing is asked.
  const model = new ScriptedModel([refundCall("call-lost-tool")]);
  const agent = supportAgent(model);
  const first = await run(agent, "Refund order A-1");
  await saveRunState(hitl, "lost-tool", first);
  agent.tools = agent.tools.filter((t) => t.name !== "refund");
  await assert.rejects(approveInterruptions(hitl, first), /agent "support" has no function tool named "refund" \(its tools: notify_customer\)/);
  const asked = (await hitl.listInquiries()).data.filter((i) => i.tool_call?.id === "call-lost-tool");
  assert.equal(asked.length, 0);
});

test("the example in examples/openai-agents runs: a person edits the refund, the run finishes and its session is completed", async () => {
  const proc = spawn(process.execPath, ["examples/openai-agents/index.mjs", "example-run"], {
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentKey },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(proc, "exit");
  const out = [];
  for await (const line of createInterface({ input: proc.stdout })) {
    out.push(line);
    const asked = line.match(/^Asked inquiry (\d+) /);
    if (asked) await human.respond(Number(asked[1]), { decision: "edit", args: { order_id: "A-1", amount: 250 } });
  }
  await exited;
  assert.equal(proc.exitCode, 0, out.join("\n"));
  assert.equal(out.at(-1), "Done: refunded $250 on order A-1");
  const session = await server.admin.getSession("example-run");
  assert.equal(session.status, "completed");
  assert.deepEqual(session.result, { output: "Done: refunded $250 on order A-1" });
});

test("an app with its own copy of the SDK: the states approveInterruptions (after an edit) and loadRunState give are of the app's RunState class, which its run() takes", async () => {
  // The app's copy: @openai/agents-core copied where it resolves apart from the adapter's.
  const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
  const dir = mkdtempSync(join(pkg, "node_modules", ".second-openai-agents-"));
  try {
    const copy = join(dir, "node_modules", "@openai", "agents-core");
    cpSync(join(pkg, "node_modules", "@openai", "agents-core"), copy, { recursive: true });
    const app = await import(pathToFileURL(join(copy, "dist", "index.mjs")).href);
    app.setTracingDisabled(true);
    assert.notEqual(app.RunState, RunState, "a second copy, with classes of its own");

    const ran = [];
    const agent = supportAgent(new ScriptedModel([refundCall("call-second-copy")]), ran, app);
    const first = await app.run(agent, "Refund order A-1");
    assert.equal(first.interruptions.length, 1);
    // What went wrong: a state of the adapter's copy is no state to the app's run().
    await assert.rejects(app.run(agent, await RunState.fromString(agent, first.state.toString())));

    // The edit path rebuilds the state: with the app's class.
    const person = answering((inq) => human.respond(inq.id, { decision: "edit", args: { order_id: "A-1", amount: 250 } }));
    const edited = await approveInterruptions(hitl, first, { onAsked: person.onAsked, session: "second-copy-edit" });
    await person.done();
    assert.ok(edited instanceof app.RunState);
    assert.equal((await app.run(agent, edited)).finalOutput, "refund: refunded 250 on A-1");
    assert.deepEqual(ran, [{ tool: "refund", args: { order_id: "A-1", amount: 250 } }]);

    // The resume path: loadRunState with the app's RunState class.
    const ran2 = [];
    const agent2 = supportAgent(new ScriptedModel([refundCall("call-second-copy-load")]), ran2, app);
    await saveRunState(hitl, "second-copy-load", await app.run(agent2, "Refund order A-1"));
    const loaded = await loadRunState(hitl, agent2, "second-copy-load", { RunState: app.RunState });
    assert.ok(loaded instanceof app.RunState);
    const approver = answering((inq) => human.respond(inq.id, { decision: "approve" }));
    const approved = await approveInterruptions(hitl, loaded, { onAsked: approver.onAsked });
    await approver.done();
    assert.equal((await app.run(agent2, approved)).finalOutput, "refund: refunded 499 on A-1");
    // Without it, the state is of the adapter's copy (the default).
    assert.ok((await loadRunState(hitl, agent2, "second-copy-load")) instanceof RunState);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("mistakes in calling the adapter are TypeErrors naming what is wrong, before any request", async () => {
  const { first, agent } = await started([refundCall("call-mistakes")]);
  const before = (await hitl.listInquiries()).data.length;
  // The hitl argument forgotten: every argument one place to the left.
  await assert.rejects(approveInterruptions(first, { session: "x" }), (err) =>
    err instanceof TypeError && /^approveInterruptions needs a HitlClient as its first argument \(new HitlClient\(\{ url, token \}\)\); it was given a RunResult/.test(err.message));
  await assert.rejects(loadRunState(agent, "refund-1"), /^TypeError: loadRunState needs a HitlClient as its first argument.*it was given an Agent/);
  await assert.rejects(saveRunState(first, "refund-1"), /saveRunState needs a HitlClient as its first argument/);
  // The agent forgotten: said before anything is asked of hitl.
  const offline = new HitlClient({ url: "http://127.0.0.1:9", token: "unused" });
  await assert.rejects(loadRunState(offline, "refund-1"), /^TypeError: loadRunState needs the agent the run started with as its second argument, loadRunState\(hitl, agent, key\); it was given the string "refund-1"/);
  await assert.rejects(loadRunState(offline, agent), /loadRunState needs the hitl session's key \(a non-empty string\), loadRunState\(hitl, agent, key\); it was given undefined/);
  await assert.rejects(loadRunState(offline, agent, "k", { signal: undefined, runState: RunState }), /loadRunState: unknown option "runState" \(did you mean RunState\?\)/);
  await assert.rejects(loadRunState(offline, agent, "k", { RunState: {} }), /option RunState must be the RunState class of @openai\/agents/);
  // A misspelt option reaches the developer, not the model.
  await assert.rejects(approveInterruptions(hitl, first, { assignedTo: ["ada"] }), (err) =>
    err instanceof TypeError && /^approveInterruptions: unknown option "assignedTo" \(did you mean assigned_to\?\); it accepts prompt, context, allowed_decisions, session, agent, signal, waiter, onAsked, the inquiry's fields \(.*assigned_to, .*timeout_seconds.*\)$/.test(err.message));
  await assert.rejects(approveInterruptions(hitl, first, { on_asked: () => {} }), /unknown option "on_asked" \(did you mean onAsked\?\)/);
  await assert.rejects(approveInterruptions(hitl, first, { multiple: true }), /approveInterruptions: option "multiple" is not accepted: approveInterruptions sets the inquiry's multiple itself/);
  await assert.rejects(saveRunState(hitl, "k", first, { sigal: undefined }), /saveRunState: unknown option "sigal" \(did you mean signal\?\); it accepts signal$/);
  assert.equal((await hitl.listInquiries()).data.length, before, "nothing was asked");
});

/** example runs examples/openai-agents/index.mjs with session; answer gets each "Asked inquiry" id. */
async function example(session, answer = () => {}) {
  const proc = spawn(process.execPath, ["examples/openai-agents/index.mjs", session], {
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = once(proc, "exit");
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  const out = [];
  for await (const line of createInterface({ input: proc.stdout })) {
    out.push(line);
    const asked = line.match(/^Asked inquiry (\d+) /);
    if (asked) await answer(Number(asked[1]), proc);
  }
  const [code] = await exited;
  return { code, out, err };
}

test("the example run again: after a restart with the question answered meanwhile, it carries on without asking; once the session is completed, it says so", async () => {
  const session = "example-rerun";
  let asked;
  const killed = await example(session, (id, proc) => {
    asked = id;
    proc.kill("SIGKILL");
  });
  assert.equal(killed.code, null);
  await human.respond(asked, { decision: "approve" });

  const resumed = await example(session);
  assert.equal(resumed.code, 0, resumed.out.join("\n") + resumed.err);
  assert.ok(!resumed.out.some((l) => l.startsWith("Asked inquiry")), "no prompt to answer a question already answered: " + resumed.out.join("\n"));
  assert.ok(resumed.out.includes(`Inquiry ${asked} (session ${session}) was already answered: responded`), resumed.out.join("\n"));
  assert.equal(resumed.out.at(-1), "Done: refunded $499 on order A-1");

  const again = await example(session);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.err, "", "no stack trace");
  assert.deepEqual(again.out, [`Session ${session} is completed: Done: refunded $499 on order A-1`]);
});
