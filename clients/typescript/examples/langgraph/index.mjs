// A LangGraph agent that asks a person through hitl before it refunds an order, and resumes in
// another process once they answered. The model is LangChain's scripted fake, so it runs
// offline; the checkpoints are kept in a JSON file (file-saver.mjs) that both processes read.
//
//   cd clients/typescript
//   HITL_URL=... HITL_TOKEN=... node examples/langgraph/index.mjs start order-1    # runs until the review; exits
//   hitl respond ID --approve        # a person decides: or --edit '{"order_id":"A-1","amount":250}', --reject "why", the inbox
//   HITL_URL=... HITL_TOKEN=... node examples/langgraph/index.mjs resume order-1   # waits for the answer, finishes
//
// The checkpoint file is CHECKPOINT_FILE, else hitl-langgraph-example-checkpoints.json in the
// system's temporary directory (not the current one, which may be a repository).
import { AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph, isInterrupted } from "@langchain/langgraph";
import { HitlClient } from "@hitl/client";
import { askHuman, resumeWhenAnswered } from "@hitl/client/langgraph";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSaver } from "./file-saver.mjs";

// This script as the command that runs it from the current directory.
const script = relative(process.cwd(), fileURLToPath(import.meta.url)) || "index.mjs";
const [mode, thread = "order-1"] = process.argv.slice(2);
if (mode !== "start" && mode !== "resume") {
  console.error(`usage: node ${script} start|resume [THREAD]`);
  process.exit(2);
}

const hitl = new HitlClient(); // HITL_URL and HITL_TOKEN, else the credentials file
const checkpointFile = process.env.CHECKPOINT_FILE || join(tmpdir(), "hitl-langgraph-example-checkpoints.json");
const checkpointer = new FileSaver(checkpointFile);

// The model proposes a refund (scripted: the same tool call every time).
const model = new FakeStreamingChatModel({
  chunks: [new AIMessageChunk({ content: "", tool_calls: [{ id: "call-1", name: "refund", args: { order_id: "A-1", amount: 499 } }] })],
});

const refundSchema = {
  type: "object",
  properties: { order_id: { type: "string" }, amount: { type: "number", minimum: 0, maximum: 1000 } },
  required: ["order_id", "amount"],
  additionalProperties: false,
};

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode("review", async (state) => {
    const call = state.messages.at(-1).tool_calls[0];
    // The one line of glue: ask a person, as Agent Inbox's HumanInterrupt, and get their HumanResponse.
    const answer = await askHuman(hitl, {
      action_request: { action: call.name, args: call.args },
      config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
      description: `Refund ${call.args.amount} for order ${call.args.order_id}?`,
    }, { parametersSchema: refundSchema });
    switch (answer.type) {
      case "accept":
        return { messages: [new ToolMessage({ tool_call_id: call.id, content: refund(call.args) })] };
      case "edit":
        return { messages: [new ToolMessage({ tool_call_id: call.id, content: refund(answer.args.args) })] };
      case "response":
        return { messages: [new ToolMessage({ tool_call_id: call.id, content: `Not refunded; the reviewer says: ${answer.args}` })] };
      default: // ignore: args is the reviewer's reason, or null
        return { messages: [new ToolMessage({ tool_call_id: call.id, content: answer.args ? `Not refunded: the reviewer declined: ${answer.args}` : "Not refunded: the reviewer declined." })] };
    }
  })
  .addEdge(START, "agent")
  .addEdge("agent", "review")
  .addEdge("review", END)
  .compile({ checkpointer });

function refund({ order_id, amount }) {
  return `Refunded ${amount} for order ${order_id}.`;
}

const config = { configurable: { thread_id: thread } };
let result = mode === "start"
  ? await graph.invoke({ messages: [new HumanMessage("Please refund order A-1, it arrived broken.")] }, config)
  : await resumeWhenAnswered(hitl, graph, config);
// Resuming may stop at another question (none in this graph): resume again until it finishes.
while (mode === "resume" && isInterrupted(result)) result = await resumeWhenAnswered(hitl, graph, config);

if (isInterrupted(result)) {
  const inquiry = result.__interrupt__[0].value.hitl_inquiry.id;
  console.log(JSON.stringify({ interrupted: true, inquiry }));
  const env = process.env.CHECKPOINT_FILE ? `CHECKPOINT_FILE=${checkpointFile} ` : "";
  console.error(`Waiting on hitl inquiry ${inquiry}; answer it, then: ${env}node ${script} resume ${thread}`);
} else {
  console.log(JSON.stringify({ done: true, outcome: result.messages.at(-1).content }));
}
