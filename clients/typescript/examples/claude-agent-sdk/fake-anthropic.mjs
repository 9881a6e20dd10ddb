// A scripted stand-in for Anthropic's Messages API, so that the real `claude` binary the Claude
// Agent SDK drives runs offline: asked with the tool, the "model" uses it once (toolUse); given
// the tool's result, it ends its turn with a sentence quoting the result. Any other request (a
// side query of the CLI) gets a short text. Each request is kept in `requests`, each
// tool_result it was sent in `toolResults`.
import { createServer } from "node:http";
import { once } from "node:events";
import { join } from "node:path";

export async function startFakeAnthropic({ toolUse }) {
  const requests = [];
  const toolResults = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    let body = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: answered below as an unknown route
    }
    requests.push({ method: req.method, url: req.url, body });
    if (req.method !== "POST" || !req.url.startsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no ${req.method} ${req.url} here` } }));
      return;
    }
    if (req.url.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const messages = body.messages ?? [];
    const last = messages[messages.length - 1];
    const results = Array.isArray(last?.content) ? last.content.filter((b) => b.type === "tool_result") : [];
    toolResults.push(...results);
    const offered = (body.tools ?? []).some((t) => t.name === toolUse.name);
    let content;
    if (offered && results.length === 0) content = [{ type: "tool_use", id: toolUse.id, name: toolUse.name, input: toolUse.input }];
    else if (results.length) content = [{ type: "text", text: `The tool said: ${resultText(results[0])}` }];
    else content = [{ type: "text", text: "OK." }];
    const stopReason = content[0].type === "tool_use" ? "tool_use" : "end_turn";
    const message = {
      id: `msg_fake_${requests.length}`, type: "message", role: "assistant", model: body.model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 0 },
    };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...message, content, stop_reason: stopReason, usage: { input_tokens: 10, output_tokens: 5 } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send("message_start", { message });
    content.forEach((block, index) => {
      if (block.type === "text") {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      } else {
        send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
      }
      send("content_block_stop", { index });
    });
    send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
    send("message_stop", {});
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    toolResults,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function resultText(result) {
  if (typeof result.content === "string") return result.content;
  return (result.content ?? []).map((b) => b.text ?? "").join("");
}

/**
 * offlineEnv is the environment of the `claude` binary: the fake API with a dummy key, a home
 * and config directory of its own (home, a temp directory), and nothing sent anywhere else.
 */
export function offlineEnv(apiUrl, home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: "sk-ant-fake-key-for-a-local-fake-api",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}
