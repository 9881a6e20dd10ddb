// reviewToolCall: a person decides about a model's tool call before it runs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TestServer } from "./server.mjs";

let server, agent, human;

before(async () => {
  server = await TestServer.start();
  agent = await server.client("review-agent", "agent");
  human = await server.client("review-human", "responder");
});

after(async () => {
  await server.stop();
});

const refund = {
  name: "refund",
  arguments: { order_id: "A-1", amount: 499 },
  parameters_schema: {
    type: "object",
    properties: { order_id: { type: "string" }, amount: { type: "number", maximum: 1000 } },
    required: ["order_id", "amount"],
    additionalProperties: false,
  },
};

/** decide answers the review once it is asked, as a person in the inbox would. */
function decide(answer) {
  const done = [];
  return { onCreated: (inq) => done.push(human.respond(inq.id, answer)), done };
}

test("approve: run the tool with the proposed arguments", async () => {
  const d = decide({ decision: "approve" });
  const result = await agent.reviewToolCall({ tool_call: { id: "call-approve", ...refund } }, d);
  await Promise.all(d.done);
  assert.equal(result.run, true);
  assert.equal(result.decision, "approve");
  assert.deepEqual(result.arguments, refund.arguments);
  assert.equal(result.tool_call_id, "call-approve");
  assert.equal(result.inquiry.prompt, "Allow refund?");
  assert.deepEqual(result.inquiry.allowed_decisions, ["approve", "reject"], "the default decisions");
});

test("edit: run the tool with the person's arguments; arguments outside the schema are refused", async () => {
  const refused = [];
  const done = [];
  const result = await agent.reviewToolCall({ tool_call: { id: "call-edit", ...refund }, prompt: "Refund order A-1?", allowed_decisions: ["approve", "edit", "reject"] }, {
    onCreated: (inq) => done.push((async () => {
      await assert.rejects(human.respond(inq.id, { decision: "edit", args: { order_id: "A-1", amount: 5000 } }), (err) => {
        refused.push(err);
        return err.status === 422;
      });
      await human.respond(inq.id, { decision: "edit", args: { order_id: "A-1", amount: 250 } });
    })()),
  });
  await Promise.all(done);
  assert.equal(refused.length, 1);
  assert.equal(result.run, true);
  assert.equal(result.decision, "edit");
  assert.deepEqual(result.arguments, { order_id: "A-1", amount: 250 });
  assert.equal(result.inquiry.prompt, "Refund order A-1?");
});

test("reject: do not run, with the person's reason", async () => {
  const d = decide({ decision: "reject", message: "too large without a receipt" });
  const result = await agent.reviewToolCall({ tool_call: { id: "call-reject", ...refund } }, d);
  await Promise.all(d.done);
  assert.equal(result.run, false);
  assert.equal(result.decision, "reject");
  assert.equal(result.message, "too large without a receipt");
  assert.match(result.content, /too large without a receipt/);
});

test("a call reviewed twice (an asker that restarted) is one inquiry", async () => {
  const d = decide({ decision: "approve" });
  const first = await agent.reviewToolCall({ tool_call: { id: "call-twice", name: "deploy", arguments: { env: "prod" } } }, d);
  await Promise.all(d.done);
  const again = await agent.reviewToolCall({ tool_call: { id: "call-twice", name: "deploy", arguments: { env: "prod" } } });
  assert.equal(again.inquiry.id, first.inquiry.id);
  assert.equal(again.run, true);
});

test("a cancelled review is a result with run false, saying so", async () => {
  const done = [];
  const result = await agent.reviewToolCall({ tool_call: { id: "call-cancel", name: "deploy", arguments: {} } }, {
    onCreated: (inq) => done.push(agent.cancel(inq.id, "the run was stopped")),
  });
  await Promise.all(done);
  assert.equal(result.run, false);
  assert.equal(result.inquiry.status, "cancelled");
  assert.equal(result.decision, undefined);
  assert.match(result.content, /cancel/i);
});

test("a call without its id is refused before anything is asked", async () => {
  await assert.rejects(agent.reviewToolCall({ tool_call: { name: "deploy", arguments: {} } }), /needs the tool call, with its id/);
});
