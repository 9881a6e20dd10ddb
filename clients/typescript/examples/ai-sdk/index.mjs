// A refund agent built with the AI SDK (`ai`), where a person decides, through hitl, before a
// refund is paid. It runs offline: the model is the AI SDK's scripted MockLanguageModelV4, which
// calls the refund tool and then answers with what came back.
//
//   hitl serve                                   # in another terminal; note the admin token
//   hitl keys create refund-bot --role agent     # the agent's token
//   HITL_URL=http://127.0.0.1:7447 HITL_TOKEN=<agent token> node examples/ai-sdk/index.mjs
//   hitl respond <id> --approve                  # or --edit '{"order_id":"12345","amount":200}', or --reject "why"
//
// Run it from clients/typescript (after npm ci), so that "ai" and "@hitl/client" resolve.
// Part 1 wraps the tool with withApproval: the run waits inside the tool for the decision.
// Part 2 uses the AI SDK's own approval (toolApproval) and answers it with answerApprovalRequests.
import { generateText, tool, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { HitlClient } from "@hitl/client";
import { withApproval, answerApprovalRequests } from "@hitl/client/ai-sdk";

const hitl = new HitlClient(); // HITL_URL and HITL_TOKEN, else the credentials file of `hitl serve`

const refund = tool({
  description: "Refund an order",
  inputSchema: z.object({ order_id: z.string(), amount: z.number().positive().max(1000) }),
  execute: async ({ order_id, amount }) => ({ refunded: amount, order_id }),
});

// The scripted model: first it calls refund, then it reports the tool's result it was given.
function scriptedModel(toolCallId, input) {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const results = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content).filter((p) => p.type === "tool-result");
      if (results.length === 0) {
        return { content: [{ type: "tool-call", toolCallId, toolName: "refund", input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
      }
      const out = results.at(-1).output;
      const said = out.type === "json" ? `Refunded ${out.value.refunded} on order ${out.value.order_id}.` : `I did not refund it: ${out.value ?? out.reason}`;
      return { content: [{ type: "text", text: said }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
}

const onCreated = (inq) => console.log(`waiting for a person to decide on inquiry ${inq.id}: ${inq.prompt} (hitl respond ${inq.id} --approve)`);

// Part 1: withApproval. One line of glue: the tool asks before it runs.
const approvedRefund = withApproval(hitl, refund, {
  name: "refund",
  prompt: ({ input }) => `Refund $${input.amount} on order ${input.order_id}?`,
  context: { customer: "ada@example.com" },
  onCreated,
});
const run = await generateText({
  model: scriptedModel(`call-${Date.now()}-1`, { order_id: "12345", amount: 499 }),
  tools: { refund: approvedRefund },
  stopWhen: stepCountIs(3),
  prompt: "Refund order 12345: the parcel never arrived.",
});
console.log(`withApproval: ${run.text}`);

// Part 2: the AI SDK's own approval; hitl answers it.
const model = scriptedModel(`call-${Date.now()}-2`, { order_id: "67890", amount: 80 });
const messages = [{ role: "user", content: "Refund order 67890." }];
const first = await generateText({ model, tools: { refund }, toolApproval: { refund: "user-approval" }, stopWhen: stepCountIs(3), messages });
messages.push(...first.responseMessages, ...(await answerApprovalRequests(hitl, first, { onCreated })));
const second = await generateText({ model, tools: { refund }, toolApproval: { refund: "user-approval" }, stopWhen: stepCountIs(3), messages });
console.log(`answerApprovalRequests: ${second.text}`);
