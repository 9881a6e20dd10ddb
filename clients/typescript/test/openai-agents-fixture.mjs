// The agent the openai-agents tests run: the real @openai/agents Agent, tools and runner, with
// a scripted model (the SDK's Model interface, answers written in advance) so it runs offline.
import * as agents from "@openai/agents";
import { Usage, setTracingDisabled } from "@openai/agents";
import { z } from "zod";

setTracingDisabled(true);

/** The text of a tool output as the model is given it. */
function outputText(output) {
  if (typeof output === "string") return output;
  return output?.text ?? JSON.stringify(output);
}

function message(text) {
  return { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] };
}

/**
 * ScriptedModel first asks for the given tool calls (all at once), then, once the run gives it
 * their outputs, answers with a message quoting each output (with no calls, it answers "nothing
 * to do" at once). It keeps every request.
 */
export class ScriptedModel {
  constructor(calls) {
    this.calls = calls;
    this.requests = [];
  }

  async getResponse(request) {
    this.requests.push(request);
    const input = Array.isArray(request.input) ? request.input : [];
    const outputs = input.filter((item) => item.type === "function_call_result");
    if (this.calls.length === 0) return { usage: new Usage(), output: [message("nothing to do")] };
    if (outputs.length === 0) {
      return {
        usage: new Usage(),
        output: this.calls.map((c) => ({ type: "function_call", callId: c.id, name: c.name, arguments: JSON.stringify(c.arguments), status: "completed" })),
      };
    }
    const text = outputs.map((o) => `${o.name}: ${outputText(o.output)}`).join("\n");
    return { usage: new Usage(), output: [message(text)] };
  }

  /** What the model was told each call's output was, by call id (from its last request). */
  toolOutputs() {
    const last = this.requests.at(-1);
    const input = Array.isArray(last?.input) ? last.input : [];
    return Object.fromEntries(input.filter((i) => i.type === "function_call_result").map((o) => [o.callId, outputText(o.output)]));
  }

  async *getStreamedResponse() {
    throw new Error("the scripted model does not stream");
  }
}

/**
 * supportAgent has two tools that need approval; ran records each call that ran. sdk is the
 * copy of @openai/agents (or agents-core) to build it with: by default the one tests import.
 */
export function supportAgent(model, ran = [], sdk = agents) {
  const { Agent, tool } = sdk;
  const refund = tool({
    name: "refund",
    description: "Refund an order",
    parameters: z.object({ order_id: z.string(), amount: z.number().max(1000) }),
    needsApproval: true,
    execute: async (args) => {
      ran.push({ tool: "refund", args });
      return `refunded ${args.amount} on ${args.order_id}`;
    },
  });
  const notify = tool({
    name: "notify_customer",
    description: "Send the customer a message",
    parameters: z.object({ order_id: z.string(), text: z.string() }),
    needsApproval: true,
    execute: async (args) => {
      ran.push({ tool: "notify_customer", args });
      return `sent to ${args.order_id}`;
    },
  });
  return new Agent({ name: "support", instructions: "Help customers with refunds.", model, tools: [refund, notify] });
}
