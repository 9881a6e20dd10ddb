// An A2A client asks a person through hitl, as it would ask any other A2A agent.
//
//   HITL_URL=http://127.0.0.1:7447 HITL_TOKEN=hitl_... node examples/a2a/index.mjs ["Your question?"]
//
// It reads hitl's Agent Card, sends the question as a streaming message and prints each event
// until the task ends: answer it in the inbox, or with `hitl respond ID yes` (or decline it with
// `hitl decline ID --reason why`). Nothing here is hitl's own: it is @a2a-js/sdk as it comes.
import { randomUUID } from "node:crypto";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

const url = process.env.HITL_URL ?? "http://127.0.0.1:7447";
const token = process.env.HITL_TOKEN;
if (!token) throw new Error("HITL_TOKEN must hold an agent's key (hitl keys create my-agent --role agent)");
const question = process.argv[2] ?? "May I deploy build 1432 to production?";

// hitl's keys are bearer tokens: every JSON-RPC call carries one; the card needs none.
const withKey = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
}));
const client = await factory.createFromUrl(url);
console.log(`asking ${client.agentCard.name} at ${client.agentCard.supportedInterfaces[0].url}`);

const stream = client.sendMessageStream({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: "text", value: question } },
      // How to ask: the shape of the answer, who is asked, how long to wait (all optional).
      { content: { $case: "data", value: { options: ["yes", "no"], timeout_seconds: 3600, fallback_policy: "fail" } } },
    ],
  },
});
for await (const { payload } of stream) {
  switch (payload.$case) {
    case "task":
      console.log(`task ${payload.value.id} in context ${payload.value.contextId}: ${TaskState[payload.value.status.state]}`);
      break;
    case "artifactUpdate":
      console.log("answer:", JSON.stringify(payload.value.artifact.parts[0].content.value));
      break;
    case "statusUpdate": {
      const why = payload.value.status.message?.parts[0]?.content.value;
      console.log(`${TaskState[payload.value.status.state]}${why ? `: ${why}` : ""}`);
      break;
    }
  }
}
