// hitl's MCP permission-prompt tool, approval_prompt, with the MCP TypeScript SDK as the client
// (over streamable HTTP at /mcp on a real `hitl serve`, and over stdio with `hitl mcp`), and
// with the real `claude` binary of the Claude Agent SDK using it as its
// --permission-prompt-tool against a local fake of Anthropic's API.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TestServer } from "./server.mjs";
import { claudeTurn, toolResultText } from "./claude-turn.mjs";

let server, agentToken, human;

before(async () => {
  server = await TestServer.start();
  agentToken = await server.key("mcp-claude", "agent");
  human = await server.client("mcp-human", "responder");
});

after(() => server.stop()); // removes server.dir, where the agents work too

/** decideWhenAsked answers, as the person, the pending inquiry with this prompt once it exists. */
async function decideWhenAsked(prompt, answer) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await human.listInquiries({ status: "pending" });
    const inq = page.data.find((i) => i.prompt === prompt);
    if (inq) {
      await (typeof answer === "function" ? answer(inq) : human.respond(inq.id, answer));
      return inq;
    }
    if (Date.now() > deadline) throw new Error(`nobody asked ${JSON.stringify(prompt)}`);
    await delay(25);
  }
}

async function connect(transport) {
  const client = new Client({ name: "hitl-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const httpTransport = () =>
  new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } });

/** permission calls approval_prompt and parses its text, as Claude Code does. */
async function permission(client, args) {
  const res = await client.callTool({ name: "approval_prompt", arguments: args });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  assert.equal(res.content.length, 1);
  assert.equal(res.content[0].type, "text");
  return JSON.parse(res.content[0].text);
}

test("over HTTP: listed, and a person's approve and reject come back as Claude Code's JSON", async () => {
  const client = await connect(httpTransport());
  try {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "approval_prompt");
    assert.ok(tool, `approval_prompt among ${tools.map((t) => t.name)}`);
    assert.deepEqual(tool.inputSchema.required, ["tool_name", "input"]);

    const input = { file_path: "/srv/app/config.yaml", content: "replicas: 3\n" };
    const [approved, asked] = await Promise.all([
      permission(client, { tool_name: "Write", input, tool_use_id: "toolu_http_1" }),
      decideWhenAsked("Allow Write?", { decision: "approve" }),
    ]);
    assert.deepEqual(approved, { behavior: "allow", updatedInput: input });
    const inq = await human.getInquiry(asked.id);
    assert.equal(inq.tool_call.id, "toolu_http_1");
    assert.deepEqual(inq.tool_call.arguments, input);
    assert.deepEqual(inq.allowed_decisions, ["approve", "edit", "reject"]);

    const [rejected] = await Promise.all([
      permission(client, { tool_name: "Bash", input: { command: "kubectl delete ns prod" }, tool_use_id: "toolu_http_2" }),
      decideWhenAsked("Allow Bash?", { decision: "reject", message: "never in prod" }),
    ]);
    assert.deepEqual(rejected, { behavior: "deny", message: "The human rejected your call of Bash. Do not run Bash. Their reason: never in prod" });

    // The same tool use asked about again is the same decision, not a second question.
    const again = await permission(client, { tool_name: "Write", input, tool_use_id: "toolu_http_1" });
    assert.deepEqual(again, approved);

    const bad = await client.callTool({ name: "approval_prompt", arguments: { tool_name: "Bash", input: "ls" } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /input must be a JSON object/);
    const missing = await client.callTool({ name: "approval_prompt", arguments: { input: {} } });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /tool_name is required/);
  } finally {
    await client.close();
  }
});

test("over stdio (hitl mcp): a person's edit is the updated input", async () => {
  const client = await connect(new StdioClientTransport({
    command: process.env.HITL_BIN, args: ["mcp"], env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: agentToken }, stderr: "inherit",
  }));
  try {
    const [edited] = await Promise.all([
      permission(client, { tool_name: "Edit", input: { file_path: "main.go", old_string: "a", new_string: "b" }, tool_use_id: "toolu_stdio_1" }),
      decideWhenAsked("Allow Edit?", (inq) => human.respond(inq.id, { decision: "edit", args: { ...inq.tool_call.arguments, new_string: "c" } })),
    ]);
    assert.deepEqual(edited, { behavior: "allow", updatedInput: { file_path: "main.go", old_string: "a", new_string: "c" } });
  } finally {
    await client.close();
  }
});

/** turn runs the real claude binary with hitl's MCP server as its permission prompt. */
async function turn(name, decide) {
  const r = await claudeTurn(server.dir, `toolu_claude_${name}`, {
    mcpServers: { hitl: { type: "http", url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${agentToken}` } } },
    permissionPromptToolName: "mcp__hitl__approval_prompt",
  }, () => decideWhenAsked("Allow Write?", decide));
  return { ...r, asked: r.decided };
}

test("claude --permission-prompt-tool mcp__hitl__approval_prompt: an edit is written", async () => {
  const r = await turn("edit", (inq) => human.respond(inq.id, { decision: "edit", args: { ...inq.tool_call.arguments, content: "edited\n" } }));
  assert.equal(r.written, "edited\n");
  assert.equal(r.asked.tool_call.id, "toolu_claude_edit", "claude's tool use id");
});

test("claude --permission-prompt-tool mcp__hitl__approval_prompt: a rejection is not written, and the model reads why", async () => {
  const r = await turn("reject", { decision: "reject", message: "ask the release manager" });
  assert.equal(r.written, null);
  assert.equal(r.toolResult.is_error, true);
  assert.match(toolResultText(r.toolResult), /ask the release manager/);
});
