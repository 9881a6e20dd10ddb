// A Claude Agent SDK agent whose tool use a person in hitl allows, edits or denies.
//
//   HITL_URL=http://127.0.0.1:7447 HITL_TOKEN=hitl_... node examples/claude-agent-sdk/index.mjs
//
// The "model" is a local fake of Anthropic's API (fake-anthropic.mjs), so it runs offline with
// the real `claude` binary the SDK ships: it asks to Write notes.txt; hitl asks a person (answer
// it in the inbox, or `hitl respond ID --approve`); the tool runs with the input the person
// allowed, or not at all. It prints one JSON line: the file's content (null if it was not
// written) and what the model was told.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { HitlClient } from "@hitl/client";
import { canUseTool } from "@hitl/client/claude-agent-sdk";
import { startFakeAnthropic, offlineEnv } from "./fake-anthropic.mjs";

const dir = mkdtempSync(join(tmpdir(), "hitl-claude-example-"));
const notes = join(dir, "notes.txt");
const api = await startFakeAnthropic({
  // A tool use id of its own each run, as Claude gives each tool use: the id is the question's
  // idempotency key, so a second run must not find the first run's question.
  toolUse: { id: `toolu_${randomUUID().replaceAll("-", "")}`, name: "Write", input: { file_path: notes, content: "Deploy v2.5.0 on Friday.\n" } },
});

const hitl = new HitlClient(); // HITL_URL and HITL_TOKEN, else the credentials file
let said = "";
try {
  for await (const message of query({
    prompt: "Write our release note to notes.txt.",
    options: {
      cwd: dir,
      env: offlineEnv(api.url, join(dir, "home")),
      // The one line of glue: every permission the agent asks for is a person's decision in hitl.
      canUseTool: canUseTool(hitl, {
        timeout_seconds: 600,
        context: { project: "release notes" },
        onAsked: (inq) => console.error(`asked inquiry ${inq.id}: ${inq.prompt}`),
      }),
    },
  })) {
    if (message.type === "result") said = message.subtype === "success" ? message.result : message.subtype;
  }
  const content = existsSync(notes) ? readFileSync(notes, "utf8") : null;
  console.log(JSON.stringify({ written: content, model_said: said }));
} finally {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}
