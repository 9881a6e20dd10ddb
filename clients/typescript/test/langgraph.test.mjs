// @hitl/client/langgraph with the real @langchain/langgraph: askHuman in graph nodes,
// resumeWhenAnswered, Agent Inbox's HumanInterrupt mapped onto hitl's decisions, and the
// example resumed by a second process from a file-backed checkpointer.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Annotation, END, MemorySaver, START, StateGraph, entrypoint, interrupt, isInterrupted } from "@langchain/langgraph";
import { HitlClient } from "@hitl/client";
import { askHuman, resumeWhenAnswered, InquiryEndedError } from "@hitl/client/langgraph";
import { TestServer } from "./server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
let server, agent, human, agentToken;
let threads = 0;

before(async () => {
  server = await TestServer.start();
  agentToken = await server.key("langgraph-agent", "agent");
  agent = new HitlClient({ url: server.url, token: agentToken });
  human = await server.client("langgraph-human", "responder");
});

after(async () => {
  await server.stop();
});

const State = Annotation.Root({
  answer: Annotation(),
  second: Annotation(),
  left: Annotation(),
  right: Annotation(),
  error: Annotation(),
});

/** oneQuestion is a graph whose node asks request and keeps the answer (or the error's text). */
function oneQuestion(request, options, checkpointer = new MemorySaver()) {
  const runs = { count: 0 };
  const graph = new StateGraph(State)
    .addNode("ask", async () => {
      runs.count++;
      try {
        return { answer: await askHuman(agent, request, options) };
      } catch (err) {
        if (err instanceof InquiryEndedError) return { error: `${err.status}: ${err.message}` };
        throw err;
      }
    })
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer });
  return { graph, runs };
}

function thread() {
  return { configurable: { thread_id: `thread-${++threads}` } };
}

/** pendingInquiries are the hitl inquiries a thread's interrupts wait on, as askHuman marked them. */
async function pendingInquiries(graph, config) {
  const state = await graph.getState(config);
  return state.tasks.flatMap((t) => t.interrupts.map((i) => i.value.hitl_inquiry.id));
}

/** askedIn counts the inquiries asked in a thread (askHuman records the thread in metadata). */
async function askedIn(config) {
  const page = await agent.listInquiries({ limit: 500 });
  return page.data.filter((q) => q.metadata?.langgraph_thread_id === config.configurable.thread_id);
}

const refund = { action_request: { action: "refund", args: { order_id: "A-1", amount: 499 } }, description: "Refund 499 for order A-1?" };
const every = { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true };
const refundSchema = {
  type: "object",
  properties: { order_id: { type: "string" }, amount: { type: "number", maximum: 1000 } },
  required: ["order_id", "amount"],
  additionalProperties: false,
};

/** decideHumanInterrupt runs a graph to its HumanInterrupt, answers it with answer, resumes it. */
async function decideHumanInterrupt(config, answer, options) {
  const { graph } = oneQuestion({ ...refund, config: config }, options);
  const cfg = thread();
  const first = await graph.invoke({}, cfg);
  assert.ok(isInterrupted(first), "the graph stops at the question");
  const [id] = await pendingInquiries(graph, cfg);
  const inquiry = await human.getInquiry(id);
  await human.respond(id, answer);
  const result = await resumeWhenAnswered(agent, graph, cfg);
  return { inquiry, result };
}

test("HumanInterrupt, accept: the person approves, askHuman returns { type: accept }", async () => {
  const { inquiry, result } = await decideHumanInterrupt(every, { decision: "approve" });
  assert.equal(inquiry.prompt, "Refund 499 for order A-1?");
  assert.equal(inquiry.request_type, "approval");
  assert.deepEqual(inquiry.allowed_decisions, ["approve", "edit", "respond", "reject"]);
  assert.equal(inquiry.tool_call.name, "refund");
  assert.deepEqual(inquiry.tool_call.arguments, { order_id: "A-1", amount: 499 });
  assert.deepEqual(result.answer, { type: "accept", args: null });
  assert.ok(!isInterrupted(result));
});

test("HumanInterrupt, edit: the edited arguments come back as the action's args; arguments outside the schema are refused", async () => {
  const { graph } = oneQuestion({ ...refund, config: { ...every, allow_respond: false } }, { parametersSchema: refundSchema });
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [id] = await pendingInquiries(graph, cfg);
  await assert.rejects(human.respond(id, { decision: "edit", args: { order_id: "A-1", amount: 5000 } }), (err) => err.status === 422);
  await assert.rejects(human.respond(id, { decision: "respond", message: "no" }), (err) => err.status === 422, "respond was not allowed");
  await human.respond(id, { decision: "edit", args: { order_id: "A-1", amount: 250 } });
  const result = await resumeWhenAnswered(agent, graph, cfg);
  assert.deepEqual(result.answer, { type: "edit", args: { action: "refund", args: { order_id: "A-1", amount: 250 } } });
});

test("HumanInterrupt, edit without a schema: any object of arguments", async () => {
  const { inquiry, result } = await decideHumanInterrupt({ allow_accept: false, allow_edit: true, allow_respond: false, allow_ignore: false }, { decision: "edit", args: { order_id: "B-2" } });
  assert.deepEqual(inquiry.allowed_decisions, ["edit"]);
  assert.deepEqual(inquiry.tool_call.parameters_schema, { type: "object" });
  assert.deepEqual(result.answer, { type: "edit", args: { action: "refund", args: { order_id: "B-2" } } });
});

test("HumanInterrupt, respond: the person's text comes back as { type: response }", async () => {
  const { result } = await decideHumanInterrupt(every, { decision: "respond", message: "Refund 200 and offer a voucher" });
  assert.deepEqual(result.answer, { type: "response", args: "Refund 200 and offer a voucher" });
});

test("HumanInterrupt, ignore: hitl's reject, with the reason when one is given", async () => {
  const plain = await decideHumanInterrupt({ allow_accept: true, allow_edit: false, allow_respond: false, allow_ignore: true }, { decision: "reject" });
  assert.deepEqual(plain.inquiry.allowed_decisions, ["approve", "reject"]);
  assert.deepEqual(plain.result.answer, { type: "ignore", args: null });
  const reasoned = await decideHumanInterrupt(every, { decision: "reject", message: "duplicate request" });
  assert.deepEqual(reasoned.result.answer, { type: "ignore", args: "duplicate request" });
});

test("an inquiry request: askHuman returns the response", async () => {
  const { graph } = oneQuestion({ prompt: "What is the customer's order number?", request_type: "input" });
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [id] = await pendingInquiries(graph, cfg);
  assert.equal((await human.getInquiry(id)).metadata.langgraph_node, "ask");
  await human.respond(id, "A-12345");
  const result = await resumeWhenAnswered(agent, graph, cfg);
  assert.equal(result.answer, "A-12345");
});

test("a deadline with a fallback returns the fallback value; a cancellation throws InquiryEndedError in the node", async () => {
  const timed = oneQuestion({ prompt: "Proceed?", request_type: "approval", timeout_seconds: 1, fallback_policy: "complete_with_fallback", fallback_value: { approved: false, comment: "nobody answered" } });
  const cfgTimed = thread();
  await timed.graph.invoke({}, cfgTimed);
  const late = await resumeWhenAnswered(agent, timed.graph, cfgTimed); // waits out the deadline
  assert.deepEqual(late.answer, { approved: false, comment: "nobody answered" });

  const cancelled = oneQuestion({ ...refund, config: every });
  const cfg = thread();
  await cancelled.graph.invoke({}, cfg);
  const [id] = await pendingInquiries(cancelled.graph, cfg);
  await agent.cancel(id, "the order was withdrawn");
  const result = await resumeWhenAnswered(agent, cancelled.graph, cfg);
  assert.equal(result.answer, undefined);
  assert.match(result.error, new RegExp(`^cancelled: inquiry ${id} was cancelled: the order was withdrawn`));
});

test("two questions in one node: one at a time, each asked once, the node re-run from its start", async () => {
  const runs = { count: 0 };
  const graph = new StateGraph(State)
    .addNode("ask", async () => {
      runs.count++;
      const answer = await askHuman(agent, { prompt: "First name?" });
      const second = await askHuman(agent, { ...refund, config: every });
      return { answer, second };
    })
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: new MemorySaver() });
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [first] = await pendingInquiries(graph, cfg);
  await human.respond(first, "Ann");
  const middle = await resumeWhenAnswered(agent, graph, cfg);
  assert.ok(isInterrupted(middle), "the second question interrupts again");
  const [second] = await pendingInquiries(graph, cfg);
  assert.notEqual(second, first);
  await human.respond(second, { decision: "approve" });
  const done = await resumeWhenAnswered(agent, graph, cfg);
  assert.equal(done.answer, "Ann");
  assert.deepEqual(done.second, { type: "accept", args: null });
  assert.equal(runs.count, 3);
  assert.deepEqual((await askedIn(cfg)).map((q) => q.id).sort(), [first, second].sort());
});

test("two nodes interrupting in one step resume at once, by interrupt id", async () => {
  const graph = new StateGraph(State)
    .addNode("asksLeft", async () => ({ left: await askHuman(agent, { prompt: "Left?" }) }))
    .addNode("asksRight", async () => ({ right: await askHuman(agent, { ...refund, config: every }) }))
    .addEdge(START, "asksLeft")
    .addEdge(START, "asksRight")
    .addEdge("asksLeft", END)
    .addEdge("asksRight", END)
    .compile({ checkpointer: new MemorySaver() });
  const cfg = thread();
  const stopped = await graph.invoke({}, cfg);
  assert.equal(stopped.__interrupt__.length, 2);
  const state = await graph.getState(cfg);
  const byNode = Object.fromEntries(state.tasks.map((t) => [t.name, t.interrupts[0].value.hitl_inquiry.id]));
  const resumed = resumeWhenAnswered(agent, graph, cfg); // waits for both
  await human.respond(byNode.asksRight, { decision: "respond", message: "later" });
  await human.respond(byNode.asksLeft, "L");
  const result = await resumed;
  assert.equal(result.left, "L");
  assert.deepEqual(result.right, { type: "response", args: "later" });
});

test("running the interrupted node again asks nothing new: the same inquiry", async () => {
  const checkpointer = new MemorySaver();
  const { graph, runs } = oneQuestion({ prompt: "Ship it?", request_type: "approval" }, undefined, checkpointer);
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [id] = await pendingInquiries(graph, cfg);
  // Invoking the thread again without a resume value runs the node again from its start, as a
  // process that restarted and ran the thread again would.
  const again = await graph.invoke(null, cfg);
  assert.ok(isInterrupted(again));
  assert.equal(runs.count, 2);
  assert.deepEqual(await pendingInquiries(graph, cfg), [id]);
  assert.equal((await askedIn(cfg)).length, 1, "no second inquiry");
  await human.respond(id, { approved: true, comment: "go" });
  const done = await resumeWhenAnswered(agent, graph, cfg);
  assert.deepEqual(done.answer, { approved: true, comment: "go" });
  assert.equal(runs.count, 3);
  assert.equal((await askedIn(cfg)).length, 1, "resuming asks nothing new either");
});

test("a node that runs again at a later step asks again: a new inquiry each time", async () => {
  const Loop = Annotation.Root({ answers: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });
  const graph = new StateGraph(Loop)
    .addNode("ask", async (state) => ({ answers: [await askHuman(agent, { prompt: `Question ${state.answers.length + 1}?` })] }))
    .addEdge(START, "ask")
    .addConditionalEdges("ask", (state) => (state.answers.length < 2 ? "ask" : END))
    .compile({ checkpointer: new MemorySaver() });
  const cfg = thread();
  let result = await graph.invoke({}, cfg);
  const ids = [];
  while (isInterrupted(result)) {
    const [id] = await pendingInquiries(graph, cfg);
    ids.push(id);
    await human.respond(id, `answer ${ids.length}`);
    result = await resumeWhenAnswered(agent, graph, cfg);
  }
  assert.deepEqual(result.answers, ["answer 1", "answer 2"]);
  assert.equal(new Set(ids).size, 2);
  assert.deepEqual((await Promise.all(ids.map((id) => agent.getInquiry(id)))).map((q) => q.prompt), ["Question 1?", "Question 2?"]);
});

test("the functional API: askHuman in an entrypoint", async () => {
  const workflow = entrypoint({ name: "greet", checkpointer: new MemorySaver() }, async (greeting) => {
    const name = await askHuman(agent, { prompt: "Whom do we greet?" });
    return `${greeting}, ${name}`;
  });
  const cfg = thread();
  await workflow.invoke("Hello", cfg);
  const [id] = await pendingInquiries(workflow, cfg);
  await human.respond(id, "Ann");
  assert.equal(await resumeWhenAnswered(agent, workflow, cfg), "Hello, Ann");
});

test("a subgraph's question resumes through the parent graph", async () => {
  const inner = new StateGraph(State)
    .addNode("inner", async () => ({ answer: await askHuman(agent, { prompt: "Asked in a subgraph?" }) }))
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  const graph = new StateGraph(State).addNode("outer", inner).addEdge(START, "outer").addEdge("outer", END).compile({ checkpointer: new MemorySaver() });
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [id] = await pendingInquiries(graph, cfg);
  assert.equal((await agent.getInquiry(id)).metadata.langgraph_node, "inner");
  await human.respond(id, "yes, deep down");
  assert.equal((await resumeWhenAnswered(agent, graph, cfg)).answer, "yes, deep down");
});

test("resumeWhenAnswered rides out a hitl restart while it waits", async () => {
  const { graph } = oneQuestion({ prompt: "Proceed after the restart?" });
  const cfg = thread();
  await graph.invoke({}, cfg);
  const [id] = await pendingInquiries(graph, cfg);
  const resumed = resumeWhenAnswered(agent, graph, cfg);
  await server.restart();
  await human.respond(id, "yes");
  assert.equal((await resumed).answer, "yes");
});

test("bad input gets clear errors", async () => {
  await assert.rejects(askHuman(agent, { prompt: "Outside?" }), /askHuman must be called inside a LangGraph node/);

  const noPrompt = oneQuestion({ request_type: "input", context: { x: 1 } });
  await assert.rejects(noPrompt.graph.invoke({}, thread()), /needs a request with a prompt \(a hitl inquiry request\) or an action_request/);

  const allowsNothing = oneQuestion({ ...refund, config: { allow_accept: false, allow_edit: false, allow_respond: false, allow_ignore: false } });
  await assert.rejects(allowsNothing.graph.invoke({}, thread()), /allows no answer: set at least one of allow_accept/);

  const noAction = oneQuestion({ action_request: { args: {} }, config: every });
  await assert.rejects(noAction.graph.invoke({}, thread()), /action_request needs an action/);

  const noCheckpointer = new StateGraph(State)
    .addNode("ask", async () => ({ answer: await askHuman(agent, { prompt: "Saved?" }) }))
    .addEdge(START, "ask")
    .compile();
  await assert.rejects(noCheckpointer.invoke({}), /askHuman needs a graph compiled with a checkpointer/);
  await assert.rejects(oneQuestion({ prompt: "Which thread?" }).graph.invoke({}, {}), /askHuman needs the run's thread: invoke the graph with \{ configurable: \{ thread_id \} \}/);

  const both = new StateGraph(State)
    .addNode("ask", async () => {
      const [a, b] = await Promise.all([askHuman(agent, { prompt: "A?" }), askHuman(agent, { prompt: "B?" })]);
      return { answer: [a, b] };
    })
    .addEdge(START, "ask")
    .compile({ checkpointer: new MemorySaver() });
  await assert.rejects(both.invoke({}, thread()), /await each askHuman before the next/);

  const { graph } = oneQuestion({ prompt: "Done?" });
  const cfg = thread();
  await assert.rejects(resumeWhenAnswered(agent, graph, cfg), /has no pending interrupt to resume/);
  await assert.rejects(resumeWhenAnswered(agent, graph, {}), /needs the thread to resume/);

  const foreign = new StateGraph(State)
    .addNode("ask", async () => ({ answer: interrupt("plain LangGraph interrupt") }))
    .addEdge(START, "ask")
    .compile({ checkpointer: new MemorySaver() });
  const fcfg = thread();
  await foreign.invoke({}, fcfg);
  await assert.rejects(resumeWhenAnswered(agent, foreign, fcfg), /was not made by askHuman: resume it yourself/);
});

test("a misspelt option, an inquiry field outside { inquiry }, or a forgotten hitl argument is a TypeError, and nothing is asked", async () => {
  const mine = [];
  const thread = () => {
    const cfg = { configurable: { thread_id: `typo-thread-${++threads}` } };
    mine.push(cfg.configurable.thread_id);
    return cfg;
  };
  const inbox = { ...refund, config: every };
  const typo = oneQuestion(inbox, { parameterSchema: refundSchema, assigned_to: "group:x" });
  await assert.rejects(typo.graph.invoke({}, thread()), (err) =>
    err instanceof TypeError && /^askHuman: unknown option "parameterSchema" \(did you mean parametersSchema\?\); it accepts inquiry, parametersSchema, signal$/.test(err.message));
  const misplaced = oneQuestion(inbox, { parametersSchema: refundSchema, assigned_to: "group:x" });
  await assert.rejects(misplaced.graph.invoke({}, thread()), (err) =>
    err instanceof TypeError && /^askHuman: unknown option "assigned_to": inquiry fields go under \{ inquiry: \{\.\.\.\} \}/.test(err.message));
  const inside = oneQuestion({ prompt: "Ship it?" }, { inquiry: { assignedTo: "group:x" } });
  await assert.rejects(inside.graph.invoke({}, thread()), /^TypeError: askHuman's \{ inquiry \}: unknown option "assignedTo" \(did you mean assigned_to\?\); it accepts the inquiry's fields \(prompt, .*assigned_to/);
  const decisions = oneQuestion(inbox, { inquiry: { allowed_decisions: ["approve"] } });
  await assert.rejects(decisions.graph.invoke({}, thread()), /"allowed_decisions" cannot be set: askHuman makes it from the HumanInterrupt/);

  // hitl forgotten: the request is taken for the client, and said so.
  await assert.rejects(askHuman({ prompt: "Ship it?" }), /^TypeError: askHuman needs a HitlClient as its first argument \(new HitlClient\(\{ url, token \}\)\); it was given an object$/);
  const { graph } = oneQuestion({ prompt: "Done?" });
  await assert.rejects(resumeWhenAnswered(graph, thread()), /^TypeError: resumeWhenAnswered needs a HitlClient as its first argument.*it was given a CompiledStateGraph$/);
  await assert.rejects(resumeWhenAnswered(agent, thread()), /resumeWhenAnswered needs the compiled graph as its second argument/);
  await assert.rejects(resumeWhenAnswered(agent, graph, thread(), { signl: undefined }), /^TypeError: resumeWhenAnswered: unknown option "signl" \(did you mean signal\?\); it accepts waiter, signal$/);
  const askedInMine = async () => (await human.listInquiries({ limit: 500 })).data.filter((i) => mine.includes(i.metadata?.langgraph_thread_id));
  assert.deepEqual(await askedInMine(), [], "nothing was asked");

  // A good inquiry field under { inquiry } is asked with.
  const good = oneQuestion({ prompt: "Ship it?" }, { inquiry: { assigned_to: "langgraph-human" } });
  const cfg = thread();
  await good.graph.invoke({}, cfg);
  const [id] = await pendingInquiries(good.graph, cfg);
  assert.deepEqual((await askedInMine()).map((i) => i.id), [id], "the check above would have seen an inquiry");
  assert.deepEqual((await human.getInquiry(id)).assigned_to, ["langgraph-human"]);
  await human.respond(id, "yes");
  assert.equal((await resumeWhenAnswered(agent, good.graph, cfg)).answer, "yes");
});

test("the declarations type-check with LangGraph's graph types", () => {
  const tsc = join(here, "..", "node_modules", "typescript", "bin", "tsc");
  const run = spawnSync(process.execPath, [tsc, "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", join(here, "fixtures", "langgraph-types.ts")], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

/** runExample runs examples/langgraph/index.mjs as its own process and returns its JSON line. */
async function runExample(args, checkpointFile) {
  return (await runExampleIn(args, { CHECKPOINT_FILE: checkpointFile })).json;
}

/** runExampleIn runs the example with env added, from cwd (as `node SCRIPT`), and returns its JSON line and stderr. */
async function runExampleIn(args, env, cwd = process.cwd(), script = join(here, "..", "examples", "langgraph", "index.mjs")) {
  const child = spawn(process.execPath, [script, ...args], {
    cwd,
    env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentToken, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const [code] = await once(child, "exit");
  assert.equal(code, 0, `example ${args.join(" ")} failed: ${err}`);
  return { json: JSON.parse(out.trim().split("\n").at(-1)), err };
}

test("the example: one process stops at the question, another resumes it from the checkpoint file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hitl-langgraph-example-"));
  try {
    const file = join(dir, "checkpoints.json");
    const started = await runExample(["start", "order-7"], file);
    assert.equal(started.interrupted, true);
    const inquiry = await human.getInquiry(started.inquiry);
    assert.equal(inquiry.prompt, "Refund 499 for order A-1?");
    assert.deepEqual(inquiry.tool_call.arguments, { order_id: "A-1", amount: 499 });
    // The first process has exited; the second waits for the answer, then finishes the run.
    const resumed = runExample(["resume", "order-7"], file);
    await human.respond(started.inquiry, { decision: "edit", args: { order_id: "A-1", amount: 250 } });
    assert.deepEqual(await resumed, { done: true, outcome: "Refunded 250 for order A-1." });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the example says how to resume from where it was run, keeps its checkpoints out of the current directory, and gives the reviewer's reason on a reject", async () => {
  const pkg = join(here, "..");
  const tmp = mkdtempSync(join(tmpdir(), "hitl-langgraph-example-tmp-"));
  const cwd = mkdtempSync(join(tmpdir(), "hitl-langgraph-example-cwd-"));
  try {
    // From clients/typescript, as the docs run it, with no CHECKPOINT_FILE: the file goes to the
    // temporary directory (TMPDIR here), and the hint names the path from there.
    const started = await runExampleIn(["start", "order-reject"], { CHECKPOINT_FILE: "", TMPDIR: tmp }, pkg, "examples/langgraph/index.mjs");
    assert.equal(started.json.interrupted, true);
    assert.match(started.err, new RegExp(`Waiting on hitl inquiry ${started.json.inquiry}; answer it, then: node examples/langgraph/index.mjs resume order-reject\n`));
    assert.ok(existsSync(join(tmp, "hitl-langgraph-example-checkpoints.json")));
    assert.ok(!existsSync(join(pkg, "checkpoints.json")));

    const resumed = runExampleIn(["resume", "order-reject"], { CHECKPOINT_FILE: "", TMPDIR: tmp }, pkg, "examples/langgraph/index.mjs");
    await human.respond(started.json.inquiry, { decision: "reject", message: "no receipt, no refund" });
    assert.deepEqual((await resumed).json, { done: true, outcome: "Not refunded: the reviewer declined: no receipt, no refund" });

    // From another directory with CHECKPOINT_FILE: the hint has the path from there, and the file.
    const file = join(tmp, "elsewhere.json");
    const other = await runExampleIn(["start", "order-elsewhere"], { CHECKPOINT_FILE: file }, cwd);
    assert.ok(existsSync(file));
    assert.deepEqual(readdirSync(cwd), [], "nothing written in the current directory");
    const script = relative(cwd, join(pkg, "examples", "langgraph", "index.mjs"));
    assert.ok(other.err.includes(`then: CHECKPOINT_FILE=${file} node ${script} resume order-elsewhere`), other.err);
    await server.admin.cancel(other.json.inquiry, "test over");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
});
