// An OpenAI Agents SDK agent whose refund tool needs a person's approval, asked through hitl.
//
//   HITL_URL=http://127.0.0.1:7447 HITL_TOKEN=hitl_... node examples/openai-agents/index.mjs [SESSION]
//
// The model is scripted (it always asks to refund $499 on order A-1, then reports the tool's
// result), so this runs offline; swap in a real model with `model: "gpt-5"`. The run stops
// at the tool call; approveInterruptions asks in hitl and waits: answer in the inbox, or with
// `hitl respond ID --approve`, `--reject "why"` or `--edit '{"order_id":"A-1","amount":250}'`.
// Kill the process while it waits and run it again with the same SESSION: it picks the run up
// from the state saved in the hitl session and waits on the same question. Run it again once
// the session has finished and it says so, with the run's result.
import { Agent, Usage, run, tool, setTracingDisabled } from "@openai/agents";
import { z } from "zod";
import { HitlClient } from "@hitl/client";
import { approveInterruptions, loadRunState } from "@hitl/client/openai-agents";

setTracingDisabled(true);
const session = process.argv[2] ?? `refund-${Date.now()}`;

/** A Model (the SDK's interface) that calls refund once, then reports what the tool said. */
const scriptedModel = {
  async getResponse(request) {
    const output = request.input.find?.((item) => item.type === "function_call_result");
    if (!output) {
      const args = JSON.stringify({ order_id: "A-1", amount: 499 });
      return { usage: new Usage(), output: [{ type: "function_call", callId: `call-${session}`, name: "refund", arguments: args, status: "completed" }] };
    }
    const text = `Done: ${output.output.text ?? output.output}`;
    return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }] };
  },
  async *getStreamedResponse() {
    throw new Error("not streamed");
  },
};

const refund = tool({
  name: "refund",
  description: "Refund an order",
  parameters: z.object({ order_id: z.string(), amount: z.number().max(1000) }),
  needsApproval: true,
  execute: async ({ order_id, amount }) => `refunded $${amount} on order ${order_id}`,
});
const agent = new Agent({ name: "support", instructions: "Handle refunds.", model: scriptedModel, tools: [refund] });
const hitl = new HitlClient();

// A new run, or the one this session was waiting on before the process stopped.
const saved = await hitl.getSession(session).catch((err) => {
  if (err.status === 404) return null;
  throw err;
});
if (saved && ["completed", "failed", "cancelled"].includes(saved.status)) {
  // The run of this session is over: hitl keeps its result, and the session can no longer change.
  const outcome = saved.status === "completed" ? saved.result?.output ?? JSON.stringify(saved.result) : saved.error ?? "";
  console.log(`Session ${session} is ${saved.status}${outcome ? `: ${outcome}` : ""}`);
  process.exit(saved.status === "completed" ? 0 : 1);
}
let result = saved?.state ? { state: await loadRunState(hitl, agent, session) } : await run(agent, "Refund order A-1, the customer sent no receipt.");
while (result.state.getInterruptions().length > 0) {
  const state = await approveInterruptions(hitl, result, {
    session,
    timeout_seconds: 3600,
    onAsked: (inq) => {
      // On a resume the question may have been answered while no process was running.
      if (inq.status === "pending") console.log(`Asked inquiry ${inq.id} (session ${session}): answer it in the inbox or with hitl respond ${inq.id} --approve`);
      else console.log(`Inquiry ${inq.id} (session ${session}) was already answered: ${inq.status}`);
    },
  });
  result = await run(agent, state);
}
await hitl.completeSession(session, { output: result.finalOutput });
console.log(result.finalOutput);
