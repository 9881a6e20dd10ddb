// Where HitlClient finds its server and token, in the CLI's order: the options, HITL_URL and
// HITL_TOKEN, then the credentials file `hitl serve` writes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HitlClient, credentialsPath } from "../dist/index.js";
import { TestServer } from "./server.mjs";

let server, dir;

before(async () => {
  server = await TestServer.start();
  dir = mkdtempSync(join(tmpdir(), "hitl-ts-creds-"));
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.stop();
});

test("with no options nor HITL_URL/HITL_TOKEN, the client uses HITL_CREDENTIALS's url and token", async () => {
  const token = await server.key("ts-from-file", "agent");
  const file = join(dir, "credentials.json");
  writeFileSync(file, JSON.stringify({ url: server.url, token }));
  const client = new HitlClient({ env: { HITL_CREDENTIALS: file } });
  assert.equal(client.url, server.url);
  assert.equal((await client.me()).name, "ts-from-file");
});

test("the credentials file is $XDG_CONFIG_HOME/hitl/credentials.json, else ~/.config/hitl/credentials.json", async () => {
  const token = await server.key("ts-from-xdg", "agent");
  mkdirSync(join(dir, "xdg", "hitl"), { recursive: true });
  writeFileSync(join(dir, "xdg", "hitl", "credentials.json"), JSON.stringify({ url: server.url, token }));
  const client = new HitlClient({ env: { XDG_CONFIG_HOME: join(dir, "xdg") } });
  assert.equal((await client.me()).name, "ts-from-xdg");
  assert.equal(credentialsPath({ HOME: "/home/ada" }), "/home/ada/.config/hitl/credentials.json");
});

test("HITL_URL and HITL_TOKEN win over the file, options win over both", async () => {
  const fileToken = await server.key("ts-file", "agent");
  const envToken = await server.key("ts-env", "agent");
  const file = join(dir, "both.json");
  writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:1", token: fileToken }));
  const env = { HITL_CREDENTIALS: file, HITL_URL: server.url, HITL_TOKEN: envToken };
  assert.equal((await new HitlClient({ env }).me()).name, "ts-env");
  // The token from the environment, the URL from the file when HITL_URL is unset.
  const half = new HitlClient({ env: { HITL_CREDENTIALS: file, HITL_TOKEN: envToken } });
  assert.equal(half.url, "http://127.0.0.1:1");
  assert.equal(half.token, envToken);
  const optionToken = await server.key("ts-option", "agent");
  assert.equal((await new HitlClient({ url: server.url, token: optionToken, env }).me()).name, "ts-option");
});

test("no token anywhere is a clear error; a missing file is not one", () => {
  assert.throws(() => new HitlClient({ env: { HITL_CREDENTIALS: join(dir, "missing.json") } }), /no hitl token: .*HITL_TOKEN/);
  const file = join(dir, "broken.json");
  writeFileSync(file, "{not json");
  assert.throws(() => new HitlClient({ env: { HITL_CREDENTIALS: file } }), /is not a hitl credentials file/);
  const client = new HitlClient({ token: "t", env: { HITL_CREDENTIALS: join(dir, "missing.json") } });
  assert.equal(client.url, "http://127.0.0.1:7447");
});
