// The package as it is published: `npm pack` makes a tarball of the build (dist/) that a
// project installs with no network and no framework, whose root import and types work, and
// whose adapters say which framework they need when it is missing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let dir, project, tarball, files;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "hitl-ts-pack-"));
  // dist/ is built already (npm test builds it first): pack it as it is.
  const out = JSON.parse(execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" }));
  tarball = join(dir, out[0].filename);
  files = out[0].files.map((f) => f.path);
  project = join(dir, "app");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: project, stdio: "pipe" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("the tarball holds the build and its types, not the sources or the tests", () => {
  assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts"));
  for (const adapter of ["openai-agents", "langgraph", "ai-sdk", "claude-agent-sdk"]) {
    assert.ok(files.includes(`dist/${adapter}.js`) && files.includes(`dist/${adapter}.d.ts`), `dist/${adapter} is packed`);
  }
  assert.deepEqual(files.filter((f) => !f.startsWith("dist/") && f !== "package.json"), []);
});

test("installed without any framework (nor jose: receipts use node:crypto), the root import works and an adapter names what it needs", () => {
  const installed = readdirSync(join(project, "node_modules"));
  assert.deepEqual(installed.filter((n) => !n.startsWith(".")).sort(), ["@hitl"], "no framework came with it: they are optional peers");
  const script = `
    const { HitlClient, verifyWebhook, verifyReceipt } = await import("@hitl/client");
    if (typeof HitlClient !== "function" || typeof verifyWebhook !== "function" || typeof verifyReceipt !== "function") throw new Error("exports missing");
    try { await import("@hitl/client/openai-agents"); console.log("imported"); }
    catch (err) { console.log(err.code, err.message); }`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /ERR_MODULE_NOT_FOUND .*'@openai\/agents'/);
});

test("a TypeScript project type-checks against the installed package's declarations", () => {
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
    compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, lib: ["ES2022", "DOM"], types: [] },
    files: ["main.ts"],
  }));
  writeFileSync(join(project, "main.ts"), `
    import { HitlClient, HitlError, verifyReceipt, ReceiptError, type Inquiry, type InquiryRequest, type ReceiptClaims, type ReceiptErrorReason } from "@hitl/client";
    const hitl = new HitlClient({ url: "http://127.0.0.1:7447", token: "t" });
    const request: InquiryRequest = { prompt: "Deploy?", request_type: "approval", timeout_seconds: 60 };
    export async function main(): Promise<string> {
      try {
        const inquiry: Inquiry = await hitl.ask(request);
        return inquiry.status;
      } catch (err) {
        if (err instanceof HitlError) return err.code;
        throw err;
      }
    }
    export async function check(inquiry: Inquiry, args: unknown): Promise<ReceiptClaims | ReceiptErrorReason> {
      try {
        return verifyReceipt(inquiry.receipt ?? "", { jwks: await hitl.jwks(), issuer: hitl.url, args });
      } catch (err) {
        if (err instanceof ReceiptError) return err.reason;
        throw err;
      }
    }
    // @ts-expect-error an unknown request type is a type error
    export const wrong: InquiryRequest = { prompt: "x", request_type: "vote" };
  `);
  const tsc = spawnSync(process.execPath, [join(pkg, "node_modules", "typescript", "bin", "tsc"), "-p", project], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
