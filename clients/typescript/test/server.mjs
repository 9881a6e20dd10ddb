// A real hitl server for the tests: a temp SQLite database, a free port, a known admin
// token (HITL_ADMIN_TOKEN, as the Python client's tests do), and restart() that kills the
// process hard and starts it again on the same database and port.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { HitlClient } from "../dist/index.js";

export const ADMIN_TOKEN = "typescript-test-admin-token-0123456789";

/** freePort is a loopback port nothing listens on (as long as nobody takes it meanwhile). */
export async function freePort() {
  const srv = createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  srv.close();
  await once(srv, "close");
  return port;
}

export class TestServer {
  static async start() {
    const s = new TestServer();
    s.dir = mkdtempSync(join(tmpdir(), "hitl-ts-test-"));
    s.port = await freePort();
    s.url = `http://127.0.0.1:${s.port}`;
    await s.spawn();
    s.admin = new HitlClient({ url: s.url, token: ADMIN_TOKEN });
    return s;
  }

  async spawn() {
    const bin = process.env.HITL_BIN;
    if (!bin) throw new Error("HITL_BIN must name a built hitl binary (npm test builds one)");
    this.proc = spawn(bin, ["serve", "--addr", `127.0.0.1:${this.port}`, "--db", join(this.dir, "hitl.db"), "--log-level", "warn", "--webhook-allow-private"], {
      env: { ...process.env, HITL_ADMIN_TOKEN: ADMIN_TOKEN, HITL_CREDENTIALS: join(this.dir, "server-credentials.json") },
      stdio: ["ignore", "ignore", "inherit"],
    });
    this.exited = once(this.proc, "exit");
    await this.ready();
  }

  /** ready waits until /readyz answers: the server process takes a moment to listen. */
  async ready() {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const res = await fetch(`${this.url}/readyz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (this.proc.exitCode !== null) throw new Error(`hitl serve exited with ${this.proc.exitCode}`);
      if (Date.now() > deadline) throw new Error("hitl serve did not become ready within 20 s");
      await delay(25);
    }
  }

  /** kill stops the server as a crash would (SIGKILL): no draining, connections just drop. */
  async kill() {
    this.proc.kill("SIGKILL");
    await this.exited;
  }

  async restart() {
    await this.kill();
    await this.spawn();
  }

  /** key makes an API key with one role and returns its token. */
  async key(name, role) {
    const key = await this.admin.request("POST", "/v1/keys", { body: { name, roles: [role] } });
    return key.token;
  }

  async client(name, role) {
    return new HitlClient({ url: this.url, token: await this.key(name, role) });
  }

  async stop() {
    this.proc.kill("SIGTERM");
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
