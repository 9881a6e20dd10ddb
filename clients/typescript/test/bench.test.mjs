// bench/wake.mjs, the TypeScript side of `hitl bench`'s wake latency comparison, speaks the
// protocol the benchmark reads: the ids once asked, then when each ask() returned.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TestServer } from "./server.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
let server, human;

before(async () => {
  server = await TestServer.start();
  human = await server.client("bench-human", "responder");
});

after(async () => {
  await server.stop();
});

for (const mode of ["ask", "waiter"]) {
  test(`MODE=${mode}: the ids come first, then when each ask() returned, after its answer`, async () => {
    const token = await server.key(`bench-agent-${mode}`, "agent");
    const proc = spawn(process.execPath, ["bench/wake.mjs"], {
      cwd: pkg,
      env: { ...process.env, HITL_URL: server.url, HITL_TOKEN: token, WAITERS: "7", MODE: mode },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
    const { ids } = JSON.parse((await lines.next()).value);
    assert.equal(ids.length, 7);
    const sent = {};
    for (const id of ids) {
      sent[id] = Date.now();
      await human.respond(id, "go");
    }
    const { returned_unix_ms: returned } = JSON.parse((await lines.next()).value);
    assert.deepEqual(Object.keys(returned).map(Number).sort((a, b) => a - b), [...ids].sort((a, b) => a - b));
    for (const id of ids) assert.ok(returned[id] >= sent[id] - 1, `ask ${id} returned after its answer was sent`);
    const [code] = await new Promise((resolve) => proc.on("exit", (...a) => resolve(a)));
    assert.equal(code, 0);
  });
}

test("without its settings the script says what it needs", async () => {
  const proc = spawn(process.execPath, ["bench/wake.mjs"], { cwd: pkg, env: { PATH: process.env.PATH }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const [code] = await new Promise((resolve) => proc.on("exit", (...a) => resolve(a)));
  assert.equal(code, 2);
  assert.match(stderr, /needs HITL_URL, HITL_TOKEN/);
});
