// One turn of a Claude Agent SDK agent for the tests: the real `claude` binary, against the
// example's fake of Anthropic's API, whose model asks to Write notes.txt once.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic, offlineEnv } from "../examples/claude-agent-sdk/fake-anthropic.mjs";

/**
 * claudeTurn runs the turn in a new directory under baseDir with the SDK options given (how
 * permission is asked), while `during` (the person) runs beside it. It checks the turn ended
 * normally and the model was told the tool's result once, and returns that result, the file
 * as written (null if not), its path, and what `during` returned.
 */
export async function claudeTurn(baseDir, toolUseId, options, during = async () => undefined) {
  const cwd = mkdtempSync(join(baseDir, `${toolUseId}-`));
  const file = join(cwd, "notes.txt");
  const api = await startFakeAnthropic({ toolUse: { id: toolUseId, name: "Write", input: { file_path: file, content: "proposed\n" } } });
  try {
    const turn = (async () => {
      let result;
      for await (const message of query({ prompt: "Write the notes.", options: { cwd, env: offlineEnv(api.url, join(cwd, "home")), ...options } })) {
        if (message.type === "result") result = message;
      }
      return result;
    })();
    const [result, decided] = await Promise.all([turn, during()]);
    assert.equal(result?.subtype, "success", "the turn ends normally");
    const toolResults = api.toolResults.filter((r) => r.tool_use_id === toolUseId);
    assert.equal(toolResults.length, 1, "the model is told the tool's result once");
    return { toolResult: toolResults[0], written: existsSync(file) ? readFileSync(file, "utf8") : null, file, decided };
  } finally {
    await api.close();
  }
}

/** toolResultText is the text of a tool_result block the API was sent. */
export const toolResultText = (r) => (typeof r.content === "string" ? r.content : r.content.map((b) => b.text ?? "").join(""));
